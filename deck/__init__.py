"""deck: a domain-free flashcard engine with executable answers.

Its packages, each with one job, arrows pointing down this list only:

* :mod:`deck.interchange` — export to Markdown, Obsidian and Anki; import of Anki and CSV.
* :mod:`deck.proving` — proofs of every number a card shows, coverage, mutation, proof cache.
* :mod:`deck.review` — FSRS scheduling, queues, the SQLite store, history and statistics.
* :mod:`deck.answers` — an instance's exact answer, the verdict on a typed one, named mistakes.
* :mod:`deck.cards` — the card format: model, YAML source, registry, spans, instances, loader.
* :mod:`deck.formula` — the formula language, its equivalence and symbolic proofs, LaTeX.
* :mod:`deck.units` — quantities with units: parsing, checked numbers, display.
* :mod:`deck.base` — errors, safe file I/O, text positions, forked workers.

Cards reach code only through a :class:`deck.cards.registry.Registry` that an application
fills. This package never imports ``quizcoll``, ``textual`` or ``numpy``; the import-linter
contracts in ``pyproject.toml`` say so and CI runs them.
"""
