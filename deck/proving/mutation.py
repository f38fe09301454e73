"""Mutation testing of a deck: does ``check`` catch a card that states something wrong?

A reviewer who edits one number at a time is simulated: each :class:`Mutation` is one
small edit of a card file's text — a number doubled, halved, nudged by +5% or −8%, ``N−1``
made ``N``, the all-reduce factor ``2(N−1)/N`` swapped with ``(N−1)/N``, GB swapped with
GiB, another option marked correct (in a list of correct options too: one dropped, one
added, one swapped), an argument of a computation changed (``ring`` → ``tree``, ``fp32`` →
``fp16``), a tolerance widened ×10, a claim's sweep narrowed — and the mutated card is
loaded and checked on its own. A mutation is *caught* when the card no longer loads or
``check`` fails it.

The headline score counts the edits of what a learner reads (question, back, hint,
options, which options are correct, a claim's sentence, a formula card's answer):
:attr:`MutationReport.visible_percent`. Edits of the proofs' own ``expect``/``args`` are
counted apart: catching them shows the proof's two sides still disagree, not that what the
card teaches is right. A mutation is set aside as *equivalent* only when nothing a learner
sees, nothing ``check`` computes and no ``expect`` or tolerance changed.

Edits are made to the source text, found through the YAML node marks, so a mutation is
exactly what a person could type. Not mutated, because the result is still a true card:
parameter draws (the givens), the figure of a distractor (``{~8 B!=x}`` stays wrong), and
the format of a rendered span (``{=x|GB}`` → ``GiB``). Nor, in the text a learner reads,
what the unproven-number scan exempts as no claim: the digits of names (``ZeRO-3``,
``Llama-2-7B``), code, citations, references, list numbers.
"""

from __future__ import annotations

import enum
import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from deck.base.errors import DeckError
from deck.cards.loader import load_text
from deck.cards.model import Card, Collection
from deck.cards.prose import exempt_positions
from deck.cards.registry import Registry
from deck.cards.yamlsource import read_text
from deck.proving.verify import run_checks

try:
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

TEXT_KEYS = ("front", "back", "hint", "claim")
VALUE_KEYS = ("expect", "formula", "value", "expr")


@dataclass(frozen=True)
class Mutation:
    """One edit of a card file: replace ``before`` at ``start`` with ``after``."""

    path: str
    card_id: str
    kind: str
    line: int
    start: int
    end: int
    before: str
    after: str
    visible: bool = False  # an edit of what a learner reads (question, answer text, options)

    def apply(self, text: str) -> str:
        return text[: self.start] + self.after + text[self.end :]

    def describe(self) -> str:
        return f"{self.path}:{self.line}: {self.card_id}: {self.kind}: {self.before!r} → {self.after!r}"


@dataclass(frozen=True)
class MutationReport:
    """``total`` non-equivalent mutations, of which ``caught`` failed ``check``."""

    total: int
    caught: int
    survivors: tuple[Mutation, ...] = ()
    by_kind: dict[str, tuple[int, int]] = field(default_factory=dict)  # kind → (caught, total)
    equivalent: tuple[Mutation, ...] = ()
    visible_total: int = 0  # the headline: edits of what a learner reads
    visible_caught: int = 0

    @property
    def score(self) -> float:
        return self.caught / self.total if self.total else 1.0

    @property
    def percent(self) -> str:
        """The score as a percentage to two decimals, rounded down: 12,740 of 12,746 reads
        99.95%, never 100.0% while a mutation survives."""
        return _percent(self.caught, self.total)

    @property
    def visible_score(self) -> float:
        return self.visible_caught / self.visible_total if self.visible_total else 1.0

    @property
    def visible_percent(self) -> str:
        """The headline score: of the edits to what a learner reads, the share caught."""
        return _percent(self.visible_caught, self.visible_total)


def _percent(caught: int, total: int) -> str:
    hundredths = caught * 10_000 // total if total else 10_000
    return f"{hundredths // 100}.{hundredths % 100:02d}%"


# ----------------------------------------------------------------------------- finding edits

