"""quizcoll import: Anki packages written by real Anki (both package formats) and CSV files
become card files that `quizcoll check` accepts; hostile files fail with one line."""

from __future__ import annotations

import html
import re
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deck.cards.loader import load_text
from deck.cards.placeholders import placeholders
from deck.interchange.export.anki import markdown_html
from deck.interchange.importing import (
    ImportedNote,
    apkg,
    build_cards,
    card_file_text,
    deck_name,
    slug,
    table,
    tag_name,
)
from deck.interchange.importing.markup import (
    clean_text,
    cloze_sides,
    escape_markdown,
    html_markdown,
)

ROOT = Path(__file__).resolve().parent.parent


def quizcoll(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quizcoll", *args], capture_output=True, text=True, cwd=cwd
    )


def run_main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    from quizcoll.cli.main import main

    code = main(argv)
    return code, capsys.readouterr().err


# ----------------------------------------------------------------------------- fixtures


def _anki_source(folder: Path) -> Any:
    """A real Anki collection with basic, cloze, reversed and an unsupported note type."""
    collection = pytest.importorskip("anki.collection")
    col = collection.Collection(str(folder / "source.anki2"))
    models = col.models
    basic, cloze = models.by_name("Basic"), models.by_name("Cloze")
    spanish = col.decks.id("Languages::Spanish")

    def add(model: Any, deck: int, tags: list[str] | None = None, **fields: str) -> None:
        note = col.new_note(model)
        for name, value in fields.items():
            note[name.replace("_", " ")] = value
        note.tags = tags or []
        col.add_note(note, deck)

    add(
        basic,
        spanish,
        ["spanish", "greet::basic"],
        Front="What is <b>hola</b>?",
        Back="hello<br>hi",
    )
    add(
        cloze,
        spanish,
        Text="Capital of {{c1::France::country}} is {{c2::Paris}}.",
        Back_Extra="Europe",
    )
    add(
        models.by_name("Basic (and reversed card)"),
        col.decks.id("Default"),
        Front="2*3 = {x}",
        Back="6",
    )
    add(basic, spanish, Front="What is <b>hola</b>?", Back="the same question twice")
    add(basic, spanish, Front='Code: <code>f"{y}"</code> and \\(x_1^2\\)', Back="MathJax")
    add(basic, spanish, Front="中文问题", Back="答案")
    vocab = models.new("Vocab 3")
    for name in ("Word", "Meaning", "Example"):
        models.add_field(vocab, models.new_field(name))
    template = models.new_template("Card 1")
    template["qfmt"], template["afmt"] = "{{Word}}", "{{Meaning}}"
    models.add_template(vocab, template)
    models.add(vocab)
    add(models.by_name("Vocab 3"), spanish, Word="gato", Meaning="cat", Example="el gato")
    return col


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The same notes in Anki's newer (zstd) and legacy package formats."""
    from anki.collection import ExportAnkiPackageOptions

    folder = tmp_path_factory.mktemp("anki")
    col = _anki_source(folder)
    out = {}
    for name, legacy in (("new", False), ("legacy", True)):
        path = folder / f"{name}.apkg"
        options = ExportAnkiPackageOptions(
            with_scheduling=False, with_deck_configs=False, with_media=False, legacy=legacy
        )
        col.export_anki_package(out_path=str(path), options=options, limit=None)
        out[name] = path
    col.close()
    members = zipfile.ZipFile(out["new"]).namelist()
    assert "collection.anki21b" in members  # the zstd format really is exercised
    return out


# ----------------------------------------------------------------------------- Anki


