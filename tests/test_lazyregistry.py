"""The lazy registry: with a remembered index, a card's executables come from their own
module only, and give what the whole registry gives; a missing, foreign or junk index is a
whole build; the index follows the code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from quizcoll import compiled, lazyregistry
from quizcoll.executables import build_indexed_registry, build_registry
from quizcoll.lazyregistry import LazyRegistry


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache" / "collections"
    monkeypatch.setattr(compiled, "cache_dir", lambda: folder)
    monkeypatch.delenv("QUIZCOLL_NO_CACHE", raising=False)
    return folder.parent / "registry"


def test_the_index_names_every_executable_once_and_every_detector_module() -> None:
    registry, modules, detecting = build_indexed_registry()
    assert sorted(modules) == sorted(registry.names())
    assert detecting  # the mistake detectors come from somewhere
    # Registering only the modules the index names for detectors gives every detector.
    from deck.cards.registry import Registry
    from quizcoll.executables import calculator_refusals

    part = Registry(refusals=calculator_refusals)
    for c in registry.constants.values():
        part.add_constant(c)
    import importlib

    for module in detecting:
        importlib.import_module(f"quizcoll.executables.{module}").register(part)
    assert [d.id for d in part.detectors] == [d.id for d in registry.detectors]


def test_a_partial_registry_runs_cards_as_the_whole_one_does(cache: Path) -> None:
    LazyRegistry().real()  # the first use builds everything and writes the index
    assert list(cache.glob("*.pickle"))
    whole = build_registry()
    lazy = LazyRegistry()
    for name, args in (
        ("hardware.transfer", {"link": "ndr", "size": 1 << 30, "count": 2}),
        ("memory.weights", {"params": 8e9, "dtype": "bf16"}),
    ):
        assert lazy.call(name, args) == whole.call(name, args)
        assert lazy.get(name).fields == whole.get(name).fields
    assert lazy._built is None, "a call with an index must not build the whole registry"
    assert dict(lazy.constants) == dict(whole.constants)
    assert [d.id for d in lazy.detectors] == [d.id for d in whole.detectors]
    assert lazy._built is None
    assert len(lazy._registered) < 10  # only the modules asked for
    assert sorted(lazy.names()) == sorted(whole.names())  # anything else: the whole registry
    assert lazy._built is not None


@pytest.mark.parametrize("junk", [b"", b"not a pickle", lazyregistry.FORMAT + b"0" * 64 + b"\n"])
def test_junk_or_a_foreign_index_is_a_whole_build(cache: Path, junk: bytes) -> None:
    cache.mkdir(parents=True)
    lazyregistry.index_path().write_bytes(junk)
    lazy = LazyRegistry()
    lazy.get("hardware.transfer")
    assert lazy._built is not None


def test_without_the_cache_every_use_is_a_whole_build(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    LazyRegistry().real()
    monkeypatch.setenv("QUIZCOLL_NO_CACHE", "1")
    lazy = LazyRegistry()
    lazy.get("hardware.transfer")
    assert lazy._built is not None


def test_a_cached_grade_imports_only_its_cards_calculator(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    env.pop("QUIZCOLL_NO_CACHE", None)
    code = (
        "import sys, io, contextlib\n"
        "from quizcoll.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['grade', 'weights-bytes-by-dtype', '--seed', '1', '--answer', '4 GB'])\n"
        "print('quizcoll.systems' in sys.modules, 'quizcoll.collectives' in sys.modules)\n"
    )
    run = [sys.executable, "-c", code]
    first = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    assert first.stdout.split() == ["True", "True"], first.stderr  # a miss builds it all
    second = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    assert second.stdout.split() == ["False", "False"], second.stderr
