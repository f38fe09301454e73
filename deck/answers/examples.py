"""What an answer to a card looks like: the example the answer box and the prompt show.

:func:`example_answer` gives an example of the card's quantity in the card's unit (``3.5 GiB``,
``450 GB/s``, ``2.5 ms``, ``8 GPUs``, a formula in the card's variables, an option letter);
:func:`answer_hint` the phrase around it ("a size with its unit, e.g. 3.5 GiB"). The formula
example is checked not to be the answer.
"""

from __future__ import annotations

from deck import units
from deck.cards.model import Card, CardType

_BYTES_EXAMPLES = {"B": "4,096 B", "KB": "512 KB", "KiB": "512 KiB", "MB": "768 MB"}
_BYTES_EXAMPLES |= {"MiB": "768 MiB", "TB": "1.2 TB", "TiB": "1.2 TiB"}
_SECONDS_EXAMPLES = {"ms": "2.5 ms", "us": "40 µs", "µs": "40 µs", "ns": "800 ns", "s": "1.5 s"}
_LABEL_EXAMPLES = {
    "S": "1.5 S",
    "Ψ": "12 Ψ",
    "N": "3 N",
    "×": "1.5×",
    "x": "1.5x",
    "params": "6.7B params",
    "parameters": "6.7B parameters",
    "tokens": "8,192 tokens",
    "bits": "4.5 bits",
}
_WHAT = {
    units.Dim.BYTES: "a size with its unit",
    units.Dim.RATE: "a bandwidth with its unit",
    units.Dim.SECONDS: "a time with its unit",
    units.Dim.RATIO: "a ratio",
}


def _numeric_example(unit: str, dim: units.Dim | None) -> str:
    if dim is units.Dim.BYTES:
        if unit in _BYTES_EXAMPLES:
            return _BYTES_EXAMPLES[unit]
        return f"3.5 {unit}" if unit and units.is_unit(unit) else "3.5 GiB"
    if dim is units.Dim.RATE:
        return f"450 {unit}" if unit and units.is_unit(unit) else "450 GB/s"
    if dim is units.Dim.SECONDS:
        return _SECONDS_EXAMPLES.get(unit, "2.5 ms")
    if unit == "%":
        return "12.5 %"
    if unit in _LABEL_EXAMPLES:
        return _LABEL_EXAMPLES[unit]
    return f"12 {unit}" if unit else "42"


def _formula_example(card: Card) -> str:
    from deck.formula import FormulaError
    from deck.formula.equivalence import equivalent

    names = [v.name for v in card.variables]
    first, second = names[0], names[-1]
    candidates = [f"{first}^2/({second} + 1)", f"3({first} + 2)", f"{first}/7 + 5"]
    if card.answer is None or card.answer.formula is None:
        return candidates[0]
    for text in candidates:
        try:
            if not equivalent(card.answer.formula, text, card.variables):
                return text
        except FormulaError:
            continue
    return candidates[-1]


def example_answer(card: Card, dim: units.Dim | None = None) -> str:
    """An example answer in the form ``card`` expects (never the answer of a formula card).

    ``dim`` is the answer's dimension (:func:`deck.answers.checking.answer_dim`) when the card's unit
    alone does not tell (an executable's field).
    """
    if card.type is CardType.CHOICE:
        return "a,c" if len(card.correct) > 1 else "b"
    if card.type is CardType.FORMULA and card.variables:
        return _formula_example(card)
    unit = card.answer.unit if card.answer is not None else ""
    if dim is None and unit and units.is_unit(unit):
        dim = units.unit_dim(unit)
    return _numeric_example(unit, dim)


def answer_hint(card: Card, dim: units.Dim | None = None) -> str:
    """What to type, with an example: "a size with its unit, e.g. 3.5 GiB"."""
    example = example_answer(card, dim)
    if card.type is CardType.CHOICE:
        what = "option letters" if len(card.correct) > 1 else "an option letter"
        return f"{what}, e.g. {example}"
    if card.type is CardType.FORMULA:
        names = ", ".join(v.name for v in card.variables)
        return f"a formula in {names}, e.g. {example}"
    if card.type is CardType.BASIC:
        return "think of the answer, then reveal it"
    unit = card.answer.unit if card.answer is not None else ""
    if dim is None and unit and units.is_unit(unit):
        dim = units.unit_dim(unit)
    return f"{_WHAT.get(dim, 'a number') if dim else 'a number'}, e.g. {example}"