@pytest.mark.parametrize("fmt", ["new", "legacy"])
def test_anki_package_becomes_a_card_file_check_accepts(
    fmt: str, packages: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "deck.yaml"
    done = quizcoll("import", str(packages[fmt]), "-o", str(out))
    assert done.returncode == 0, done.stderr
    err = done.stderr.strip().splitlines()
    assert err[0].endswith(
        "skipped 1 note(s) of type 'Vocab 3': not a basic or cloze note type "
        "(fields: Word, Meaning, Example)"
    )
    assert err[-1] == f"imported 7 card(s) (5 basic, 2 cloze) to {out}"
    checked = quizcoll("check", str(out))
    assert checked.returncode == 0, checked.stdout + checked.stderr

    cards, problems = load_text(out.read_text(encoding="utf-8"), str(out))
    assert not problems
    by_id = {c.id: c for c in cards}
    assert list(by_id)[:6] == [
        "what-is-hola",
        "capital-of-country-is-paris",
        "capital-of-france-is",
        "2-3-x",
        "what-is-hola-2",
        "code-f-y-and-x-1-2",
    ]
    assert re.fullmatch(r"card-[0-9a-f]{8}", list(by_id)[6])  # no Latin letters: a hash
    hola = by_id["what-is-hola"]
    assert (hola.deck, hola.front, hola.back) == (
        "languages-spanish",
        "What is **hola**?",
        "hello\n\nhi",
    )
    assert sorted(hola.tags) == ["greet/basic", "spanish"]
    assert by_id["2-3-x"].deck == "default" and by_id["2-3-x"].front == "2\\*3 = \\{x\\}"
    c1, c2 = by_id["capital-of-country-is-paris"], by_id["capital-of-france-is"]
    assert c1.front == "Capital of \\[country\\] is Paris."
    assert c1.back == "Capital of **France** is Paris.\n\nEurope"
    assert c2.front == "Capital of France is \\[…\\]." and "**Paris**" in c2.back
    code = by_id["code-f-y-and-x-1-2"]
    assert code.front == 'Code: `f"{{y}}"` and \\\\(x\\_1^2\\\\)'
    # Rendered, the card reads as it did in Anki: braces, MathJax delimiters and all.
    assert markdown_html(code.front.replace("{{", "{").replace("}}", "}")) == (
        "<p>Code: <code>f&quot;{y}&quot;</code> and \\(x_1^2\\)</p>"
    )


def test_the_same_package_gives_the_same_file(packages: dict[str, Path], tmp_path: Path) -> None:
    first = quizcoll("import", str(packages["new"]), "-o", "-")
    again = quizcoll("import", str(packages["legacy"]), "--deck", "spanish", "-o", "-")
    assert first.returncode == again.returncode == 0
    assert first.stdout == quizcoll("import", str(packages["new"]), "-o", "-").stdout
    assert re.findall(r"- id: (\S+)", first.stdout) == re.findall(r"- id: (\S+)", again.stdout)
    assert "deck: spanish\n" in again.stdout and "  deck: " not in again.stdout


def test_round_trip_anki_quizcoll_anki(packages: dict[str, Path], tmp_path: Path) -> None:
    """What survives Anki → quizcoll → Anki: text, formatting, tags, deck names."""
    collection = pytest.importorskip("anki.collection")
    from anki.import_export_pb2 import ImportAnkiPackageOptions

    cards_file = tmp_path / "spanish.yaml"
    assert quizcoll("import", str(packages["new"]), "-o", str(cards_file)).returncode == 0
    back_out = tmp_path / "back.apkg"
    done = quizcoll("export", "--format", "apkg", "--cards", str(cards_file), "-o", str(back_out))
    assert done.returncode == 0, done.stderr
    col = collection.Collection(str(tmp_path / "target.anki2"))
    try:
        request = collection.ImportAnkiPackageRequest(
            package_path=str(back_out), options=ImportAnkiPackageOptions()
        )
        assert len(col.import_anki_package(request).log.new) == 7 == col.note_count()
        notes = [col.get_note(n) for n in col.find_notes("")]
        by_question = {n["Question"]: n for n in notes}
        hola = next(n for n in notes if n["Card id"] == "what-is-hola")
        assert hola["Question"] == "<p>What is <strong>hola</strong>?</p>"
        assert hola["Worked answer"] == "<p>hello</p>\n<p>hi</p>"
        assert sorted(hola.tags) == ["greet/basic", "spanish"]
        assert col.decks.name(hola.cards()[0].did) == "quizcoll::languages-spanish"
        assert "<p>2*3 = {x}</p>" in by_question
        assert "<p>Code: <code>f&quot;{y}&quot;</code> and \\(x_1^2\\)</p>" in by_question
    finally:
        col.close()


def test_quizcoll_notes_come_back_with_their_ids(tmp_path: Path) -> None:
    pytest.importorskip("genanki")
    fixture = ROOT / "tests" / "fixtures" / "export" / "cards.yaml"
    apkg = tmp_path / "rich.apkg"
    args = ["export", "--format", "apkg", "--cards", str(fixture), "-o", str(apkg)]
    assert quizcoll(*args, "--instances", "2").returncode == 0
    done = quizcoll("import", str(apkg), "-o", str(tmp_path / "rich.yaml"))
    assert done.returncode == 0, done.stderr
    cards, problems = load_text((tmp_path / "rich.yaml").read_text(encoding="utf-8"), "rich.yaml")
    assert not problems
    ids = [c.id for c in cards]
    assert set(ids) == {
        "other-deck-card", "gib-of-decimal-bytes", "gib-of-decimal-bytes-2", "ring-formula",
        "which-reduces", "long-answer",
    }  # fmt: skip
    formula = next(c for c in cards if c.id == "ring-formula")
    assert formula.back.startswith("**Answer:** \\\\(\\\\frac\\{2(N - 1)\\}\\{N\\} \\\\cdot S\\\\)")
    assert quizcoll("check", str(tmp_path / "rich.yaml")).returncode == 0


# ----------------------------------------------------------------------------- hostile packages


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def _sqlite_bytes(tmp_path: Path, statements: list[str]) -> bytes:
    db = tmp_path / "x.sqlite"
    db.unlink(missing_ok=True)
    conn = sqlite3.connect(db)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return db.read_bytes()


def test_hostile_packages_fail_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    not_zip = tmp_path / "a.apkg"
    not_zip.write_bytes(b"PK\x03\x04 not really")
    no_collection = _zip(tmp_path / "b.apkg", {"media": b"{}", "../../escape": b"x"})
    not_sqlite = _zip(tmp_path / "c.apkg", {"collection.anki2": b"just text" * 100})
    view = _sqlite_bytes(
        tmp_path,
        [
            "CREATE TABLE col (models, decks)",
            "CREATE TABLE cards (nid, did, ord)",
            "CREATE VIEW notes AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x AS id FROM r",
        ],
    )
    as_view = _zip(tmp_path / "d.apkg", {"collection.anki2": view})
    generated = _sqlite_bytes(
        tmp_path,
        [
            "CREATE TABLE col (models, decks)",
            "INSERT INTO col VALUES ('{}', '{}')",
            "CREATE TABLE cards (nid, did, ord)",
            "CREATE TABLE notes (id, guid, mid, tags,"
            " flds GENERATED ALWAYS AS (printf('%.*c', 5000, 'x')) VIRTUAL)",  # any width
            "INSERT INTO notes (id, guid, mid, tags) VALUES (1, 'g', 1, '')",
        ],
    )
    huge_value = _zip(tmp_path / "f.apkg", {"collection.anki2": generated})
    bad_zstd = _zip(tmp_path / "e.apkg", {"collection.anki21b": b"\x28\xb5\x2f\xfd garbage"})
    cases = [
        (not_zip, "not an Anki package (not a zip file)"),
        (no_collection, "not an Anki package (no collection.anki2 inside)"),
        (not_sqlite, "not an Anki collection"),
        (as_view, "not an Anki collection (no 'notes' table)"),
        (bad_zstd, "damaged package"),
        (huge_value, "not an Anki collection (computed columns in 'notes')"),
        (tmp_path / "missing.apkg", "cannot read"),
        (tmp_path / "deck.txt.bin", "expected an .apkg or .csv file"),
    ]
    for path, message in cases:
        code, err = run_main(["import", str(path)], capsys)
        assert code == 2, path
        assert message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path.parent / "escape").exists()


