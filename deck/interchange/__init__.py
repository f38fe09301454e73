"""deck.interchange: cards to and from other tools.

Provides export to Markdown, Obsidian and Anki (:mod:`.export`) and import of Anki packages and
CSV files into card files (:mod:`.importing`).

May import: :mod:`deck.base`, :mod:`deck.units`, :mod:`deck.formula`, :mod:`deck.cards`,
:mod:`deck.answers`.
"""
