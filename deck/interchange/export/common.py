"""What every export format shares: one card instance rendered to text, checked facts with
their sweeps spelled out, cross-references between cards, and cards grouped by deck.

Rendering goes through :mod:`deck.cards.instances` and :mod:`deck.answers.checking` (``render_text``,
``solve``), the same functions the review uses, so an export shows exactly what a review
would: the same drawn values, the same computed answer, the same worked solution.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from deck.answers.checking import CheckError, solve
from deck.cards.facts import Value
from deck.cards.instances import (
    draw,
    render_front,
    render_options,
    render_spans,
    render_text,
    show_value,
)
from deck.cards.model import Card, CardType, Claim, ParamSpec
from deck.cards.placeholders import placeholders
from deck.cards.registry import Registry
from deck.formula import FormulaError
from deck.formula.latex import formula_latex
from deck.units import format_number


@dataclass(frozen=True)
class RenderedCard:
    """One instance of a card as text (Markdown), ready for any export format."""

    card: Card
    seed: int
    question: str
    options: tuple[str, ...]
    answer: str  # the short exact answer ("13.04 GiB (14.00 GB)", "2*(N - 1)/N*S")
    latex: str  # a formula answer as LaTeX math, else ""
    solution: str  # the worked answer: the card's back and the executable's explanation
    hint: str
    failed: bool = False  # the answer could not be computed (the solution says why)
    env: Mapping[str, Value] = field(default_factory=dict)  # the instance's facts, for claims

    def claims(self) -> list[str]:
        """The card's checked claims as sentences (named facts without a sentence left out)."""
        return [claim_text(c, self.env) for c in self.card.verify if c.text]


def render_card(card: Card, seed: int, registry: Registry | None) -> RenderedCard:
    """The instance of ``card`` drawn with ``seed``, solved by its executable."""
    inst = draw(card, seed, registry)
    question = render_front(card, inst).strip()
    options = tuple(render_options(card, inst)) if card.type is CardType.CHOICE else ()
    hint = render_text(card.hint, inst).strip() if card.hint else ""
    try:
        sol = solve(card, inst, registry)
    except CheckError as exc:
        return RenderedCard(
            card,
            seed,
            question,
            options,
            "",
            "",
            f"*(could not compute: {exc})*",
            hint,
            True,
            inst.facts,
        )
    latex = ""
    if card.type is CardType.FORMULA and sol.formula:
        try:
            latex = formula_latex(sol.formula)
        except FormulaError:  # the loader parsed it already; never expected
            latex = ""
    return RenderedCard(
        card, seed, question, options, sol.text, latex, sol.markdown().strip(), hint, env=inst.facts
    )


def option_letter(index: int) -> str:
    return chr(ord("a") + index)


def by_deck(cards: Sequence[Card]) -> dict[str, list[Card]]:
    """Cards grouped by deck, decks sorted by name, cards in their given order."""
    decks: dict[str, list[Card]] = {}
    for card in cards:
        decks.setdefault(card.deck, []).append(card)
    return {d: decks[d] for d in sorted(decks)}


def filter_deck(cards: Iterable[Card], deck: str | None) -> list[Card]:
    return [c for c in cards if deck is None or c.deck == deck]


# ----------------------------------------------------------------------------- claims


def _shown(raw: object) -> str:
    if isinstance(raw, str):
        return raw
    assert isinstance(raw, int | float)
    return format_number(raw)


def sweep_values(spec: ParamSpec) -> str:
    """The values a claim is checked at: ``∈ {1,024, 4,096} tokens``, ``= 2 … 16``."""
    unit = f" {spec.unit}" if spec.unit else ""
    if spec.choices is not None:
        values = [_shown(c) for c in spec.choices]
        if len(values) == 1:
            one = spec.choices[0]
            return f"= {show_value(one, spec.unit) if spec.unit else values[0]}"
        return f"∈ {{{', '.join(values)}}}{unit}"
    if spec.range is not None:
        lo, hi = (format_number(v) for v in spec.range)
        how = ""
        if spec.pow2:
            how = ", powers of 2"
        elif spec.step is not None:
            how = f", in steps of {format_number(spec.step)}"
        return f"= {lo} … {hi}{unit}{how}"
    return f"= {spec.formula}" if spec.formula else ""


def claim_text(claim: Claim, env: Mapping[str, Value] | None = None) -> str:
    """A claim as a sentence with its sweep filled in, never a raw ``{placeholder}``.

    ``at T = {T}`` reads ``at T ∈ {1,024, 4,096}``; a placeholder used elsewhere
    (``weights of {b}B``) becomes the variable's name in italics, and its values follow
    in ``(for b ∈ {7, 13, 65})``.
    """
    specs = {p.name: p for p in claim.where}
    # Checked figures read as written; facts and constants as their values when known.
    text = render_spans(claim.text, env or {})
    inline: set[str] = set()
    for name in placeholders(text):
        spec = specs.get(name)
        if spec is None:
            continue
        # "T = {T}" or "Ψ = {p}" defines the variable: the values go right there.
        defined = re.compile(r"(?<!\S)(" + re.escape(name) + r"|\w) = \{" + re.escape(name) + r"\}")
        if defined.search(text):
            text = defined.sub(lambda m, s=spec: f"{m.group(1)} {sweep_values(s)}", text)
            inline.add(name)
        text = text.replace("{" + name + "}", f"*{name}*")
    rest = [f"{p.name} {sweep_values(p)}" for p in claim.where if p.name not in inline]
    return f"{text} (for {', '.join(rest)})" if rest else text


# ----------------------------------------------------------------------------- links

_CODE_ID = re.compile(r"(?<![`\[])`([a-z0-9]+(?:-[a-z0-9]+)*)`(?!`)")
_FENCE = re.compile(r"^(```|~~~)", re.MULTILINE)


def link_card_ids(text: str, href: Callable[[str], str | None]) -> str:
    """Backticked card ids (`` `gguf-bits-per-weight` ``) as Markdown links to the card.

    ``href(card_id)`` gives the link target, or None for a word that is not a card.
    Fenced code blocks are left alone.
    """
    if "`" not in text:
        return text

    def one(m: re.Match[str]) -> str:
        target = href(m.group(1))
        return f"[`{m.group(1)}`]({target})" if target else m.group(0)

    parts = _FENCE.split(text)
    out: list[str] = []
    inside = False
    i = 0
    while i < len(parts):
        part = parts[i]
        if part in ("```", "~~~"):
            inside = not inside
            out.append(part)
        else:
            out.append(part if inside else _CODE_ID.sub(one, part))
        i += 1
    return "".join(out)
