"""Widgets and text renderers the screens share."""