_NUMBER = re.compile(r"(?<![\w.])(\d+(?:,\d{3})*(?:\.\d+)?)(?![\w])")
_MINUS_ONE = re.compile(r"([A-Za-z\u0370-\u03ff])\s*[−-]\s*1(?![\d.])")
_TWO_FACTOR = re.compile(r"(?<![\w.)])2\s*[*·×]?\s*\(([A-Za-z\u0370-\u03ff])\s*[−-]\s*1\)")
_ONE_FACTOR = re.compile(r"(?<![\w.)*·×])\(([A-Za-z\u0370-\u03ff])\s*[−-]\s*1\)\s*/")
# A byte unit after a number ("3.73 GiB", "16MiB"): a unit word in prose is not a quantity.
_BYTE_UNIT = re.compile(r"(?<=\d)(\s?)([KMGTP])(i?)B(?![A-Za-z])")
_DISTRACTOR = re.compile(r"\{~[^{}\n]*!=[^{}\n]*\}")
_RENDER_FORMAT = re.compile(r"\{=[^{}|\n]*\|[^{}\n]*\}")


def _protected(text: str) -> list[tuple[int, int]]:
    """Stretches of a value that must not be mutated (distractors, rendered-span formats)."""
    spans = [m.span() for m in _DISTRACTOR.finditer(text)]
    spans += [(m.start() + m.group().index("|"), m.end()) for m in _RENDER_FORMAT.finditer(text)]
    return spans


def _free(pos: int, protected: Sequence[tuple[int, int]]) -> bool:
    return not any(a <= pos < b for a, b in protected)


# ×2 and ÷2 are coarse (any tolerance catches them); a 5–10% nudge is what a typo or a
# GB/GiB slip looks like, and it tests the tolerances.
_NUMBER_EDITS = (("number ×2", 2.0), ("number ÷2", 0.5), ("number +5%", 1.05), ("number −8%", 0.92))


def _format_number(value: float, like: str) -> str:
    if value.is_integer() and "." not in like:
        return f"{int(value):,}" if "," in like else str(int(value))
    decimals = len(like.split(".")[1]) if "." in like else 1
    return f"{value:.{max(decimals, 1)}f}"


def text_edits(
    text: str, prose: bool = False, terms: Iterable[str] = ()
) -> Iterator[tuple[str, int, int, str]]:
    """(kind, start, end, replacement) for every single edit of a value's source text.

    In ``prose`` (what a learner reads) the digits the unproven-number scan exempts are left
    alone — ``ZeRO-3``, ``Llama-2-7B``, citations, code — as they state no quantity."""
    protected = _protected(text)
    exempt = exempt_positions(text, terms) if prose else frozenset()
    for m in _NUMBER.finditer(text):
        if not _free(m.start(), protected) or m.start(1) in exempt:
            continue
        value = float(m.group(1).replace(",", ""))
        if value == 0:
            continue
        for kind, factor in _NUMBER_EDITS:
            after = _format_number(value * factor, m.group(1))
            if after != m.group(1):  # a nudge that rounds back to the same text is no edit
                yield kind, m.start(1), m.end(1), after
    for m in _MINUS_ONE.finditer(text):
        if _free(m.start(), protected) and m.end() - 1 not in exempt:
            yield "N−1 → N", m.start(), m.end(), m.group(1)
    for m in _TWO_FACTOR.finditer(text):
        if _free(m.start(), protected):
            yield "2(N−1)/N → (N−1)/N", m.start(), m.end(), m.group()[m.group().index("(") :]
    for m in _ONE_FACTOR.finditer(text):
        if _free(m.start(), protected):
            yield "(N−1)/N → 2(N−1)/N", m.start(), m.start(), "2"
    for m in _BYTE_UNIT.finditer(text):
        if _free(m.start(), protected) and m.start() not in exempt:
            swapped = f"{m.group(1)}{m.group(2)}{'' if m.group(3) else 'i'}B"
            yield "GB ↔ GiB", m.start(), m.end(), swapped


def _scalar_edits(
    node: yaml.Node, source: str, prose: bool = False, terms: Iterable[str] = ()
) -> Iterator[tuple[str, int, int, str]]:
    if not isinstance(node, yaml.ScalarNode):
        return
    start, end = node.start_mark.index, node.end_mark.index
    for kind, a, b, new in text_edits(source[start:end], prose, terms):
        yield kind, start + a, start + b, new


def _mapping(node: yaml.Node) -> dict[str, yaml.Node]:
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}


