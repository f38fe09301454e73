"""Provenance of the declared constants, enforced by the engine.

Every constant is cited (a source, and where the source prints it, the figure as quoted) or
derived (the code that computes it). A proof's ``expect`` may use cited constants only; the
cited ones never come from the calculators they check, so a bug planted in a calculator is
caught by the proofs instead of being copied into them.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from deck.cards.loader import load_collection, load_text
from deck.cards.model import Collection
from deck.cards.registry import Constant
from deck.proving.provenance import check_constants, printed_numbers, quote_prints_value
from deck.proving.verify import run_checks
from deck.units import Dim
from quizcoll.constants import all_constants
from quizcoll.executables import build_registry

ROOT = Path(__file__).resolve().parent.parent
CONSTANTS_DIR = ROOT / "quizcoll" / "constants"
CODE_UNDER_TEST = ("quizcoll.collectives", "quizcoll.memory", "quizcoll.systems")
UPWARD = ("quizcoll.executables", "quizcoll.cli", "quizcoll.tui")


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, at any depth (function-level imports included)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append((node.lineno, node.module))
    return out


@pytest.mark.parametrize("path", sorted(CONSTANTS_DIR.glob("*.py")), ids=lambda p: p.name)
def test_constants_import_no_code_they_check(path: Path) -> None:
    bad = [
        f"{path.name}:{line} imports {name}"
        for line, name in _imports(path)
        if name.startswith(CODE_UNDER_TEST + UPWARD)
    ]
    assert not bad


def test_every_cited_quote_prints_its_value() -> None:
    constants = all_constants()
    assert check_constants(constants) == ()
    assert all(c.cited and c.source.strip() for c in constants)
    quoted = [c for c in constants if c.quote]
    assert len(quoted) >= 200  # the model configs' keys and NCCL's tables, at least


@pytest.mark.parametrize("factor", [2.0, 1.1, 0.5])
def test_an_edited_figure_no_longer_matches_its_quote(factor: float) -> None:
    quoted = [c for c in all_constants() if c.quote]
    edited = [dataclasses.replace(c, value=c.value * factor) for c in quoted]
    failures = check_constants(edited)
    # A quote may print two figures (a row of a table) and hold the edited one by chance.
    assert len(failures) >= 0.9 * len(edited)
    first = failures[0].format()
    assert "constant" in first and "does not print this value" in first


def test_quote_numbers_units_and_booleans() -> None:
    assert printed_numbers("H200 | 143,771MiB | 6.6e-3 and 0.92") == [143771.0, 6.6e-3, 0.92]
    assert printed_numbers('"tie_word_embeddings": false') == [0.0]
    us = Constant("lat", 6.6e-6, Dim.SECONDS, "NCCL", "µs", quote="{ 6.8, 14.0, 8.4 }, { 6.6 }")
    assert quote_prints_value(us)
    assert not quote_prints_value(dataclasses.replace(us, value=6.7e-6))
    mib = Constant("h200", 143_771 * 2**20, Dim.BYTES, "nvidia-smi", "MiB", quote="143771MiB")
    assert quote_prints_value(mib)
    assert not quote_prints_value(dataclasses.replace(mib, value=143_772 * 2**20))


_DERIVED_CARD = """\
deck: hardware
cards:
  - id: nvlink-figure
    type: basic
    front: What bandwidth does NCCL assume for an H100's NVLink?
    back: "{=bw|GB/s}"
    verify:
      - {name: bw, run: hardware.link, args: {link: h100}, field: nccl_bw, expect: "h100_nccl_bw"}
