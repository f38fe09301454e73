"""Answer checking: the exact answer of an instance, and the verdict on what a user typed.

:func:`solve` computes an instance's exact answer (running its executable through the
registry) with a worked solution; :func:`check_answer` judges typed text against it
and suggests an FSRS rating. Nothing here raises on bad user text: a verdict says
what was wrong with it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from deck import units
from deck.answers.arithmetic import worked_out
from deck.answers.magnitudes import relative as _relative
from deck.answers.mistakes import Attempt, Mistake, detect
from deck.base.errors import DeckError
from deck.cards.facts import Value, resolve_value
from deck.cards.instances import Instance, render_text
from deck.cards.model import AnswerSpec, Card, CardType, Computation, Rating
from deck.cards.registry import Registry

SLOW_ANSWER_S = 60.0  # a right answer that took longer than this suggests Hard
MAX_ANSWER = 500  # characters of a typed answer: longer text is not read at all
_PHYSICAL = (units.Dim.BYTES, units.Dim.RATE, units.Dim.SECONDS)


@dataclass(frozen=True)
class Solution:
    """The exact answer of one instance and how it was obtained."""

    value: float | None
    text: str
    dim: units.Dim | None = None
    unit: str = ""
    result: Mapping[str, Any] | None = None
    args: Mapping[str, Any] | None = None
    explanation: str = ""
    back: str = ""
    formula: str = ""
    typed: str = ""  # the exact answer as a user would type it (accepted by the checker)

    def markdown(self) -> str:
        parts = [p for p in (self.back.strip(), self.explanation.strip()) if p]
        return "\n\n".join(parts)


@dataclass(frozen=True)
class Verdict:
    """What the checker concluded. ``correct`` is None for a self-graded card."""

    correct: bool | None
    given: str
    exact: str
    solution: str
    suggested: Rating
    message: str
    detail: Solution | None = field(default=None, compare=False)
    mistake: Mistake | None = None  # the named mistake a wrong answer is, when one is known
    error: str = ""  # why the text could not be read (then it is not an attempt)

    @property
    def invalid(self) -> bool:
        """The text was not an answer (unreadable): not an attempt, nothing to record."""
        return bool(self.error)

    @property
    def feedback(self) -> str:
        """``message`` without its closing "The answer is X." sentence.

        What to show before the answer is revealed (so a wrong answer can be retried);
        equal to ``message`` when the message does not end with the answer.
        """
        suffix = answer_sentence(self.exact)
        if self.exact and self.message.endswith(suffix):
            return self.message[: -len(suffix)].rstrip()
        return self.message


def answer_sentence(exact: str) -> str:
    """The sentence :func:`check_answer` appends to a message to give the answer away."""
    return f" The answer is {exact}."


class CheckError(DeckError):
    """An instance whose exact answer cannot be computed (a card or executable fault)."""


# ---------------------------------------------------------------------- solving


def resolve_args(comp: Computation, instance: Instance) -> dict[str, Any]:
    """Arguments of ``comp`` with ``{param}``, placeholders and ``= expr`` resolved."""
    out: dict[str, Any] = {}
    for key, value in comp.args:
        out[key] = resolve_value(value, instance.values, instance.shown)
    return out


def answer_dim(card: Card, registry: Registry | None) -> units.Dim | None:
    """The dimension a numeric card's answer is measured in."""
    a = card.answer
    if a is None:
        return None
    if a.unit and units.is_unit(a.unit):
        return units.unit_dim(a.unit)
    if a.computation is not None and registry is not None and a.computation.run in registry:
        f = registry.get(a.computation.run).field_(a.computation.field)
        if f is not None:
            return f.dimension
    return units.Dim.COUNT


def format_answer(value: float, dim: units.Dim | None, unit: str) -> str:
    """The exact answer for humans: GiB and GB both for bytes; the card's unit first."""
    if dim is units.Dim.BYTES:
        both = units.format_bytes_both(value)
        if unit and units.is_unit(unit) and unit not in ("B", "byte", "bytes"):
            first = units.format_in(value, unit)
            family_binary = "i" in units.lookup_unit(unit).symbol
            other = units.format_bytes(value, binary=not family_binary)
            return f"{first} ({other})"
        if abs(value) >= 1000:
            return f"{units.format_count(value, 'bytes')} = {both}"
        return both
    return units.format_value(value, dim, unit)


