"""Export formats, one module each, gathered here.

* :mod:`deck.interchange.export.markdown`: one GitHub-flavoured Markdown document (answers folded);
* :mod:`deck.interchange.export.obsidian`: notes in the Obsidian spaced-repetition plugin's syntax;
* :mod:`deck.interchange.export.anki`: an Anki package (``.apkg``), written by :mod:`deck.interchange.export.apkg`.

Output is deterministic: the same cards and seed give byte-identical text (an Anki
package differs only in its timestamps). Parametric cards show a worked instance drawn
with the seed and solved by their executable; verify claims are listed as checked facts.
"""

from __future__ import annotations

import enum

from deck.interchange.export.common import by_deck, filter_deck
from deck.interchange.export.markdown import card_markdown, export_markdown
from deck.interchange.export.obsidian import export_obsidian, export_obsidian_note

__all__ = [
    "ExportFormat",
    "by_deck",
    "card_markdown",
    "export_markdown",
    "export_obsidian",
    "export_obsidian_note",
    "filter_deck",
]


class ExportFormat(enum.Enum):
    MARKDOWN = "markdown"
    OBSIDIAN = "obsidian"
    APKG = "apkg"
