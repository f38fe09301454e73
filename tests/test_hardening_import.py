"""Issue 26, import: the findings of review 3 (F1-F10, F15, F16), each reproduced from the
reviewer's inputs (``tests/data/hostile/``) or rebuilt by :mod:`apkg_builder`.

Hostile input ends with exit 2 and one line (naming the note when one note is at fault), or
the note is skipped with a reason; a valid note beside it is still imported; the card file
written always loads; an existing file is never replaced without --force.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from apkg_builder import legacy_db, new_db, package, set_flag_bits, set_method

from deck.cards.loader import load_text
from deck.interchange.importing import apkg, table
from deck.interchange.importing.markup import (
    cloze_numbers,
    cloze_sides,
    convert_html,
    find_clozes,
    html_markdown,
)
from quizcoll.cli.main import main

HOSTILE = Path(__file__).resolve().parent / "data" / "hostile"
ROOT = Path(__file__).resolve().parent.parent
HANG_SECONDS = 120  # a hang guard, not a speed limit: each case here takes well under a second


@contextlib.contextmanager
def no_hang(what: str) -> Iterator[None]:
    def hung(signum: int, frame: object) -> None:
        raise AssertionError(f"hung: {what}")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(HANG_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(autouse=True)
def card_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's card folder lives in the test's folder (import writes there by default)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data" / "quizcoll" / "cards"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with no_hang(" ".join(argv)):
        code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# ----------------------------------------------------------------------------- the reviewer's files


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("encrypted-member.apkg", "damaged package: encrypted member collection.anki2"),  # F3
        ("unknown-compression.apkg", "unsupported compression method (97)"),  # F4
        ("models-json-bomb.apkg", "damaged collection: col.models: nested too deeply"),  # F5
        ("decks-json-bomb.apkg", "damaged collection: col.decks: nested too deeply"),  # F5
        ("mid-inf.apkg", "note 1: damaged: notes.mid: not an integer (float)"),  # F6
        ("nid-inf.apkg", "damaged collection: cards.nid: not an integer"),  # F6
        ("did-inf.apkg", "damaged collection: cards.did: not an integer"),  # F6
        ("notetypes-inf-id.apkg", "damaged collection: fields.ntid: not an integer"),  # F6
        ("fields-ord-inf.apkg", "damaged collection: fields.ord: not an integer"),  # F6
        ("decks-table-inf.apkg", "damaged collection: decks.id: not an integer"),  # F6
        ("tags-col-superscript.csv", ":1: #tags column: expected a column number"),  # F7
        ("tags-col-huge.csv", ":1: #tags column: expected a column number"),  # F7
    ],
)
def test_hostile_files_fail_with_one_line(
    name: str, message: str, capsys: pytest.CaptureFixture[str], card_folder: Path
) -> None:
    code, out, err = run(["import", str(HOSTILE / name)], capsys)
    assert code == 2 and message in one_line(err), err
    assert not out and not card_folder.exists()


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("cloze-unclosed-1000.apkg", "a cloze note without {{c1::…}} deletions"),  # F1
        ("cloze-digits.apkg", "a cloze number longer than 4 digits"),  # F9
        ("flds-null.apkg", "an empty question"),  # F8: NULL is empty, never "None"
        ("flds-blob-badutf8.apkg", "notes.flds: not UTF-8 text"),  # F8: never "b'\\xff…'"
        ("html-comment.apkg", "text longer than 60,000 characters"),  # F10 (converted first)
    ],
)
def test_unreadable_notes_are_skipped_with_a_reason(
    name: str, reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["import", str(HOSTILE / name), "-o", "-"], capsys)
    assert code == 2 and reason in err and "no basic or cloze notes to import" in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("name", ["notetypes-config-int.apkg", "varint-hang.apkg"])
def test_an_integer_note_type_config_is_not_bytes(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # F2: bytes(12345678901234) raised MemoryError; bytes(3e9) ran for minutes.
    code, out, err = run(["import", str(HOSTILE / name), "-o", "-"], capsys)
    assert code == 0, err
    cards, problems = load_text(out, "x.yaml")
    assert not problems and len(cards) == 1 and cards[0].type.value == "basic"


def test_formfeed_and_line_separator_stay_inside_a_csv_field(tmp_path: Path) -> None:
    # F15: splitlines() broke rows at \f, \x1c-\x1e, U+0085, U+2028.
    notes = table.read_csv(HOSTILE / "field-formfeed-misalign.csv")
    assert [(n.front, n.back, n.tags) for n in notes] == [
        ("What is 2+2?", "four What is 3+3?", ("six",))
    ]
    path = tmp_path / "seps.csv"
    path.write_text('q1,"a\u2028b",t\nq2,x\x1cy\u0085z,t\n', encoding="utf-8")
    notes = table.read_csv(path)
    assert [n.front for n in notes] == ["q1", "q2"]
    assert notes[0].back == "a\nb" and notes[1].tags == ("t",)


# ----------------------------------------------------------------------------- linear time


def test_cloze_scan_is_linear_on_unclosed_openers() -> None:
    # F1: the regex took 45 s on 1,000 openers; 50,000 would take years. The scan is str.find.
    text = "{{c1::" * 50_000
    with no_hang("cloze scan"):
        assert find_clozes(text) == [] and cloze_numbers(text) == []
        nested = "{{c1::" * 10_000 + "x}}" + "{{c2::y::hint}}"
        clozes = find_clozes(nested)
    # As Anki's regex read it: the text ends at the first "::", the deletion at the first "}}".
    assert [(c.number, c.text) for c in clozes] == [(1, "{{c1"), (2, "y")]
    assert clozes[0].end == len("{{c1::" * 10_000 + "x}}") and clozes[1].hint == "hint"


def test_cloze_reading_matches_anki_forms() -> None:
    text = "{{c1::a::b::c}} {{c12::x}} {{c::no}} {{c3:one colon}} {{c١::arabic digit}}"
    assert [(c.number, c.text, c.hint) for c in find_clozes(text)] == [
        (1, "a", "b::c"),
        (12, "x", None),
    ]
    assert cloze_sides("{{c1::a::}} {{c2::b}}", 1) == ("[…] b", "<b>a</b> b")
    assert find_clozes("{{c" + "9" * 5000 + "::x}}")[0].number is None  # F9: never int()


@pytest.mark.parametrize(
    "html",
    [
        "<!--" * 15_000,  # html.parser rescans to the end for each unclosed comment
        "<a" * 30_000,  # ... and for each unclosed tag
        '<a x="' * 10_000,
        "</a" * 20_000,
        "<!" * 30_000,
        "[sound:" * 9_000,
        "<" * 60_000,
    ],
)
def test_html_conversion_is_linear(html: str) -> None:
    with no_hang(html[:10]):
        text, tokens = convert_html(html)
    assert tokens <= len(html)  # at most one token per character: the loop is bounded
    assert "<" not in text.replace("\\<", "") or not text


def test_html_conversion_keeps_what_markdown_can_say() -> None:
    html = (
        '<div>a<br>b</div><ul><li>x</li><li>y</li></ul><a href="https://e.org/a b">l</a>'
        ' <img alt="pic"> &amp; 1 < 2 <script>alert("<b>")</script><!-- gone -->end'
    )
    assert html_markdown(html) == (
        "a\n\nb\n\n- x\n- y\n\n[l](https://e.org/a%20b) \\[image: pic\\] \\& 1 \\< 2 end"
    )


def test_conversion_work_is_budgeted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # F10: thousands of notes of slow HTML, each under the field cap: the total is capped.
    rows = [(i, f"g{i}", 1, "", f"<b>q{i}</b>" * 100 + "\x1fa") for i in range(1, 51)]
    path = package(tmp_path / "many.apkg", legacy_db(rows))
    notes, _ = apkg.read_package(path)
    assert len(notes) == 50
    monkeypatch.setattr(apkg, "MAX_WORK", 20 * 100 * (9 + 3 * apkg.TAG_WORK))
    code, _, err = run(["import", str(path)], capsys)
    line = one_line(err)
    assert code == 2 and "note 2" in line and "needs too much work to convert" in line, line


# ----------------------------------------------------------------------------- values


def test_one_bad_note_does_not_lose_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        (1, "g1", 2, "", "{{c" + "7" * 5000 + "::x}}\x1f"),  # F9
        (2, "g2", 1, None, None),  # F8: NULL
        (3, "g3", 1, b"t1 t2", "caf\xe9?\x1fyes".encode()),  # a UTF-8 blob is text
        (4, "g4", 1, "", b"\xff\xfeQ\x1fA"),  # not UTF-8
        (5, None, 2, "", "{{c1::Paris}} is in {{c2::France}}\x1f"),
    ]
    path = package(tmp_path / "mixed.apkg", legacy_db(rows))
    code, out, err = run(["import", str(path), "-o", "-"], capsys)
    assert code == 0, err
    cards, problems = load_text(out, "x.yaml")
    assert not problems
    assert [c.front for c in cards] == ["café?", "\\[…\\] is in France", "Paris is in \\[…\\]"]
    assert cards[0].tags == ("t1", "t2")
    assert "None" not in out and "\\xff" not in out
    assert "a cloze number longer than 4 digits" in err and "notes.flds: not UTF-8 text" in err


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"notetypes": ((1, "Basic", 12345678901234),)}, None),  # F2, newer schema
        ({"notetypes": ((float("inf"), "Basic", b""),)}, "notetypes.id: not an integer"),
        ({"fields": ((1, float("nan"), "Front"),)}, "fields.ord: not an integer"),
        ({"decks": ((1.5, "D"),)}, "decks.id: not an integer"),
        ({"decks": ((1, b"\xff"),)}, "a deck name: not UTF-8 text"),
    ],
)
def test_newer_schema_values_are_type_checked(
    schema: dict[str, object],
    message: str | None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fields = ((1, 0, "Front"), (1, 1, "Back"))
    db = new_db([(1, "g", 1, "", "Q\x1fA")], **{"fields": fields, **schema})  # type: ignore[arg-type]
    path = package(tmp_path / "n.apkg", db, member="collection.anki21b")
    code, _, err = run(["import", str(path), "-o", "-"], capsys)
    if message is None:
        assert code == 0, err
    else:
        assert code == 2 and message in one_line(err), err


def test_json_keys_must_be_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    models = (
        '{"1" : {"name": "Basic", "flds": [{"name": "Front"}, {"name": "Back"}]}, "'
        + ("9" * 5000)
        + '": {}}'
    )
    path = package(tmp_path / "k.apkg", legacy_db([(1, "g", 1, "", "Q\x1fA")], models=models))
    code, _, err = run(["import", str(path)], capsys)
    assert code == 2 and "a note type id '9999" in one_line(err), err


@pytest.mark.parametrize("method", [14, 93, 98, 99])
def test_zip_members_of_other_methods(
    method: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = package(tmp_path / "m.apkg", legacy_db([(1, "g", 1, "", "Q\x1fA")]))
    set_method(path, method)
    code, _, err = run(["import", str(path)], capsys)
    assert code == 2 and "damaged package" in one_line(err), err


def test_strong_encryption_flag_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = package(tmp_path / "e.apkg", legacy_db([(1, "g", 1, "", "Q\x1fA")]))
    set_flag_bits(path, 0x41)
    code, _, err = run(["import", str(path)], capsys)
    assert code == 2 and "encrypted member" in one_line(err), err


# ----------------------------------------------------------------------------- the card file


def _csv(tmp_path: Path, text: str = "What is 2+2?,four\n") -> Path:
    path = tmp_path / "deck.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_import_never_replaces_a_file_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # F16: -o onto a hand-written deck replaced it with exit 0.
    mine = tmp_path / "mydeck.yaml"
    mine.write_text("deck: mine\ncards: []\n", encoding="utf-8")
    code, _, err = run(["import", str(_csv(tmp_path)), "-o", str(mine)], capsys)
    assert code == 2 and "already exists; --force replaces it" in one_line(err)
    assert mine.read_text(encoding="utf-8") == "deck: mine\ncards: []\n"
    code, _, err = run(["import", str(_csv(tmp_path)), "-o", str(mine), "--force"], capsys)
    assert code == 0, err
    assert "what-is-2-2" in mine.read_text(encoding="utf-8")


@pytest.mark.parametrize("kind", ["symlink", "dangling", "fifo", "folder"])
def test_import_never_writes_through_a_link_or_special_file(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out.yaml"
    victim = tmp_path / "victim.txt"
    victim.write_text("keep", encoding="utf-8")
    if kind == "symlink":
        target.symlink_to(victim)
    elif kind == "dangling":
        target.symlink_to(tmp_path / "nowhere.yaml")
    elif kind == "fifo":
        os.mkfifo(target)
    else:
        target.mkdir()
    code, _, err = run(["import", str(_csv(tmp_path)), "-o", str(target), "--force"], capsys)
    assert code == 2, err
    one_line(err)
    assert victim.read_text(encoding="utf-8") == "keep"
    assert not (tmp_path / "nowhere.yaml").exists()


def test_default_output_is_the_card_folder_and_passes_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], card_folder: Path
) -> None:
    card_folder.mkdir(parents=True)
    (card_folder / "other.yaml").write_text(
        "deck: other\ncards:\n  - id: what-is-2-2\n    type: basic\n    front: taken\n",
        encoding="utf-8",
    )
    code, out, err = run(["import", str(_csv(tmp_path)), "--deck", "mine"], capsys)
    written = card_folder / "mine.yaml"
    assert code == 0 and not out and str(written) in err, err
    text = written.read_text(encoding="utf-8")
    assert "- id: what-is-2-2-2\n" in text  # the id in the other deck is not reused
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)}
    checked = subprocess.run(
        [sys.executable, "-m", "quizcoll", "check", str(written)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    code, _, err = run(["import", str(_csv(tmp_path)), "--deck", "mine"], capsys)
    assert code == 2 and "already exists" in one_line(err)
    code, _, err = run(["import", str(_csv(tmp_path)), "--deck", "mine", "--force"], capsys)
    assert code == 0 and written.read_text(encoding="utf-8") == text  # the same ids again


def test_a_card_file_that_would_not_load_is_never_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from deck import interchange

    real = interchange.importing.card_file_text
    monkeypatch.setattr(
        interchange.importing,
        "card_file_text",
        lambda *a, **k: real(*a, **k).replace("type: basic", "type: bogus"),
    )
    out = tmp_path / "out.yaml"
    code, _, err = run(["import", str(_csv(tmp_path)), "-o", str(out)], capsys)
    assert code == 2 and "would not pass check" in one_line(err) and not out.exists()
