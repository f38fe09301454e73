"""The published tables the calculators read: each figure once, held to its source's text.

PyTorch's caching-allocator sizes (``training.yaml``) and ggml's block layouts
(``quant-formats.yaml``) are read by the calculators from the data files; each record there
carries its source's own line as ``quote``, as do the quoted records of the hardware tables
(``gpus.yaml``, ``links.yaml``). A wrong ``printed`` therefore has no second copy in code to
agree with: it fails ``check_constants`` at its record. These tests plant such a figure in a
copy of each file.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from deck.cards.yamlsource import parse_yaml
from deck.proving.provenance import check_constants
from quizcoll.constants.data import _record
from quizcoll.memory import formats
from quizcoll.memory.figures import DataFileError, figure, whole
from quizcoll.systems import allocator

ROOT = Path(__file__).resolve().parent.parent
TABLES = ("training", "quant-formats", "memory", "parameter-counts", "gpus", "links")


def _constants(name: str, text: str) -> list:
    path = f"quizcoll/data/{name}.yaml"
    data, problem = parse_yaml(text, path)
    assert problem is None
    items = data["figures"]
    return [_record(path, items.where(i).line, r) for i, r in enumerate(items)]


def _text(name: str) -> str:
    return (ROOT / "quizcoll" / "data" / f"{name}.yaml").read_text(encoding="utf-8")


def _doubled(text: str, record: str) -> str:
    """``text`` with the ``printed`` of ``record`` (and nothing else) times two."""
    pattern = rf"(- name: {re.escape(record)}\n(?:    .*\n)*?    printed: )([0-9.]+)"
    edited, n = re.subn(pattern, lambda m: m.group(1) + repr(float(m.group(2)) * 2), text)
    assert n == 1, record
    return edited


def _quoted(name: str) -> list[str]:
    return [c.name for c in _constants(name, _text(name)) if c.quote]


@pytest.mark.parametrize("name", TABLES)
def test_the_shipped_table_prints_what_its_quotes_print(name: str) -> None:
    assert check_constants(_constants(name, _text(name))) == ()


@pytest.mark.parametrize(
    ("name", "record"), [(n, r) for n in TABLES for r in _quoted(n)], ids=lambda x: str(x)
)
def test_a_figure_doubled_in_a_copy_of_its_table_fails_at_its_record(
    name: str, record: str
) -> None:
    failures = check_constants(_constants(name, _doubled(_text(name), record)))
    assert len(failures) == 1
    assert "does not print this value" in failures[0].format()
    assert record in failures[0].format()


def test_the_tables_the_calculators_read_are_all_quoted() -> None:
    by_name = {c.name: c for c in _constants("training", _text("training"))}
    assert all(by_name[n].quote for n in by_name if n.startswith("alloc_"))
    quant = {c.name: c for c in _constants("quant-formats", _text("quant-formats"))}
    for block in formats.GGUF_BLOCKS:
        assert quant[f"{block}_block_size"].quote and quant[f"{block}_block_bytes"].quote


def test_the_calculators_compute_with_the_published_figures() -> None:
    # The numbers PyTorch's source prints (c10/cuda/CUDACachingAllocator.cpp).
    assert allocator.MIN_BLOCK == 512
    assert (allocator.SMALL_SIZE, allocator.SMALL_BUFFER) == (1048576, 2097152)
    assert (allocator.LARGE_BUFFER, allocator.MIN_LARGE_ALLOC) == (20971520, 10485760)
    assert allocator.ROUND_LARGE == 2097152
    # ggml's structs, as gguf-parser-go's table prints them.
    sizes = {k: (b.block_size, b.block_bytes) for k, b in formats.GGUF_BLOCKS.items()}
    assert sizes == {
        "q8_0": (32, 34),
        "q6_k": (256, 210),
        "q5_k": (256, 176),
        "q4_k": (256, 144),
        "q4_0": (32, 18),
        "q5_0": (32, 22),
        "q5_1": (32, 24),
    }


def test_the_reader_scales_by_unit_and_names_what_is_missing() -> None:
    assert figure("training", "alloc_large_buffer") == 20 * 2**20
    assert whole("quant-formats", "q4_k_block_bytes") == 144
    with pytest.raises(DataFileError, match="alloc_nope: no such record"):
        figure("training", "alloc_nope")
    with pytest.raises(DataFileError, match="unit 'h' is not one of"):
        figure("training", "seconds_per_day")
    with pytest.raises(DataFileError, match="not a whole number"):
        whole("quant-formats", "gptq_block_bytes")
