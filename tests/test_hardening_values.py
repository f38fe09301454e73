"""Issue 26, values: formula answers beyond the float range (``1e308*1e308``) in ``grade``
and ``review --plain``, card files whose parameter is named by a number or by YAML null,
and the CLI bounds of review 3 (F17: group sizes, micro-batches, --tp without an
architecture, a history ``version: true``, a bound message that must not read as within
its bound). Every one ends in a verdict or one line with exit 2, never a traceback."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from deck.answers.checking import check_answer
from deck.cards.instances import draw
from deck.cards.loader import load_text
from deck.formula import parse as parse_formula
from deck.formula.equivalence import equivalent
from quizcoll.cli.main import main
from quizcoll.memory.architecture import parse_config
from quizcoll.memory.errors import MemoryInputError

FORMULA_CARD = """\
deck: t
cards:
  - id: ring-formula
    type: formula
    front: Per-rank bytes of a ring all-reduce?
    variables:
      N: {range: [2, 64], integer: true, meaning: ranks}
      S: {range: [1, 1e9], meaning: bytes}
    answer:
      formula: "2*(N-1)/N*S"
"""

HUGE = ["1e308*1e308", "10^308*10", "-10^308*10", "1e308+1e308", "10**400", "N*1e308*1e308",
        "S*10^400", "S*10^-400", "10^400/10^399*2*(N-1)/N*S", "(10^308*10)^2"]  # fmt: skip


def _formula_card():  # type: ignore[no-untyped-def]
    cards, problems = load_text(FORMULA_CARD, "t.yaml")
    assert not problems
    return cards[0]


@pytest.mark.parametrize("answer", HUGE)
def test_formula_answers_beyond_the_float_range_get_a_verdict(answer: str) -> None:
    card = _formula_card()
    verdict = check_answer(card, draw(card, 0), answer, None)
    assert not verdict.correct and not verdict.invalid
    assert verdict.feedback and len(verdict.feedback) < 400  # no 300-digit factor


def test_a_huge_factor_is_shown_as_values() -> None:
    a, b = parse_formula("2*(N-1)/N*S"), parse_formula("10^400*2*(N-1)/N*S")
    outcome = equivalent(a, b, _formula_card().variables, seed=0)
    assert not outcome.equal and outcome.given_value == float("inf")
    assert "it is inf where the expected value is" in outcome.reason


@pytest.mark.parametrize("answer", ["1e308*1e308", "10^308*10"])
def test_grade_and_review_plain_never_raise_overflow(
    answer: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cards = tmp_path / "t.yaml"
    cards.write_text(FORMULA_CARD, encoding="utf-8")
    code = main(["grade", "ring-formula", "--cards", str(cards), "--answer", answer])
    out, err = capsys.readouterr()
    assert code == 1 and out.startswith(f"wrong: {answer}") and "Traceback" not in err
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{answer}\n1\nq\n"))
    code = main(["review", "--plain", "--cards", str(cards), "--db", str(tmp_path / "r.db")])
    out, err = capsys.readouterr()
    assert code == 0 and "Not quite" in out and "Traceback" not in err, out + err


PARAM_CARD = """\
deck: t
cards:
  - id: p-card
    type: numeric
    front: "What is {{n}}?"
    params:
      {key}: [1, 2]
      n: [1, 2]
    answer:
      expr: "n"
"""


@pytest.mark.parametrize(
    ("key", "shown"),
    [("1", "params.1"), ("null", "params.null"), ("~", "params.null"), ("true", "params.true"),
     ("3.5", "params.3.5"), ("0x1f", "params.31")],
)  # fmt: skip
def test_a_parameter_named_by_a_number_or_null_is_an_error_of_the_card(
    key: str, shown: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = PARAM_CARD.format(key=key)
    cards, problems = load_text(text, "c.yaml")
    assert not cards and len(problems) == 1, problems
    assert problems[0].field == shown and "not a name (quote it)" in problems[0].message
    path = tmp_path / "c.yaml"
    path.write_text(text, encoding="utf-8")
    for argv in (
        ["check", str(path)],
        ["list", "--cards", str(path)],
        ["export", "--cards", str(path), "-o", str(tmp_path / "out.md")],
    ):
        code = main(argv)
        _, err = capsys.readouterr()
        assert code == 2 and "Traceback" not in err, (argv, err)


def test_a_claim_sweep_named_by_a_number_is_an_error_too() -> None:
    text = """\
