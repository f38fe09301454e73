"""deck.answers: judging what a learner typed.

Provides an instance's exact answer and the verdict on a typed one (:mod:`.checking`), the
classic mistakes it can name (:mod:`.mistakes`), example answers for prompts
(:mod:`.examples`) and the key points a typed explanation covers (:mod:`.keypoints`).

May import: :mod:`deck.base`, :mod:`deck.units`, :mod:`deck.formula`, :mod:`deck.cards`.
"""