def card_mutations(
    card: yaml.MappingNode, source: str, path: str, registry: Registry | None
) -> Iterator[Mutation]:
    """Every mutation of one card's mapping node."""
    keys = _mapping(card)
    id_node = keys.get("id")
    card_id = id_node.value if isinstance(id_node, yaml.ScalarNode) else "?"

    def emit(kind: str, start: int, end: int, after: str) -> Mutation:
        line = source.count("\n", 0, start) + 1
        return Mutation(path, card_id, kind, line, start, end, source[start:end], after)

    def shown(kind: str, start: int, end: int, after: str) -> Mutation:
        return replace(emit(kind, start, end, after), visible=True)

    terms = registry.terms if registry is not None else frozenset()
    for key in TEXT_KEYS:
        if key in keys:
            for edit in _scalar_edits(keys[key], source, True, terms):
                yield shown(*edit)
    options = keys.get("options")
    if isinstance(options, yaml.SequenceNode):
        for item in options.value:
            for edit in _scalar_edits(item, source, True, terms):
                yield shown(*edit)
        yield from _correct_mutations(keys.get("correct"), len(options.value), shown)
    answer = keys.get("answer")
    if isinstance(answer, yaml.ScalarNode):  # a formula card's answer: its formula
        for edit in _scalar_edits(answer, source):
            yield shown(*edit)
    yield from _computation_mutations(_mapping(answer), source, emit, registry)
    verify = keys.get("verify")
    if isinstance(verify, yaml.SequenceNode):
        for claim in verify.value:
            yield from _computation_mutations(_mapping(claim), source, emit, registry)
            yield from _sweep_mutations(_mapping(claim).get("where"), source, emit)
            for key in ("claim",):
                if key in _mapping(claim):
                    for edit in _scalar_edits(_mapping(claim)[key], source, True, terms):
                        yield shown(*edit)


def _correct_mutations(
    correct: yaml.Node | None, n: int, emit: Callable[[str, int, int, str], Mutation]
) -> Iterator[Mutation]:
    """Another option marked correct: the next index, or for a list one index dropped, one
    added and one swapped for the next."""
    if n < 2 or correct is None:
        return
    if isinstance(correct, yaml.ScalarNode) and correct.value.isdigit():
        yield emit(
            "another option marked correct", *_span(correct), str((int(correct.value) + 1) % n)
        )
        return
    if not isinstance(correct, yaml.SequenceNode):
        return
    items = [c.value for c in correct.value if isinstance(c, yaml.ScalarNode)]
    if not items or not all(v.isdigit() for v in items) or len(items) != len(correct.value):
        return
    chosen = [int(v) for v in items]
    start, end = _span(correct)
    variants: list[tuple[str, list[int]]] = []
    if len(chosen) > 1:
        variants.append(("a correct option dropped", chosen[1:]))
    missing = [i for i in range(n) if i not in chosen]
    if missing:
        variants.append(("another option marked correct", sorted([*chosen, missing[0]])))
        variants.append(("a correct option swapped", sorted([*chosen[:-1], missing[-1]])))
    for kind, new in variants:
        yield emit(kind, start, end, "[" + ", ".join(map(str, new)) + "]")


