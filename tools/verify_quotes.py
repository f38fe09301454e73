"""Hold the data files' quotes of NCCL's source to the source itself, at the tag they name.

``quizcoll check`` holds every figure to its ``quote`` (a cell of a table by position); this
holds each quote to the lines of NVIDIA/nccl it says it copies: for every record or table
whose ``source`` reads ``NVIDIA/nccl vX.Y.Z-N path:LINES``, each line of the quote must be
part of those lines at that tag. It needs a clone of NVIDIA/nccl (no network at test
time, so it is a maintainer's tool, not a test):

    git clone https://github.com/NVIDIA/nccl /tmp/nccl
    python tools/verify_quotes.py /tmp/nccl

It prints one line per mismatch and a count, and exits 1 if any quote is not in its source.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
_CITE = re.compile(r"NVIDIA/nccl (v\d+\.\d+\.\d+-\d+) (src/\S+?):([\d,\-]+)")


def _lines(spec: str) -> list[int]:
    out: list[int] = []
    for part in spec.split(","):
        first, _, last = part.partition("-")
        out += range(int(first), int(last or first) + 1)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("nccl", type=Path, help="a clone of NVIDIA/nccl with its tags")
    args = parser.parse_args(argv)
    sources: dict[tuple[str, str], list[str]] = {}

    def source(tag: str, path: str) -> list[str]:
        if (tag, path) not in sources:
            shown = subprocess.run(
                ["git", "-C", str(args.nccl), "show", f"{tag}:{path}"],
                capture_output=True,
                text=True,
            )
            if shown.returncode != 0:
                raise SystemExit(
                    f"{args.nccl}: cannot read {path} at {tag}: {shown.stderr.strip()}"
                )
            sources[tag, path] = shown.stdout.split("\n")
        return sources[tag, path]

    checked = bad = 0
    for data in sorted((ROOT / "quizcoll" / "data").glob("*.yaml")):
        doc = yaml.safe_load(data.read_text("utf-8")) or {}
        for record in (doc.get("figures") or []) + (doc.get("tables") or []):
            cite, quote = _CITE.search(str(record.get("source", ""))), record.get("quote")
            if cite is None or not quote:
                continue
            tag, path, spec = cite.groups()
            text = source(tag, path)
            cited = "\n".join(text[i - 1].strip() for i in _lines(spec) if 0 < i <= len(text))
            checked += 1
            missing = [q for q in str(quote).split("\n") if q.strip() not in cited]
            if missing:
                bad += 1
                print(
                    f"{data.name}: {record['name']}: not in {path}:{spec} at {tag}: {missing[0]!r}"
                )
    print(f"{checked} quote(s) of NVIDIA/nccl checked against the source; {bad} not found")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
