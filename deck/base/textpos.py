"""Where a character of a YAML text value stands in its file.

A problem inside a card's text (an unproven number in ``back``, a span that does not
check) is reported at its own line and column, not at the start of the field. The loader
records a :class:`TextOrigin` for each text value — where the value starts and how it is
written (a ``|``/``>`` block with its indentation, or a flow scalar) — and
:meth:`TextOrigin.locate` maps an offset in the value back to the file.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TextOrigin:
    """How a text value was written: its first line and column (1-based) and its style."""

    line: int
    col: int
    block: bool = False  # a ``|`` or ``>`` block scalar: content starts on the next line
    indent: int = 0  # block content indentation (spaces)
    quoted: bool = False  # a flow scalar in ' or " quotes: the value starts one column later

    def locate(self, value: str, offset: int) -> tuple[int, int]:
        """The (line, column) in the file of ``value[offset]``."""
        offset = max(0, min(offset, len(value)))
        line_in_value = value.count("\n", 0, offset)
        col_in_line = offset - (value.rfind("\n", 0, offset) + 1)
        if self.block:
            return self.line + 1 + line_in_value, self.indent + col_in_line + 1
        if line_in_value == 0:
            return self.line, self.col + col_in_line + (1 if self.quoted else 0)
        return self.line + line_in_value, col_in_line + 1


def origin_at(source: str, index: int, line: int, col: int) -> TextOrigin:
    """The origin of a value whose YAML node starts at ``source[index]`` (``line``/``col``
    1-based, as the parser reports them)."""
    head = source[index : index + 1]
    if head in ("|", ">"):
        nl = source.find("\n", index)
        if nl < 0:
            return TextOrigin(line, col, block=True)
        # The indentation of the first non-blank content line.
        pos = nl + 1
        while True:
            end = source.find("\n", pos)
            end = len(source) if end < 0 else end
            content = source[pos:end]
            if content.strip():
                indent = len(content) - len(content.lstrip(" "))
                return TextOrigin(line, col, block=True, indent=indent)
            if end >= len(source):
                return TextOrigin(line, col, block=True)
            pos = end + 1  # leading blank lines are part of the value (its first newlines)
    return TextOrigin(line, col, quoted=head in ("'", '"'))
