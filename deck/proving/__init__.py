"""deck.proving: holding every number a card shows to a second derivation.

Provides what ``check`` reports (:mod:`.failures`), the proofs of facts, figures, options and
answers (:mod:`.proofs`), proving a whole collection (:mod:`.verify`), coverage of displayed
numbers (:mod:`.coverage`), mutation testing of card files (:mod:`.mutation`) and the proof cache
(:mod:`.proofcache`).

May import: :mod:`deck.base`, :mod:`deck.units`, :mod:`deck.formula`, :mod:`deck.cards`,
:mod:`deck.answers`.
"""
