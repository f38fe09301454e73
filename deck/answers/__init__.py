"""deck.answers: judging what a learner typed.

Provides an instance's exact answer and the verdict on a typed one (:mod:`.checking`), the
classic mistakes it can name (:mod:`.mistakes`) and example answers for prompts
(:mod:`.examples`).

May import: :mod:`deck.base`, :mod:`deck.units`, :mod:`deck.formula`, :mod:`deck.cards`.
"""
