"""The proof cache of ``quizcoll check``: only unchanged, clean cards are taken from it; any
change to a card or to the code proves afresh; a junk cache file is an empty cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deck.cards.loader import load_text
from deck.cards.model import Collection
from deck.proving.proofcache import MAX_CACHE_BYTES, ProofCache, Proven
from deck.proving.verify import run_checks
from quizcoll.executables import build_registry

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "provable" / "cards.yaml"
FIXTURE_TEXT = FIXTURE.read_text(encoding="utf-8")
REGISTRY = build_registry()
WRONG = ("{~3.73 GiB=w32}", "{~7.46 GiB=w32}")  # a figure the run does not give


def _load(text: str) -> Collection:
    cards, problems = load_text(text, "t.yaml", REGISTRY)
    assert not problems, [p.format() for p in problems]
    return Collection(tuple(cards))


def test_a_clean_proof_is_remembered_and_counted_the_same(tmp_path: Path) -> None:
    cache = ProofCache(tmp_path / "proofs.json", "code-1")
    collection = _load(FIXTURE_TEXT)
    first = run_checks(collection, REGISTRY, seeds=2, cache=cache)
    assert first.ok and first.remembered == 0
    assert len(cache) == len(collection.cards)
    assert cache.save() is None
    again = ProofCache.open(tmp_path / "proofs.json", "code-1")
    second = run_checks(collection, REGISTRY, seeds=2, cache=again)
    assert second.remembered == len(collection.cards)
    assert (second.claims, second.claim_points, second.instances) == (
        first.claims,
        first.claim_points,
        first.instances,
    )


def test_a_changed_card_is_proven_again_and_fails(tmp_path: Path) -> None:
    cache = ProofCache(tmp_path / "proofs.json", "code-1")
    assert run_checks(_load(FIXTURE_TEXT), REGISTRY, seeds=2, cache=cache).ok
    wrong = _load(FIXTURE_TEXT.replace(*WRONG, 1))
    report = run_checks(wrong, REGISTRY, seeds=2, cache=cache)
    assert not report.ok
    assert any("7.46 GiB" in f.format() for f in report.errors)
    assert 0 < report.remembered < len(wrong.cards)  # the other cards are unchanged
    # A failing card is never remembered: the next run fails it again.
    assert not run_checks(wrong, REGISTRY, seeds=2, cache=cache).ok


def test_other_code_or_seeds_remember_nothing(tmp_path: Path) -> None:
    collection = _load(FIXTURE_TEXT)
    cache = ProofCache(tmp_path / "proofs.json", "code-1")
    run_checks(collection, REGISTRY, seeds=2, cache=cache)
    assert run_checks(collection, REGISTRY, seeds=3, cache=cache).remembered == 0
    cache.save()
    edited = ProofCache.open(tmp_path / "proofs.json", "code-2")
    assert run_checks(collection, REGISTRY, seeds=2, cache=edited).remembered == 0


def test_the_key_is_the_same_in_every_process() -> None:
    """Keys hash the card's repr: no set order (PYTHONHASHSEED) may leak into them."""
    script = (
        "from deck.cards.loader import load_collection; from deck.proving.proofcache import ProofCache;"
        "from quizcoll.executables import build_registry; from quizcoll.cli.common import "
        "builtin_cards_dir; r = build_registry(); c = load_collection([builtin_cards_dir()], r);"
        "from pathlib import Path; k = ProofCache(Path('unused'), 'x'); print(''.join(k.key(card, 5) for card in c.cards)[-200:])"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outs) == 1


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\xff\xfe junk",
        b"[]",
        b'{"format": 99, "proofs": {}}',
        b'{"format": 1, "proofs": []}',
        b'{"format": 1, "proofs": {"short": [1, 2, 3]}}',
        json.dumps({"format": 1, "proofs": {"a" * 64: [1, -2, 3]}}).encode(),
        json.dumps({"format": 1, "proofs": {"a" * 64: [1, 2.5, 3]}}).encode(),
        json.dumps({"format": 1, "proofs": {"a" * 64: [True, 2, 3]}}).encode(),
        b"[" * 100_000,
    ],
)
def test_a_malformed_cache_is_an_empty_one(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "proofs.json"
    path.write_bytes(content)
    assert len(ProofCache.open(path, "c")) == 0


def test_an_oversized_or_odd_cache_path_is_an_empty_one(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_CACHE_BYTES + 1))
    assert len(ProofCache.open(big, "c")) == 0
    folder = tmp_path / "folder.json"
    folder.mkdir()
    cache = ProofCache.open(folder, "c")
    assert len(cache) == 0
    cache.put("a" * 64, Proven(1, 2, 3))
    why = cache.save()  # a folder is not replaced: the reason comes back, nothing raises
    assert why and "folder.json" in why and folder.is_dir()


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=400) | st.text(max_size=400).map(str.encode))
def test_junk_cache_bytes_never_raise(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    path = tmp_path_factory.mktemp("junk") / "proofs.json"
    path.write_bytes(data)
    cache = ProofCache.open(path, "c")
    assert all(isinstance(cache.get(k), Proven | None) for k in ("a" * 64, "x"))


def _check(*args: str, cache_home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    return subprocess.run(
        [sys.executable, "-m", "quizcoll", "check", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )


def test_the_cli_remembers_and_says_so(tmp_path: Path) -> None:
    cards = tmp_path / "cards.yaml"
    cards.write_text(FIXTURE_TEXT, encoding="utf-8")
    home = tmp_path / "cache"
    assert _check(str(cards), "--no-cache", cache_home=home).returncode == 0
    assert not (home / "quizcoll" / "proofs.json").exists()  # --no-cache writes nothing
    first = _check(str(cards), "--json", cache_home=home)
    assert first.returncode == 0 and json.loads(first.stdout)["remembered"] == 0
    second = _check(str(cards), cache_home=home)
    assert second.returncode == 0, second.stderr
    assert "unchanged since they passed, not proven again" in second.stdout
    cards.write_text(FIXTURE_TEXT.replace(*WRONG, 1), encoding="utf-8")
    third = _check(str(cards), cache_home=home)
    assert third.returncode == 1 and "7.46 GiB" in third.stderr


# A card whose proof reads a bundled model config: the exact count Meta publishes for
# Llama-3-8B (the tests' PUBLISHED table, tests/test_memory_params.py) against the count of
# the tensors the shipped config.json declares.
_CONFIG_CARD = """\
deck: memory
cards:
  - id: llama3-8b-count
    type: basic
    front: How many parameters has Llama-3-8B?
    back: "{=n} parameters."
    verify:
      - {name: n, run: memory.model_params, args: {model: llama-3-8b}, field: parameters, expect: "8030261248"}
"""


def _copy_tree(dest: Path) -> Path:
    """A copy of the two packages (no byte code, no collection) that ``check`` can run from."""
    import shutil

    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in ("deck", "quizcoll"):
        shutil.copytree(ROOT / package, dest / package, ignore=ignore)
    return dest


def test_a_cached_check_fails_after_a_bundled_config_is_edited(tmp_path: Path) -> None:
    tree = _copy_tree(tmp_path / "tree")
    cards = tmp_path / "cards.yaml"
    cards.write_text(_CONFIG_CARD, encoding="utf-8")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(tree)}

    def check() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "quizcoll", "check", "--json", str(cards)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
        )

    assert check().returncode == 0
    remembered = check()
    assert remembered.returncode == 0 and json.loads(remembered.stdout)["remembered"] == 1
    config = tree / "quizcoll" / "memory" / "models" / "llama-3-8b.json"
    text = config.read_text(encoding="utf-8")
    assert '"num_hidden_layers": 32' in text
    config.write_text(text.replace('"num_hidden_layers": 32', '"num_hidden_layers": 33'), "utf-8")
    after = check()
    assert after.returncode == 1, after.stdout
    assert json.loads(after.stdout)["remembered"] == 0


def test_the_fingerprint_covers_data_files_and_library_versions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from quizcoll import fingerprint

    root = tmp_path / "quizcoll"
    (root / "memory" / "models").mkdir(parents=True)
    (root / "cards").mkdir()
    (root / "data").mkdir()
    (root / "m.py").write_text("X = 1\n")
    (root / "memory" / "models" / "m.json").write_text('{"a": 1}')
    (root / "data" / "t.yaml").write_text("a: 1\n")
    (root / "data" / "t.csv").write_text("a,1\n")
    (root / "cards" / "c.yaml").write_text("cards: []\n")
    base = fingerprint.code_fingerprint([root])
    for rel, text in [
        ("memory/models/m.json", '{"a": 2}'),
        ("data/t.yaml", "a: 2\n"),
        ("data/t.csv", "a,2\n"),
        ("m.py", "X = 2\n"),
    ]:
        old = (root / rel).read_text()
        (root / rel).write_text(text)
        assert fingerprint.code_fingerprint([root]) != base, rel
        (root / rel).write_text(old)
    assert fingerprint.code_fingerprint([root]) == base
    # The collection is keyed card by card, not here: editing a card keeps other proofs.
    (root / "cards" / "c.yaml").write_text("cards: [] # edited\n")
    assert fingerprint.code_fingerprint([root]) == base
    real = fingerprint._version
    for library in fingerprint.LIBRARIES:
        monkeypatch.setattr(
            fingerprint, "_version", lambda n, lib=library: "0.0" if n == lib else real(n)
        )
        assert fingerprint.code_fingerprint([root]) != base, library
        monkeypatch.setattr(fingerprint, "_version", real)
