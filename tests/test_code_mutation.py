"""The code mutator of ``bench/bench_code_mutation.py``: which edits it makes, and that each
one changes exactly one token and can be undone. (The bench itself judges mutants against
``check``; it takes minutes, so it is not run here.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deck.proving.codemutation import (
    data_mutants,
    number_variants,
    python_mutants,
    sample,
    tree_mutants,
)

ROOT = Path(__file__).resolve().parent.parent

SOURCE = '''"""Doc 3."""
def f(x: int = 4) -> float:
    if x < 2 or x >= 10:
        return x ** 2 // 3
    return (x + 1) * 0.5 - x / 8 % 7 == True
'''


def _edits(mutants):  # type: ignore[no-untyped-def]
    return {(m.old, m.new, m.kind) for m in mutants}


def test_numbers_operators_and_comparisons_are_mutated() -> None:
    edits = _edits(python_mutants("m.py", SOURCE))
    assert {("2", "4", "number"), ("2", "3", "number"), ("2", "1", "number")} <= edits
    assert {("0.5", "1.0", "number"), ("0.5", "1.5", "number"), ("0.5", "-0.5", "number")} <= edits
    assert {
        ("<", "<=", "comparison"),
        (">=", ">", "comparison"),
        ("==", "!=", "comparison"),
    } <= edits
    assert {("**", "*", "operator"), ("//", "/", "operator"), ("+", "-", "operator")} <= edits
    assert {("*", "/", "operator"), ("-", "+", "operator"), ("/", "*", "operator")} <= edits
    assert ("%", "//", "operator") in edits
    # The docstring's 3, the annotation's default of 4 is a value (mutated), True is no number.
    assert not any(m.line == 1 for m in python_mutants("m.py", SOURCE))
    assert ("4", "8", "number") in edits
    assert not any(m.old == "True" for m in python_mutants("m.py", SOURCE))


def test_every_mutant_changes_one_token_and_still_parses() -> None:
    for m in python_mutants("m.py", SOURCE):
        mutated = m.apply(SOURCE)
        assert mutated != SOURCE
        ast.parse(mutated)
        # Undone byte for byte by the inverse edit.
        back = type(m)(m.path, m.line, m.col, m.col + len(m.new), m.new, m.old, m.kind)
        assert back.apply(mutated) == SOURCE


def test_a_changed_source_is_refused() -> None:
    m = python_mutants("m.py", SOURCE)[0]
    with pytest.raises(ValueError, match="changed"):
        m.apply(SOURCE.replace(m.old, "Z" * len(m.old), 10))


@pytest.mark.parametrize(
    ("text", "expected"),
    [("3", ["6", "4", "2"]), ("0", ["1", "-1"]), ("10", ["20", "11", "9"]), ("1", ["2", "0"])],
)
def test_number_variants(text: str, expected: list[str]) -> None:
    assert number_variants(text) == expected


@settings(max_examples=200, deadline=None)
@given(st.integers(-(10**12), 10**12) | st.floats(-1e12, 1e12, allow_nan=False).map(abs))
def test_number_variants_never_return_the_number_itself(value: float) -> None:
    text = repr(value)
    variants = number_variants(text)
    assert variants and text not in variants
    assert all(float(v) != float(text) for v in variants)


def test_data_tables_figures() -> None:
    yaml_text = "figures:\n  - name: a\n    printed: 6.6\n    unit: x\n  - printed: 143771\n"
    ms = data_mutants("t.yaml", yaml_text)
    assert {(m.line, m.old) for m in ms} == {(3, "6.6"), (5, "143771")}
    assert data_mutants("t.yaml", yaml_text)[0].apply(yaml_text).count("printed: 13.2") == 1
    json_text = '{\n  "num_hidden_layers": 32,\n  "rope_theta": 500000.0,\n  "x": "8"\n}\n'
    js = data_mutants("c.json", json_text)
    assert {(m.line, m.old) for m in js} == {(2, "32"), (3, "500000.0")}


def test_the_sample_is_fixed_and_at_distinct_sites() -> None:
    mutants = tree_mutants(ROOT, ["quizcoll/systems"], ["quizcoll/data/nccl.yaml"])
    assert len(mutants) > 300
    first, again = sample(mutants, 60, 7), sample(mutants, 60, 7)
    assert first == again and len(first) == 60
    assert len({(m.path, m.line, m.col) for m in first}) == 60
    assert sample(mutants, 60, 8) != first
    for m in first:  # each applies to the file as it is
        m.apply((ROOT / m.path).read_text(encoding="utf-8"))
