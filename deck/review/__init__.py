"""deck.review: scheduling with FSRS and the SQLite review store.

Provides the scheduler over the ``fsrs`` package (:mod:`.scheduler`), the daily and practice
queues (:mod:`.queue`), the crash-safe store (:mod:`.store`), review history as JSON
(:mod:`.history`) and statistics (:mod:`.stats`).

May import: :mod:`deck.base`, :mod:`deck.units`, :mod:`deck.cards` (the card model only).
"""