def test_caps_on_package_collection_and_notes(
    packages: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for cap, value, message in (
        ("MAX_PACKAGE_BYTES", 100, "packages are limited to 100"),
        ("MAX_COLLECTION_BYTES", 4096, "its collection is larger than"),
        ("MAX_NOTES", 3, "more than 3 notes"),
    ):
        with monkeypatch.context() as m:
            m.setattr(apkg, cap, value)
            for fmt in ("new", "legacy"):
                code, err = run_main(["import", str(packages[fmt])], capsys)
                assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def _legacy_package(tmp_path: Path, notes: int) -> Path:
    """A minimal schema-11 package (as genanki and old Anki write) with ``notes`` basic notes."""
    models = '{"1": {"name": "Basic", "type": 0, "flds": [{"name": "Front"}, {"name": "Back"}]}}'
    db = _sqlite_bytes(
        tmp_path,
        [
            "CREATE TABLE col (models, decks)",
            f'INSERT INTO col VALUES (\'{models}\', \'{{"1": {{"name": "Big"}}}}\')',
            "CREATE TABLE cards (nid, did, ord)",
            "CREATE TABLE notes (id, guid, mid, tags, flds)",
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < "
            f"{notes}) INSERT INTO notes SELECT i, 'g' || i, 1, '', 'Q ' || i || char(31) || 'A'"
            " FROM n",
            "INSERT INTO cards SELECT id, 1, 0 FROM notes",
        ],
    )
    return _zip(tmp_path / "big.apkg", {"collection.anki2": db})


def test_sqlite_work_is_budgeted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    big = _legacy_package(tmp_path, 3000)
    notes, skipped = apkg.read_package(big)
    assert len(notes) == 3000 and not skipped and notes[-1].front == "Q 3000"
    assert {n.deck for n in notes} == {"Big"}
    monkeypatch.setattr(apkg, "SQLITE_STEPS", 10_000)
    code, err = run_main(["import", str(big)], capsys)
    assert code == 2 and "reading the collection took too much work" in err


def test_newer_format_without_zstandard_says_what_to_do(
    packages: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "zstandard", None)
    code, err = run_main(["import", str(packages["new"])], capsys)
    assert code == 2 and "needs the zstandard package" in err
    assert '"Support older Anki versions"' in err and len(err.strip().splitlines()) == 1


# ----------------------------------------------------------------------------- CSV


@pytest.mark.parametrize(
    ("text", "fronts", "tags"),
    [
        ("front,back,tags\nWhat is 2*2?,4,math arith\n", ["What is 2\\*2?"], [("math", "arith")]),
        ("back;front\nParis;Capital of France?\n", ["Capital of France?"], [()]),
        ("Q1\tA1\tt1,t2\nQ2\tA2\n", ["Q1", "Q2"], [("t1", "t2"), ()]),
        (
            "#separator:tab\n#html:true\n#tags column:3\n<b>Q</b>\t<i>A</i>\tx::y\n",
            ["**Q**"],
            [("x/y",)],
        ),
    ],
)
def test_csv_rows_become_cards(
    text: str, fronts: list[str], tags: list[tuple[str, ...]], tmp_path: Path
) -> None:
    path = tmp_path / "cards.csv"
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "cards.yaml"
    done = quizcoll("import", str(path), "-o", str(out), "--deck", "mine")
    assert done.returncode == 0, done.stderr
    cards, problems = load_text(out.read_text(encoding="utf-8"), str(out))
    assert not problems
    assert [c.front for c in cards] == fronts
    assert [c.tags for c in cards] == tags and {c.deck for c in cards} == {"mine"}
    assert quizcoll("check", str(out)).returncode == 0


def test_bad_csv_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = {
        "one-column.csv": ("front,back\nok,fine\nlonely\n", "one-column.csv:3:1: expected front,back[,tags], found 1 column(s)"),
        "header.csv": ("front,answer\nq,a\n", "the header needs both 'front' and 'back'"),
        "empty.csv": ("\n\n", "no basic or cloze notes to import"),
        "latin1.csv": (None, "not UTF-8 text"),
        "big.csv": ("q,a\n" * 100, "larger than"),
    }  # fmt: skip
    monkeypatch.setattr(table, "MAX_CSV_BYTES", 200)
    for name, (text, message) in cases.items():
        path = tmp_path / name
        if text is None:
            path.write_bytes("café,crème\n".encode("latin-1"))
        else:
            path.write_text(text, encoding="utf-8")
        code, err = run_main(["import", str(path)], capsys)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (name, err)
    code, err = run_main(["import", str(tmp_path / "header.csv"), "--deck", "Bad Name"], capsys)
    assert code == 2


# ----------------------------------------------------------------------------- units


def test_names() -> None:
    assert slug("What is **hola**?", "k") == "what-is-hola"
    assert slug("Ünïcödé café — résumé", "k") == "unicode-cafe-resume"
    assert re.fullmatch(r"card-[0-9a-f]{8}", slug("中文", "k"))
    assert len(slug("word " * 40, "k")) <= 48
    assert deck_name("Languages::Spanish Verbs") == "languages-spanish-verbs"
    assert deck_name("") == "imported" and deck_name("Default") == "default"
    assert tag_name("a::b") == "a/b" and tag_name("::") is None and tag_name("C++") == "C++"


def test_cloze_sides() -> None:
    text = "{{c1::a::hint}} and {{c2::b}} and {{c1::c}}"
    assert cloze_sides(text, 1) == ("[hint] and b and […]", "<b>a</b> and b and <b>c</b>")
    assert cloze_sides(text, 2) == ("a and […] and c", "a and <b>b</b> and c")


_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"), max_size=200
)