deck: t
cards:
  - id: c-card
    type: basic
    front: Ring traffic
    back: 2(N-1)/N S
    verify:
      - claim: "each rank sends 2(N-1)/N S"
        run: collectives.cost
        args: {collective: all_reduce, algorithm: ring, ranks: "{N}", size: "{S}"}
        field: max_bytes_sent
        expect: "2*(N-1)/N*S"
        where: {N: [2, 4], S: [16], 7: [1], null: [2]}
"""
    _, problems = load_text(text, "c.yaml")
    fields = {p.field for p in problems}
    assert {"verify[0].where.7", "verify[0].where.null"} <= fields, problems


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["vram", "--model", "llama-3-8b", "--dtype", "gptq-g999999999999"],
         "group size must be between 8 and 4,096, got 999,999,999,999"),
        (["vram", "--model", "llama-3-8b", "--dtype", "awq-g4"], "got 4"),
        (["train-mem", "--model", "llama-3-8b", "--micro-batch", "32k"],
         "--micro-batch must be a whole number from 1 to 4,096, got 32,000"),
        (["train-mem", "--params", "7e9", "--tp", "3"],
         "--tp: the activation estimate needs the architecture"),
        (["train-mem", "--params", "7e9", "--seq-len", "4096", "--sequence-parallel"],
         "--seq-len, --sequence-parallel: the activation estimate needs the architecture"),
    ],
)  # fmt: skip
def test_cli_bounds(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(argv)
    _, err = capsys.readouterr()
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_the_defaults_still_work(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train-mem", "--params", "7e9"]) == 0
    assert main(["vram", "--model", "llama-3-8b", "--dtype", "gptq-g128"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("version", [True, False, 0, -1, 1.0, "1", None])
def test_a_history_version_must_be_a_whole_number(
    version: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "h.json"
    path.write_text(json.dumps({"format": "quizcoll-history", "version": version, "cards": []}))
    code = main(["history", "import", str(path), "--db", str(tmp_path / "r.db")])
    _, err = capsys.readouterr()
    assert code == 2 and "history format version" in err, err


def test_a_bound_message_shows_value_and_bound_alike() -> None:
    config = {"model_type": "llama", "hidden_size": 131_073, "num_attention_heads": 1,
              "num_hidden_layers": 1, "intermediate_size": 8, "vocab_size": 8}  # fmt: skip
    with pytest.raises(MemoryInputError) as caught:
        parse_config(config, "config.json")
    assert "hidden_size 131,073 is above quizcoll's bound of 131,072" in str(caught.value)


def test_the_new_caps_are_the_documented_ones() -> None:
    from deck.interchange.importing import apkg, markup, table
    from quizcoll.cli import cmd_train_mem
    from quizcoll.memory import formats

    doc = (Path(__file__).resolve().parent.parent / "docs" / "limits.md").read_text()
    facts = {
        "`train-mem --micro-batch` | 1 to 4,096 sequences": cmd_train_mem.MAX_MICRO_BATCH == 4096,
        "a group size of 8 to 4,096": (formats.MIN_GROUP_SIZE, formats.MAX_GROUP_SIZE) == (8, 4096),
        "conversion work | 268,435,456 units": apkg.MAX_WORK == 268_435_456,
        "32 per HTML tag": apkg.TAG_WORK == 32,
        "with 1 to 4 ASCII digits": markup.MAX_CLOZE_DIGITS == 4,
        "a blob of at most 64 KiB": apkg.MAX_CONFIG_BYTES == 64 * 1024,
        "`#tags column:` is 1 to 9,999": table.MAX_COLUMN_DIGITS == 4,
        "at most 16 MiB of UTF-8, at most 50,000 rows": (table.MAX_CSV_BYTES, table.MAX_ROWS)
        == (16 * 2**20, 50_000),
        "| notes | at most 50,000 |": apkg.MAX_NOTES == 50_000,
    }
    for text, holds in facts.items():
        assert text in doc, text
        assert holds, text
