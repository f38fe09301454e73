"""Speed of the card-loading commands at 500 cards, against `quizcoll --help` in the same run.

The collection is the built-in cards plus copies under new ids in a temporary user card
folder (:mod:`extra_cards`), with a temporary cache folder. Each command runs in a fresh
interpreter; the figures are medians over ``--runs`` launches, after one warm-up launch of
each (which fills the compiled-collection cache and a byte-code cache, as any first run of
an installed package does). The issue's bar is
a ratio of at most 3 for `list`, `show`, `stats` and `grade`. ``--cold`` also times each
command with the cache turned off (QUIZCOLL_NO_CACHE=1), the cost of a first run.

    python bench/bench_cli_speed.py [--runs 5] [--cards 500] [--cold]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from extra_cards import write_extra_cards

COMMANDS = {
    "--help": ["--help"],
    "list": ["list"],
    "show": ["show", "ring-allreduce-bytes-per-rank", "--seed", "3"],
    "stats": ["stats"],
    "grade": ["grade", "weights-bytes-by-dtype", "--seed", "1", "--answer", "4 GB"],
}


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "quizcoll", *argv], env=env, capture_output=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):  # grade's wrong answer is 1; anything else is a fault
        raise SystemExit(f"quizcoll {' '.join(argv)}: rc {done.returncode}\n{done.stderr.decode()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cards", type=int, default=500)
    parser.add_argument("--cold", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "XDG_DATA_HOME": str(Path(tmp) / "data"),
            "XDG_CACHE_HOME": str(Path(tmp) / "cache"),
            "XDG_CONFIG_HOME": str(Path(tmp) / "config"),
            "QUIZCOLL_DB": str(Path(tmp) / "reviews.sqlite3"),
            # Byte code cached as an installed package has it (the warm-up fills it): with
            # PYTHONDONTWRITEBYTECODE=1 every launch would compile quizcoll from source
            # while the standard library and the dependencies load precompiled.
            "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache"),
        }
        env.pop("QUIZCOLL_NO_CACHE", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        extra = write_extra_cards(Path(tmp) / "data" / "quizcoll" / "cards", args.cards)
        from deck.review.store import Store

        Store.open(env["QUIZCOLL_DB"]).close()  # `stats` reads an existing database
        for argv in COMMANDS.values():
            timed(argv, env)  # warm-up: bytecode, file cache, the compiled collection
        times: dict[str, list[float]] = {name: [] for name in COMMANDS}
        for _ in range(args.runs):  # interleaved, so a load spike hits every command alike
            for name, argv in COMMANDS.items():
                times[name].append(timed(argv, env))
        cold: dict[str, float] = {}
        if args.cold:
            no_cache = {**env, "QUIZCOLL_NO_CACHE": "1"}
            for name, argv in COMMANDS.items():
                if name != "--help":
                    cold[name] = statistics.median(timed(argv, no_cache) for _ in range(args.runs))
    base = statistics.median(times["--help"])
    print(f"collection: built-in + {extra} copied cards; median of {args.runs} runs")
    print(f"quizcoll --help   {base * 1000:6.0f} ms")
    for name in list(COMMANDS)[1:]:
        t = statistics.median(times[name])
        line = f"quizcoll {name:<8} {t * 1000:6.0f} ms   ratio {t / base:4.2f} (bar 3.00)"
        if name in cold:
            line += f"   no cache {cold[name] * 1000:6.0f} ms ({cold[name] / base:4.2f})"
        print(line)


if __name__ == "__main__":
    main()
