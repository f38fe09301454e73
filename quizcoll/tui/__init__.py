"""The Textual terminal app: review, practice, browse, stats and the two labs.

Only this package imports :mod:`textual`. :mod:`quizcoll.tui.services` holds the
logic the screens drive (review sessions, summaries, the database thread) and
imports no textual, so it is testable on its own.
"""
