"""``{name}`` placeholders in card text: finding them and filling them.

A placeholder is ``{identifier}`` or ``{identifier.identifier}``. ``{{`` and ``}}``
are literal braces. A brace group right after a letter, ``}``, ``^``, ``_`` or ``\\``
is LaTeX (``\\frac{1}{N}``, ``x^{N}``, ``\\text{GiB}``), never a placeholder.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

_NAME = r"[A-Za-z_\u0370-\u03ff][\w\u0370-\u03ff]*"
PLACEHOLDER = re.compile(r"(?<![A-Za-z}^_\\{])\{(" + _NAME + r"(?:\." + _NAME + r")?)\}(?!\})")


def name_part(value: str) -> str:
    """A text parameter's value as part of a name in a formula: ``h100-80gb`` → ``h100_80gb``,
    so ``{gpu}_reported`` reads the constant ``h100_80gb_reported``."""
    return re.sub(r"\W", "_", value.strip())


def placeholders(text: str) -> list[str]:
    """Names of the placeholders in ``text``, in order, without duplicates."""
    if "{" not in text:
        return []
    stripped = text.replace("{{", "  ").replace("}}", "  ")
    return list(dict.fromkeys(m.group(1) for m in PLACEHOLDER.finditer(stripped)))


def fill(text: str, values: Mapping[str, str] | Callable[[str], str | None]) -> str:
    """Replace each placeholder by its value (names without a value are left as written)."""
    if "{" not in text and "}}" not in text:
        return text
    lookup = values if callable(values) else values.get
    out: list[str] = []
    i = 0
    for m in PLACEHOLDER.finditer(text.replace("{{", "\0\0").replace("}}", "\1\1")):
        value = lookup(m.group(1))
        if value is None:
            continue
        out.append(text[i : m.start()])
        out.append(value)
        i = m.end()
    out.append(text[i:])
    return "".join(out).replace("{{", "{").replace("}}", "}")