def _sweep_mutations(
    where: yaml.Node | None, source: str, emit: Callable[[str, int, int, str], Mutation]
) -> Iterator[Mutation]:
    """A narrower sweep: a list of values loses its last, a range its top."""
    for name, node in _mapping(where or yaml.MappingNode("", [])).items():
        if isinstance(node, yaml.SequenceNode) and len(node.value) > 1:
            last = node.value[-1]
            cut = node.value[-2].end_mark.index
            yield emit(f"sweep {name} narrowed", cut, last.end_mark.index, "")
        elif isinstance(node, yaml.MappingNode):
            top = _mapping(node).get("max")
            low = _mapping(node).get("min")
            if isinstance(top, yaml.ScalarNode) and isinstance(low, yaml.ScalarNode):
                try:
                    hi, lo = int(top.value), int(low.value)
                except ValueError:
                    continue
                if hi - lo >= 2:
                    yield emit(f"sweep {name} narrowed", *_span(top), str(lo + (hi - lo) // 2))


def _span(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.index, node.end_mark.index


def _computation_mutations(
    keys: dict[str, yaml.Node],
    source: str,
    emit: Callable[[str, int, int, str], Mutation],
    registry: Registry | None,
) -> Iterator[Mutation]:
    for key in VALUE_KEYS:
        if key in keys:
            for edit in _scalar_edits(keys[key], source):
                yield emit(*edit)
    tolerance = keys.get("tolerance")
    if isinstance(tolerance, yaml.ScalarNode):
        m = re.fullmatch(r"\s*([\d.]+(?:[eE][-+]?\d+)?)\s*(%?)\s*", tolerance.value)
        if m is not None and float(m.group(1)) > 0:
            wider = _format_number(float(m.group(1)) * 10, m.group(1))
            yield emit("tolerance widened ×10", *_span(tolerance), f"{wider}{m.group(2)}")
    args = _mapping(keys.get("args", yaml.MappingNode("", [])))
    run = keys.get("run")
    ex = None
    if registry is not None and isinstance(run, yaml.ScalarNode) and run.value in registry:
        ex = registry.get(run.value)
    for name, node in args.items():
        if not isinstance(node, yaml.ScalarNode) or "{" in node.value or "=" in node.value:
            continue
        decl = ex.param(name) if ex is not None else None
        if decl is not None and decl.choices and node.value in decl.choices:
            others = [c for c in decl.choices if c != node.value]
            # The neighbour in the declared list: a deterministic, plausible confusion.
            pick = others[decl.choices.index(node.value) % len(others)]
            yield emit(f"argument {name} changed", *_span(node), pick)
            continue
        for edit in _scalar_edits(node, source):
            yield emit(f"argument {name}: {edit[0]}", edit[1], edit[2], edit[3])


class MutationError(DeckError):
    """A card file that cannot be mutated: unreadable (a FIFO, too large, not UTF-8) or not YAML."""


def _source(path: Path) -> tuple[str, yaml.Node]:
    """A card file's text (read like the loader reads it: a regular file, capped) and nodes."""
    text, problem = read_text(path, str(path))
    if problem is not None:
        raise MutationError(problem.format())
    try:
        return text or "", yaml.compose(text or "", Loader=_Loader)
    except (yaml.YAMLError, RecursionError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise MutationError(
            f"{path}: not YAML that can be mutated ({first}); `quizcoll check {path}` says why"
        ) from None


def file_mutations(path: Path, registry: Registry | None, display: str = "") -> list[Mutation]:
    """Every mutation of every card in one file."""
    source, root = _source(path)
    cards = _mapping(root).get("cards")
    if not isinstance(cards, yaml.SequenceNode):
        return []
    out: list[Mutation] = []
    for card in cards.value:
        if isinstance(card, yaml.MappingNode):
            out.extend(card_mutations(card, source, display or str(path), registry))
    return out


# ----------------------------------------------------------------------------- judging


def _card_region(source: str, mutation: Mutation, root: yaml.Node) -> tuple[str, str]:
    """The file header and the text of the card a mutation falls in (mutated)."""
    cards = _mapping(root)["cards"]
    assert isinstance(cards, yaml.SequenceNode)
    for node in cards.value:
        start, end = node.start_mark.index, node.end_mark.index
        if start <= mutation.start < end or (
            start <= mutation.start <= end and mutation.start == mutation.end
        ):
            line_start = source.rfind("\n", 0, start) + 1
            region = source[line_start:end]
            offset = line_start
            mutated = (
                region[: mutation.start - offset] + mutation.after + region[mutation.end - offset :]
            )
            key = next(
                k for k, _ in root.value if isinstance(k, yaml.ScalarNode) and k.value == "cards"
            )
            header = source[: source.rfind("\n", 0, key.start_mark.index) + 1]
            return header, mutated
    raise ValueError(f"mutation outside any card: {mutation.describe()}")


def _load_one(header: str, region: str, path: str, registry: Registry | None) -> Card | None:
    cards, problems = load_text(header + "cards:\n" + region, path, registry)
    return None if problems or len(cards) != 1 else cards[0]


def fingerprint(card: Card, registry: Registry | None, seeds: int) -> tuple[object, ...]:
    """Everything a learner sees and ``check`` computes for ``card``: rendered texts, the
    answer, every fact and every claim's run at every sweep point. Two cards with the same
    fingerprint teach the same thing: a mutation that keeps it is equivalent."""
    from deck.answers.checking import solve
    from deck.base.errors import DeckError
    from deck.cards.instances import draw, render_text, sweep

    out: list[object] = []
    for seed in range(seeds if card.params else 1):
        try:
            inst = draw(card, seed, registry, all_facts=True)
            sol = solve(card, inst, registry)
        except DeckError as exc:
            out.append(str(exc))
            continue
        out += [render_text(t, inst) for _, t in card.texts()]
        out += [sol.text, sol.back, sorted((k, repr(v.value)) for k, v in inst.facts.items())]
    # The proofs' own closed forms: an edit of an expect that check misses is a survivor
    # (a wrong formula that still passes), never set aside as equivalent.
    out += [(claim.expect, claim.tolerance) for claim in card.verify]
    if card.answer is not None:
        out.append((card.answer.expect, card.answer.expect_tolerance))
    for claim in card.verify:
        if not claim.where or claim.computation is None or registry is None:
            continue
        from deck.cards.facts import resolve_value

        for values, shown in sweep(claim.where):
            try:
                args = {k: resolve_value(v, values, shown) for k, v in claim.computation.args}
                out.append(
                    repr(registry.call(claim.computation.run, args)[claim.computation.field])
                )
            except DeckError as exc:
                out.append(str(exc))
    return tuple(out)


class Outcome(enum.Enum):
    CAUGHT = "caught"
    SURVIVED = "survived"
    EQUIVALENT = "equivalent"  # changes nothing a learner sees or check computes


def judge(
    mutation: Mutation, source: str, root: yaml.Node, registry: Registry | None, seeds: int = 3
) -> Outcome:
    """Whether ``check`` fails the mutated card (or it no longer loads)."""
    header, region = _card_region(source, mutation, root)
    card = _load_one(header, region, mutation.path, registry)
    if card is None:
        return Outcome.CAUGHT
    report = run_checks(Collection((card,)), registry, seeds=seeds)
    if not report.ok:
        return Outcome.CAUGHT
    _, original_region = _card_region(source, replace(mutation, after=mutation.before), root)
    original = _load_one(header, original_region, mutation.path, registry)
    if original is not None and fingerprint(original, registry, seeds) == fingerprint(
        card, registry, seeds
    ):
        return Outcome.EQUIVALENT
    return Outcome.SURVIVED


def run_mutations(
    files: Sequence[Path],
    registry: Registry | None,
    *,
    sample: int | None = None,
    seed: int = 0,
    seeds: int = 3,
    on_mutation: Callable[[int, int], object] | None = None,
) -> MutationReport:
    """Apply every mutation (or a seeded ``sample`` of them) and count what ``check`` catches."""
    all_mutations: list[tuple[Mutation, Path]] = []
    for path in files:
        all_mutations += [(m, path) for m in file_mutations(path, registry, str(path))]
    if sample is not None and sample < len(all_mutations):
        all_mutations = random.Random(seed).sample(all_mutations, sample)
    sources: dict[Path, tuple[str, yaml.Node]] = {}
    survivors: list[Mutation] = []
    equivalent: list[Mutation] = []
    by_kind: dict[str, list[int]] = {}
    visible = [0, 0]  # caught, total of the edits a learner reads
    for i, (mutation, path) in enumerate(all_mutations):
        if on_mutation is not None:
            on_mutation(i, len(all_mutations))
        if path not in sources:
            sources[path] = _source(path)
        source, root = sources[path]
        outcome = judge(mutation, source, root, registry, seeds)
        if outcome is Outcome.EQUIVALENT:
            equivalent.append(mutation)
            continue
        counts = by_kind.setdefault(mutation.kind.split(":")[0], [0, 0])
        counts[1] += 1
        visible[1] += mutation.visible
        if outcome is Outcome.CAUGHT:
            counts[0] += 1
            visible[0] += mutation.visible
        else:
            survivors.append(mutation)
    total = len(all_mutations) - len(equivalent)
    return MutationReport(
        total,
        total - len(survivors),
        tuple(survivors),
        {k: (v[0], v[1]) for k, v in sorted(by_kind.items())},
        tuple(equivalent),
        visible_total=visible[1],
        visible_caught=visible[0],
    )
