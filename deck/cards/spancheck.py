"""Load-time validation of the spans in a card's text: syntax, names and formats.

The loader calls :func:`span_problems` for every text field with the names the field may
use; each problem comes back with its offset in the text so the loader can report it at
its own line and column. Whether a checked figure is *true* is decided later, by running
the card (:mod:`deck.proving.proofs`); here we only make sure it can be decided.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

from deck.cards.spans import SpanKind, find_spans

_DOTTED = re.compile(r"\b(result)\.([A-Za-z_][\w]*)")
# "{name|GiB}": a placeholder with a format, which only a rendered span takes.
_FORMATTED_PLACEHOLDER = re.compile(
    r"(?<![A-Za-z}^_\\{])\{([A-Za-z_\u0370-\u03ff][\w.]*)\|([^{}\n]*)\}"
)


def expr_names(expr: str) -> set[str]:
    """The names a span expression reads (``result.X`` kept whole); FormulaError if malformed."""
    from deck.formula import parse

    parsed = parse(dotted_to_flat(expr))
    return {flat_to_dotted(v) for v in parsed.variables}


def dotted_to_flat(expr: str) -> str:
    """``result.x`` → ``result__x``: the formula language has no dotted names."""
    return _DOTTED.sub(r"\1__\2", expr)


def flat_to_dotted(name: str) -> str:
    return name.replace("result__", "result.", 1) if name.startswith("result__") else name


def span_problems(text: str, names: Collection[str]) -> Iterator[tuple[int, str]]:
    """(offset, message) for every span of ``text`` that is malformed or names an unknown value."""
    from deck.formula import FormulaError

    spans, errors = find_spans(text)
    yield from errors
    for m in _FORMATTED_PLACEHOLDER.finditer(text):
        yield m.start(), f"{m.group()} is not a span: did you mean {{={m.group(1)}|{m.group(2)}}}?"
    for span in spans:
        if span.kind is SpanKind.RENDER:
            if span.ref not in names:
                yield span.start, _unknown(span.ref, names)
            continue
        try:
            used = expr_names(span.expr)
        except FormulaError as exc:
            yield span.start, f"{{~{span.literal}=…}}: bad expression {span.expr!r}: {exc}"
            continue
        for name in sorted(used - set(names)):
            yield span.start, _unknown(name, names)
        if not span.literal.strip():
            yield span.start, "a checked span needs the figure it shows before '='"


def _unknown(name: str, names: Collection[str]) -> str:
    from deck.cards.registry import suggest

    return f"{{{name}}}: no parameter, fact or constant of that name{suggest(name, list(names))}"
