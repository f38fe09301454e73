"""Oracle: every record of ``quizcoll/data/parameter-counts.yaml`` is what transformers counts.

Each catalog model is built by transformers from its bundled config on the meta device
(:mod:`tests.oracles.hf_meta`); ``<key>_params`` must equal ``sum(p.numel())`` over the
model's parameters (a tied embedding once). ``<key>_active_params`` is the parameters one
token uses: all of them for a dense model; for a mixture of experts, every tensor of the
model's ``experts`` modules (stacked, one slice per expert) counts only the
``num_experts_per_tok`` slices of ``num_local_experts`` a token is routed to.

The records are the data file's, read as the cards read them, so a wrong ``printed`` fails
here at its name; a copy of the file with one figure doubled shows that it does.
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction
from pathlib import Path

import pytest

from deck.cards.registry import Constant
from deck.cards.yamlsource import parse_yaml
from quizcoll.constants.data import _record, data_path, figures
from quizcoll.memory.catalog import model_names
from tests.oracles.hf_meta import meta_model

ROOT = Path(__file__).resolve().parents[2]
TABLE = "parameter-counts"
SUFFIXES = ("_active_params", "_params")  # the longer first: "_params" ends both


def _key(record: str) -> tuple[str, str]:
    """``(catalog model, suffix)`` of a record name (``llama_3_1_8b_params``)."""
    by_name = {m.replace("-", "_").replace(".", "_"): m for m in model_names()}
    suffix = next(s for s in SUFFIXES if record.endswith(s))
    return by_name[record[: -len(suffix)]], suffix


@functools.cache
def _measured(model: str) -> dict[str, int]:
    """transformers' total and per-token parameter counts of ``model``."""
    cfg, net = meta_model(model)
    experts = getattr(cfg, "num_local_experts", None)
    routed = Fraction(getattr(cfg, "num_experts_per_tok", 0) or 0, experts or 1)
    total, active = 0, Fraction(0)
    for name, p in net.named_parameters():
        total += p.numel()
        stacked = experts and ".experts." in name and p.shape[0] == experts
        active += p.numel() * routed if stacked else p.numel()
    assert active.denominator == 1, model
    return {"_params": total, "_active_params": int(active)}


def _wrong(records: list[Constant]) -> list[str]:
    """The records whose value is not transformers' count."""
    out = []
    for c in records:
        model, suffix = _key(c.name)
        if c.value != _measured(model)[suffix]:
            out.append(c.name)
    return out


def _parsed(text: str) -> list[Constant]:
    path = data_path(TABLE)
    data, problem = parse_yaml(text, path)
    assert problem is None
    items = data["figures"]
    return [_record(path, items.where(i).line, r) for i, r in enumerate(items)]


def test_the_table_has_both_counts_of_every_catalog_model() -> None:
    names = {c.name for c in figures(TABLE)}
    expected = {
        f"{m.replace('-', '_').replace('.', '_')}{s}" for m in model_names() for s in SUFFIXES
    }
    assert names == expected


@pytest.mark.parametrize("record", [c.name for c in figures(TABLE)])
def test_every_printed_count_is_what_transformers_counts(record: str) -> None:
    c = next(c for c in figures(TABLE) if c.name == record)
    assert _wrong([c]) == []


def test_a_mixture_of_experts_uses_fewer_parameters_than_it_has() -> None:
    counts = _measured("mixtral-8x7b")
    assert counts["_active_params"] < counts["_params"] / 3  # 2 of 8 experts of most weights
    dense = _measured("llama-3-8b")
    assert dense["_active_params"] == dense["_params"]


@pytest.mark.parametrize(
    "record", ["llama_3_8b_params", "gemma_2b_active_params", "mixtral_8x7b_active_params"]
)
def test_a_count_edited_in_a_copy_of_the_table_fails_at_its_name(record: str) -> None:
    text = (ROOT / data_path(TABLE)).read_text(encoding="utf-8")
    pattern = rf"(- name: {re.escape(record)}\n    printed: )(\d+)"
    edited, n = re.subn(pattern, lambda m: m.group(1) + str(int(m.group(2)) + 1), text)
    assert n == 1
    assert _wrong(_parsed(text)) == []
    assert _wrong(_parsed(edited)) == [record]