"""


def test_an_expect_naming_a_derived_constant_fails_with_its_place() -> None:
    registry = build_registry()
    derived = registry.constant("h100_nccl_bw")
    assert derived is not None and not derived.cited and "link_figures" in derived.derived
    _, problems = load_text(_DERIVED_CARD, "d.yaml", registry)
    text = [p.format() for p in problems]
    assert any(
        t.startswith("d.yaml:8:") and "'h100_nccl_bw' is derived by" in t and "expect" in t
        for t in text
    ), text
    # The same figure from cited inputs (NVLink links × NCCL's per-link figure) is accepted.
    cited = _DERIVED_CARD.replace('"h100_nccl_bw"', '"h100_nvlink_links*h100_nccl_link_bw"')
    cards, problems = load_text(cited, "d.yaml", registry)
    assert not problems, [p.format() for p in problems]
    assert run_checks(Collection(tuple(cards)), registry, seeds=1).ok


def test_no_builtin_proof_names_a_derived_constant() -> None:
    registry = build_registry()
    collection = load_collection([ROOT / "quizcoll" / "cards"], registry)
    assert not [p.format() for p in collection.problems if "is derived by" in p.message]


def test_a_gqa_bug_planted_in_the_config_parser_fails_the_kv_cache_proof(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The parser forgets num_key_value_heads (every head keeps its own K and V): the KV
    cache of Llama-3-8B grows 4×. The constants read the config files themselves, so the
    card's closed form keeps 8 KV heads and ``check`` fails."""
    from quizcoll.memory import catalog

    real = catalog.parse_config

    def forgets_gqa(raw, source=""):  # type: ignore[no-untyped-def]
        cfg = real(raw, source=source)
        return dataclasses.replace(cfg, num_kv_heads=cfg.num_heads)

    registry = build_registry()
    collection = load_collection([ROOT / "quizcoll" / "cards" / "memory-inference.yaml"], registry)
    cards = tuple(c for c in collection.cards if c.id == "kv-cache-size")
    assert len(cards) == 1
    assert run_checks(Collection(cards), registry, seeds=3).ok
    catalog.load_model.cache_clear()
    monkeypatch.setattr(catalog, "parse_config", forgets_gqa)
    try:
        report = run_checks(Collection(cards), build_registry(), seeds=3)  # a fresh one
    finally:
        catalog.load_model.cache_clear()
    assert not report.ok
    assert any("kv-cache-size" in f.format() for f in report.errors)


def test_a_source_that_prints_its_figure_is_its_quote() -> None:
    from quizcoll.constants import QUOTED_IN_SOURCE

    by_name = {c.name: c for c in all_constants()}
    assert set(by_name) >= QUOTED_IN_SOURCE
    hour = by_name["seconds_per_hour"]
    assert hour.quote == hour.source and "3,600" in hour.quote
    assert check_constants([dataclasses.replace(hour, value=3601.0)])


def test_a_published_figure_quotes_its_source_from_its_data_file() -> None:
    palm = {c.name: c for c in all_constants()}["palm_chips"]
    assert palm.where.startswith("quizcoll/data/runs.yaml:")
    assert palm.quote != palm.source and "6144 TPU v4 chips" in palm.quote
    assert not check_constants([palm])
    assert check_constants([dataclasses.replace(palm, value=6145.0)])


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ("{name: x, printed: 1, dimension: count}", "source: every figure says where"),
        ("{name: x, printed: '1', dimension: count, source: s}", "printed: expected a number"),
        ("{name: x, printed: 1, dimension: furlongs, source: s}", "dimension: one of"),
        ("{name: x, printed: 1.0e+99, dimension: count, source: s}", "finite number"),
        ("{name: x, printed: 1, dimension: count, source: s, colour: red}", "unknown key"),
    ],
)
def test_a_malformed_data_record_names_its_file_and_line(record: str, message: str) -> None:
    from deck.cards.yamlsource import parse_yaml
    from quizcoll.constants.data import DataError, _record

    data, problem = parse_yaml(f"figures:\n  - {record}\n", "quizcoll/data/t.yaml")
    assert problem is None
    with pytest.raises(DataError, match=message) as info:
        _record("quizcoll/data/t.yaml", data["figures"].where(0).line, data["figures"][0])
    assert str(info.value).startswith("quizcoll/data/t.yaml:2:")


def test_data_records_read_the_printed_figure_in_its_unit() -> None:
    by_name = {c.name: c for c in all_constants()}
    assert by_name["nccl_base_ring_LL"].value == pytest.approx(6.6e-6)
    assert by_name["h100_80gb_reported"].value == 81_559 * 2**20
    assert by_name["nccl_base_ring_LL"].where.startswith("quizcoll/data/nccl.yaml:")