def code_span(text: str) -> str:
    """``text`` as a Markdown code span, with a fence longer than any backtick run inside."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def solve(card: Card, instance: Instance, registry: Registry | None) -> Solution:
    """Compute the exact answer of ``instance``; raise :class:`CheckError` if that fails."""
    a = card.answer
    if card.type is CardType.FORMULA and a is not None and a.formula:
        from deck.formula import parse

        expr = parse(a.formula)
        formula_value = Value(a.formula, units.Dim.TEXT, formula=a.formula)
        # A code span: inside **{answer}** the formula's * would otherwise be read as emphasis.
        back = render_text(
            card.back, instance, {"answer": code_span(str(expr))}, {"answer": formula_value}
        )
        return Solution(None, str(expr), back=back, formula=a.formula, typed=str(expr))
    if card.type is CardType.CHOICE:
        order = instance.option_order or tuple(range(len(card.options)))
        letters = [chr(ord("a") + order.index(i)) for i in card.correct]
        texts = [render_text(card.options[i], instance) for i in card.correct]
        exact = "; ".join(f"{ltr}) {t}" for ltr, t in sorted(zip(letters, texts, strict=True)))
        back = render_text(card.back, instance, {"answer": exact})
        return Solution(None, exact, back=back, typed=",".join(sorted(letters)))
    if card.type is not CardType.NUMERIC or a is None:
        return Solution(None, "", back=render_text(card.back, instance))
    return _solve_numeric(card, a, instance, registry)


def _solve_numeric(
    card: Card, a: AnswerSpec, instance: Instance, registry: Registry | None
) -> Solution:
    dim = answer_dim(card, registry)
    result: Mapping[str, Any] | None = None
    args: dict[str, Any] | None = None
    explanation = ""
    try:
        if a.computation is not None:
            if registry is None:
                raise CheckError("this card needs the executables registry")
            args = resolve_args(a.computation, instance)
            ex = registry.get(a.computation.run)
            bound = ex.bind(args)
            result = registry.call(a.computation.run, bound)
            value = result[a.computation.field]
            if ex.explain is not None:
                explanation = ex.explain(bound, result)
            args = bound
        elif a.value is not None:
            value = a.value
        else:
            from deck.formula import evaluate

            assert a.expr is not None
            value = evaluate(
                a.expr, {k: v for k, v in instance.values.items() if isinstance(v, int | float)}
            )
    except DeckError as exc:
        raise CheckError(f"card {card.id!r} (seed {instance.seed}): {exc}") from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CheckError(f"card {card.id!r}: the answer field gave {value!r}, not a number")
    value = float(value)
    text = format_answer(value, dim, a.unit)
    extra = {"answer": text}
    values = {"answer": Value(value, dim)}
    if result is not None:
        extra.update({f"result.{k}": _format_result(v) for k, v in result.items() if _simple(v)})
        ex = registry.get(a.computation.run) if registry is not None and a.computation else None
        for k, v in result.items():
            if _simple(v):
                f = ex.field_(k) if ex is not None else None
                values[f"result.{k}"] = Value(v, f.dimension if f else None)
    back = render_text(card.back, instance, extra, values)
    typed = text.split(" (")[0].split(" = ")[0]
    return Solution(value, text, dim, a.unit, result, args, explanation, back, typed=typed)


def _simple(v: Any) -> bool:
    return isinstance(v, str | int | float) and not isinstance(v, bool)


def _format_result(v: Any) -> str:
    if isinstance(v, str):
        return v
    return units.format_number(v)


# ---------------------------------------------------------------------- checking


class _Unreadable(Exception):
    """Text that is not an answer at all (not a number, a formula, an option): no attempt."""


def _suggest(correct: bool, attempts: int, elapsed_s: float | None) -> Rating:
    if not correct:
        return Rating.AGAIN
    if attempts > 1 or (elapsed_s is not None and elapsed_s > SLOW_ANSWER_S):
        return Rating.HARD
    return Rating.GOOD


def reveal(card: Card, instance: Instance, registry: Registry | None) -> Verdict:
    """The verdict of a self-graded (basic) card: the back, rating suggested Good."""
    sol = solve(card, instance, registry)
    return Verdict(
        None,
        "",
        sol.text,
        sol.markdown(),
        Rating.GOOD,
        "Self-graded: compare with the answer.",
        sol,
    )


def give_up(
    card: Card, instance: Instance, registry: Registry | None, solution: Solution | None = None
) -> Verdict:
    """The verdict of asking for the answer without trying one: wrong, Again."""
    sol = solution or solve(card, instance, registry)
    return Verdict(
        False,
        "",
        sol.text,
        sol.markdown(),
        Rating.AGAIN,
        f"Revealed: the answer is {sol.text}.",
        sol,
    )


def _invalid(sol: Solution, given: str, error: str, message: str = "") -> Verdict:
    """Text that could not be read: not an attempt, and the answer stays hidden."""
    return Verdict(
        False,
        given,
        sol.text,
        sol.markdown(),
        Rating.AGAIN,
        message or f"Could not read that: {error}",
        sol,
        error=error,
    )


def check_answer(
    card: Card,
    instance: Instance,
    answer: str,
    registry: Registry | None,
    *,
    attempts: int = 1,
    elapsed_s: float | None = None,
    solution: Solution | None = None,
) -> Verdict:
    """Judge ``answer`` for ``instance`` of ``card``: the one grading function that the TUI,
    ``review --plain`` and ``quizcoll grade`` share.

    Text that cannot be read (not a number, a broken formula, no such option) gives an
    :attr:`Verdict.invalid` verdict that says where reading failed and does not give the
    answer away; callers do not count it as an attempt. A wrong answer is matched against the
    named mistakes (:mod:`deck.answers.mistakes`) and the verdict names the one it is.
    """
    if card.type is CardType.BASIC:
        return reveal(card, instance, registry)
    sol = solution or solve(card, instance, registry)
    given = answer.strip()
    if not given:
        return _invalid(sol, given, "no answer given.", "No answer given: type one first.")
    if len(given) > MAX_ANSWER:
        return _invalid(
            sol,
            given[:40] + "…",
            f"the answer is {len(given):,} characters long (at most {MAX_ANSWER}).",
        )
    try:
        if card.type is CardType.NUMERIC:
            ok, note, attempt = _check_numeric(card, instance, sol, given)
        elif card.type is CardType.FORMULA:
            ok, note, attempt = _check_formula(card, instance, sol, given)
        else:
            ok, note, attempt = _check_choice(card, instance, sol, given)
    except _Unreadable as exc:
        return _invalid(sol, given, str(exc))
    mistake = None
    if not ok and attempt is not None:
        mistake = detect(attempt, registry.detectors if registry is not None else ())
    if ok:
        message = f"Correct: {note}" if note else "Correct."
        if sol.text not in message and card.type is not CardType.FORMULA:
            message += answer_sentence(sol.text)
        suggested = _suggest(True, attempts, elapsed_s)
    else:
        message = f"Not quite: {note}" if note else "Not quite."
        if mistake is not None:
            # Where the mistake says it all (the right amount in the wrong unit family; a
            # formula, whose values at a witness point are noise then) it replaces the note.
            right_amount = (
                sol.value is not None and attempt is not None and attempt.matches(sol.value)
            )
            if not note or right_amount or card.type is CardType.FORMULA:
                message = f"Not quite. {mistake.message}"
            else:
                message = f"{message} {mistake.message}"
        message += answer_sentence(sol.text)
        suggested = mistake.kind.rating if mistake is not None else Rating.AGAIN
    return Verdict(ok, given, sol.text, sol.markdown(), suggested, message, sol, mistake=mistake)


Outcome = tuple[bool, str, "Attempt | None"]


def _first_reading(given: str) -> str:
    """What to parse of a pasted answer: "13.04 GiB (14.00 GB)" and "x = y" read as the first
    part (string splits, not a backtracking regex: the text is hostile)."""
    head = given.split(" (", 1)[0] if given.endswith(")") else given
    return head.split(" = ", 1)[0].strip() or given


def _check_numeric(card: Card, instance: Instance, sol: Solution, given: str) -> Outcome:
    a = card.answer
    assert a is not None and sol.value is not None
    unit = a.unit
    physical = bool(unit) and units.is_unit(unit)
    label = unit if unit and not physical else None
    dim = (
        sol.dim
        if sol.dim in _PHYSICAL
        else (sol.dim if sol.dim in (units.Dim.COUNT, units.Dim.RATIO) else units.Dim.COUNT)
    )
    reading = _first_reading(given)
    worked = ""  # "34*4 GB" is read as "136 GB"
    try:
        if (done := worked_out(reading)) is not None:
            worked = " ".join(p for p in done if p)
        q = units.parse_quantity(worked or reading, dim, label=label)
    except units.UnitError as exc:
        raise _Unreadable(f"{exc} — {_expects(card, sol)}.") from None
    candidates = q.candidates
    if not q.unit and physical:
        f = units.lookup_unit(unit).factor
        candidates = tuple(c * f for c in candidates)
    attempt = Attempt(card, instance, sol, given, candidates, q.unit)
    if a.strict_unit and physical and q.unit:
        family = _family(unit)
        written = _family(q.unit) if units.is_unit(q.unit) else None
        if written is None and q.ambiguous:
            return (
                False,
                f"a bare {q.unit} does not say which unit; this question asks for {unit}.",
                attempt,
            )
        if written is not None and written != family and units.lookup_unit(q.unit).factor != 1:
            return (
                False,
                f"this question asks for {unit}, and {q.unit} is a different unit.",
                attempt,
            )
    hits = [c for c in candidates if a.tolerance.accepts(c, sol.value)]
    if hits:
        if q.ambiguous:
            return (
                True,
                (
                    f"{reading} read as {units.format_bytes(hits[0], binary=hits[0] == candidates[1])} "
                    f"(a bare {q.unit} is ambiguous: write {q.unit.upper()}B or {q.unit.upper()}iB)."
                ),
                attempt,
            )
        return True, f"{reading} = {worked}." if worked else "", attempt
    shown = f"{reading} = {worked}" if worked else reading
    return False, f"{shown} is {_relative(candidates[0], sol.value)}.", attempt


def _family(symbol: str) -> str:
    return "binary" if "i" in units.lookup_unit(symbol).symbol else "decimal"


def _expects(card: Card, sol: Solution) -> str:
    from deck.answers.examples import answer_hint

    return answer_hint(card, sol.dim)


def _check_formula(card: Card, instance: Instance, sol: Solution, given: str) -> Outcome:
    from deck.formula import FormulaError, parse, resolve_names
    from deck.formula.equivalence import equivalent

    a = card.answer
    assert a is not None and a.formula is not None
    expected = parse(a.formula)
    names = [v.name for v in card.variables]
    formula, unit = _unit_set_aside(given, names)
    try:
        typed = resolve_names(parse(formula), names)
    except FormulaError as exc:
        raise _Unreadable(f"{exc}.") from None
    outcome = equivalent(expected, typed, card.variables, seed=instance.seed)
    attempt = Attempt(card, instance, sol, given, expr=typed, equivalence=outcome)
    aside = f" (the unit {unit} set aside: a formula gives the number)" if unit else ""
    if outcome.equal:
        if str(typed) == str(expected):
            return True, f"{formula}; the unit {unit} set aside." if unit else "", attempt
        return True, f"the same function as {expected}, as it is usually written{aside}.", attempt
    return False, f"{formula} is a different function: {outcome.reason}{aside}.", attempt


def _unit_set_aside(given: str, names: list[str]) -> tuple[str, str]:
    """``"(N-1)/N*S bytes"`` → ``("(N-1)/N*S", "bytes")``: a unit word after a formula is
    what the number is in, not a variable (it was "unknown variable 'bytes'"). A word that is
    one of the card's variables stays in the formula."""
    head, _, last = given.rstrip().rpartition(" ")
    if head.strip() and last not in names and units.is_unit(last):
        return head.rstrip(), last
    return given, ""


def _check_choice(card: Card, instance: Instance, sol: Solution, given: str) -> Outcome:
    order = instance.option_order or tuple(range(len(card.options)))
    texts = [render_text(card.options[i], instance).strip().lower() for i in order]
    picked: set[int] = set()
    last = chr(ord("a") + len(order) - 1)
    if given.strip().lower() in texts:
        picked.add(order[texts.index(given.strip().lower())])
    else:
        for token in re.split(r"[\s,;/&]+|\band\b", given.strip().lower()):
            token = token.strip(").")
            if not token:
                continue
            if len(token) == 1 and "a" <= token <= "z":
                pos = ord(token) - ord("a")
            elif token.isascii() and token.isdigit():
                pos = int(token) - 1
            else:
                raise _Unreadable(f"{token[:20]!r} is not an option letter (a–{last}).")
            if not 0 <= pos < len(order):
                raise _Unreadable(f"there is no option {token!r} (the options are a–{last}).")
            picked.add(order[pos])
    attempt = Attempt(card, instance, sol, given, picked=frozenset(picked))
    want = set(card.correct)
    if picked == want:
        return True, "", attempt
    if picked < want:
        return False, f"{len(want - picked)} more option(s) are correct.", attempt
    return False, "", attempt