@settings(max_examples=300)
@given(_text)
def test_escaped_text_renders_as_itself_and_has_no_placeholder(text: str) -> None:
    text = clean_text(text)
    escaped = escape_markdown(text)
    assert placeholders(escaped) == []
    rendered = markdown_html(escaped)
    shown = html.unescape(re.sub(r"<[^>]+>", "", rendered))
    assert (
        " ".join(shown.split()) == " ".join(text.split()) or not text.strip() or _block_syntax(text)
    )


def _block_syntax(text: str) -> bool:
    # Line-start syntax (lists, headings, code indents, thematic breaks) is not escaped.
    return any(re.match(r"\s*([-+=*]|\d+[.)]|\s{4})|\s*\t", line) for line in text.splitlines())


@settings(max_examples=200)
@given(st.text(max_size=300))
def test_junk_html_converts_without_error(text: str) -> None:
    assert isinstance(html_markdown(text), str)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(_text, _text), min_size=1, max_size=5))
def test_card_file_round_trips_the_text(pairs: list[tuple[str, str]]) -> None:
    notes = [
        ImportedNote(f"k{i}", escape_markdown(clean_text(f)), escape_markdown(clean_text(b)))
        for i, (f, b) in enumerate(pairs)
    ]
    deck, cards, _ = build_cards(notes)
    text = card_file_text(deck, cards, "x.csv")
    loaded, problems = load_text(text, "x.yaml")
    assert not problems, problems
    kept = [n for n in notes if n.front.strip()]
    assert [c.front for c in loaded] == [n.front for n in kept]
    assert [c.back for c in loaded] == [n.back if n.back.strip() else "" for n in kept]
