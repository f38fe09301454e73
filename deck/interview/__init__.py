"""deck.interview: mock interviews — scripts of questions that follow the answers.

Provides the script model (:mod:`.model`: a graph of questions, each a card id, with the
follow-up each verdict leads to and why), the validating loader of script files
(:mod:`.loader`, every problem as ``PATH:LINE:COL``), the judge of one answer
(:mod:`.judge`: graded exactly as a review, key points for explanations) and the run of an
interview over a passed clock with its scorecard (:mod:`.engine`).

May import: :mod:`deck.base`, :mod:`deck.units`, :mod:`deck.cards`, :mod:`deck.answers`.
"""
