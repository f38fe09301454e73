"""The command line of issue 14: hints in `show` and `review --plain`, `rename`, `paths`,
`new`, your own card folder, exit codes of `list` and `sim`, `--json` of `history import`
and `optimize`, and the settings file the app writes."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from deck.review.scheduler import load_config
from deck.review.store import Store
from quizcoll.cli.main import main
from quizcoll.settings import Change, parse_fields, read_theme, save_settings

EXTRAS = Path(__file__).parent / "fixtures" / "tui_cards" / "extras" / "review.yaml"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user data and config directory of the test's own."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("QUIZCOLL_DB", raising=False)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str, stdin: str = "") -> tuple[int, str, str]:
    import sys

    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        code = main(list(argv))
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    return code, out, err


def test_show_prints_the_hint(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "hinted-sum", "--cards", str(EXTRAS), "--seed", "0")
    assert code == 0 and "\nHint: Add one to " in out
    code, out, _ = run(capsys, "show", "hinted-sum", "--cards", str(EXTRAS), "--json")
    document = json.loads(out)
    assert document["hint"].startswith("Add one to ")
    code, out, _ = run(capsys, "show", "long-answer", "--cards", str(EXTRAS), "--json")
    assert json.loads(out)["hint"] is None


def test_plain_review_h_shows_the_hint_and_logs_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = tmp_path / "r.db"
    # card 1 (basic): reveal, Good; card 2: h, then the answer, accept; card 3: a (right), accept
    code, out, _ = run(
        capsys, "review", "--plain", "--cards", str(EXTRAS), "--db", str(db),
        stdin="\n3\nh\n3\n\na\n\n",
    )  # fmt: skip
    assert code == 0
    assert "h: hint; Enter reveals)> " in out and "hint: Add one to " in out
    with Store.open(db) as store:
        hinted = {r.card_id: r.hinted for r in store.reviews()}
    assert hinted == {"long-answer": False, "hinted-sum": True, "long-choice": False}


def test_list_and_sim_refuse_what_does_not_exist(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "list", "--deck", "nope")
    assert code == 2 and "no deck 'nope'" in err
    code, _, err = run(capsys, "list", "--tag", "nope")
    assert code == 2 and "no card has the tag 'nope'" in err
    code, _, err = run(capsys, "sim", "all_reduce", "--ranks", "1")
    assert code == 2 and "--ranks must be at least 2" in err


def test_new_writes_a_checked_starter_loaded_beside_the_builtin_cards(
    capsys: pytest.CaptureFixture[str], home: Path
) -> None:
    code, out, _ = run(capsys, "paths", "--json")
    paths = json.loads(out)
    assert code == 0 and not paths["user_cards_exists"] and paths["user_files"] == []
    assert paths["database"].startswith(str(home / "data"))

    code, out, _ = run(capsys, "new", "mine")
    written = Path(out.strip())
    assert code == 0 and written == home / "data" / "quizcoll" / "cards" / "mine.yaml"
    text = written.read_text("utf-8")
    assert text.startswith("# yaml-language-server: $schema=file://")
    assert Path(text.split("$schema=file://")[1].split("\n")[0]).is_file()

    code, out, _ = run(capsys, "list", "--deck", "mine", "--json")
    assert [c["id"] for c in json.loads(out)] == ["mine-example-basic", "mine-example-numeric"]
    code, out, _ = run(capsys, "check", str(written))
    assert code == 0
    code, out, _ = run(capsys, "paths")
    assert str(written) in out

    # never overwritten without --force; never written through a link
    written.write_text(text + "# mine\n", "utf-8")
    code, _, err = run(capsys, "new", "mine")
    assert code == 2 and "already exists" in err and written.read_text("utf-8").endswith("# mine\n")
    code, _, _ = run(capsys, "new", "mine", "--force")
    assert code == 0 and written.read_text("utf-8") == text
    target = home / "elsewhere.yaml"
    target.write_text("precious", "utf-8")
    link = written.with_name("linked.yaml")
    os.symlink(target, link)
    code, _, err = run(capsys, "new", "linked", "--force")
    assert code == 2 and "not a regular file" in err and target.read_text("utf-8") == "precious"
    code, _, err = run(capsys, "new", "Bad Name")
    assert code == 2


def test_rename_carries_the_history_and_refuses_to_mix_two(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = tmp_path / "r.db"
    code, _, _ = run(
        capsys, "review", "--plain", "--cards", str(EXTRAS), "--db", str(db), stdin="\n3\n3\n\n"
    )
    with Store.open(db) as store:
        before = store.card("long-answer")
        assert len(store.reviews("long-answer")) == 1
    code, out, err = run(
        capsys, "rename", "long-answer", "cheat-sheet", "--db", str(db), "--cards", str(EXTRAS)
    )
    assert code == 0 and "1 review(s) moved" in out
    assert "no card has the id 'cheat-sheet' yet" in err
    with Store.open(db) as store:
        assert store.card("long-answer") is None and store.reviews("long-answer") == []
        assert store.card("cheat-sheet").state == before.state
        assert len(store.reviews("cheat-sheet")) == 1
    code, _, err = run(capsys, "rename", "hinted-sum", "cheat-sheet", "--db", str(db))
    assert code == 2 and "already has a history" in err
    code, _, err = run(capsys, "rename", "never-seen", "other", "--db", str(db))
    assert code == 2 and "no history" in err
    missing = tmp_path / "none.db"
    code, _, err = run(capsys, "rename", "a", "b", "--db", str(missing))
    assert code == 2 and not missing.exists()


def test_history_import_and_optimize_speak_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db, copy = tmp_path / "r.db", tmp_path / "copy.db"
    run(capsys, "review", "--plain", "--cards", str(EXTRAS), "--db", str(db), stdin="\n3\n")
    history = tmp_path / "h.json"
    assert run(capsys, "history", "export", "--db", str(db), "-o", str(history))[0] == 0
    code, out, _ = run(capsys, "history", "import", str(history), "--db", str(copy), "--json")
    assert code == 0 and json.loads(out)["added"] == 1
    code, out, _ = run(capsys, "optimize", "--min-reviews", "0", "--json", "--db", str(db))
    document = json.loads(out)  # one document, whatever the outcome
    assert document["fitted"] is False or code == 0


def test_settings_are_saved_one_key_at_a_time_keeping_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        "# my settings\n[review]\nnew_per_day = 5  # slow week\n\n[deck.memory]\nfuzz = false\n",
        "utf-8",
    )
    changes = parse_fields({"desired_retention": "0.85", "learning_steps": "2m, 15m"})
    config = save_settings(path, changes, theme="textual-light")
    text = path.read_text("utf-8")
    assert "# my settings" in text and "new_per_day = 5  # slow week" in text
    assert config.default.desired_retention == 0.85 and config.default.new_per_day == 5
    assert [s.total_seconds() for s in config.default.learning_steps] == [120, 900]
    assert config.for_deck("memory").fuzz is False
    assert read_theme(path) == "textual-light" and load_config(path) == config
    for bad, message in (
        ({"desired_retention": "1.5"}, "between 0.7 and 0.99"),
        ({"new_per_day": "many"}, "expected a whole number"),
        ({"learning_steps": "10 minutes"}, "duration"),
    ):
        with pytest.raises(Exception, match=message):
            parse_fields(bad)
    with pytest.raises(Exception, match="theme"):
        save_settings(path, [Change("new_per_day", 3)], theme="neon")
    assert load_config(path) == config  # a refused save leaves the file as it was


def test_vram_warns_beyond_the_trained_context_and_names_a_params_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "vram", "--model", "llama-3-8b", "--context", "32768", "--json")
    document = json.loads(out)
    assert code == 0 and document["max_position_embeddings"] == 8192
    assert document["warnings"] == [
        "context 32,768 exceeds the 8,192 tokens meta-llama/Meta-Llama-3-8B was trained for: "
        "the memory is computed, but the model is not made for it"
    ]
    code, out, _ = run(capsys, "vram", "--model", "llama-3-8b", "--gpu", "h100")
    assert "trained context: 8,192 tokens" in out and "(the model was trained for 8,192)" in out
    assert "warning:" not in out  # the default context fits the trained one
    code, out, _ = run(capsys, "vram", "--params", "7.5e9", "--json")
    assert json.loads(out)["model"] == "7.5B-parameter model"
    code, out, _ = run(capsys, "train-mem", "--params", "7e9", "--json")
    assert json.loads(out)["model"] == "7B-parameter model"
