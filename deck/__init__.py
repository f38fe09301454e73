"""deck: a domain-free flashcard engine with executable answers.

Card files (YAML) are loaded and validated by :mod:`deck.loader` into the frozen model
of :mod:`deck.model`; cards reach code only through a :class:`deck.registry.Registry`
that an application fills. :mod:`deck.instances` draws parametric instances,
:mod:`deck.checking` judges typed answers, :mod:`deck.verify` proves a collection's
claims, :mod:`deck.export` writes Markdown, Obsidian notes and Anki packages,
:mod:`deck.importing` turns Anki packages and CSV into card files, and the scheduler/store modules keep
FSRS review history in SQLite.

This package never imports ``quizcoll``, ``textual`` or ``numpy``.
"""
