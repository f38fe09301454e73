"""Extra cards for the benchmarks: copies of built-in cards under new ids, written to a
user card folder, so that a benchmark runs on a collection of a chosen size (500 cards)
that is as heavy per card as the real one (the same claims, parameters and executables)."""

from __future__ import annotations

import re
from pathlib import Path

BUILTIN = Path(__file__).resolve().parent.parent / "quizcoll" / "cards"
ID_LINE = re.compile(r"^(\s*- id:\s*)([a-z0-9-]+)\s*$", re.MULTILINE)


def builtin_count() -> int:
    return sum(len(ID_LINE.findall(p.read_text("utf-8"))) for p in BUILTIN.glob("*.yaml"))


def write_extra_cards(folder: Path, total: int = 500) -> int:
    """Write copies of built-in card files (ids suffixed ``-copyK``) into ``folder`` until the
    built-in and extra cards together number at least ``total``; returns the extra count."""
    folder.mkdir(parents=True, exist_ok=True)
    need = total - builtin_count()
    made, k = 0, 0
    while made < need:
        k += 1
        for path in sorted(BUILTIN.glob("*.yaml")):
            if made >= need:
                break
            text = path.read_text("utf-8")
            copied = ID_LINE.sub(rf"\g<1>\g<2>-copy{k}", text)
            (folder / f"{path.stem}-copy{k}.yaml").write_text(copied, "utf-8")
            made += len(ID_LINE.findall(text))
    return made
