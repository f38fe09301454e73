"""deck.cards: the card format — model, YAML source, registry of executables, text spans,
placeholders, parameters and instances, and the loader that validates card files.

Provides the frozen card model (:mod:`.model`), line-keeping YAML (:mod:`.yamlsource`), the
executable registry (:mod:`.registry`), spans and placeholders in card text (:mod:`.spans`,
:mod:`.spancheck`, :mod:`.placeholders`, :mod:`.prose`), facts, constraints and instance drawing
(:mod:`.facts`, :mod:`.constraints`, :mod:`.instances`), when a term occurs in a text
(:mod:`.terms`, shared by key points and their check), and :mod:`.loader` (files → a
:class:`~deck.cards.model.Collection`, every problem as ``PATH:LINE:COL``). ``card.schema.json``
is the JSON Schema editors use.

May import: :mod:`deck.base`, :mod:`deck.units`, :mod:`deck.formula`.
"""
