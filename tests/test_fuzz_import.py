"""Fuzz campaign (issue 26): generated Anki packages and CSV files, and ``import`` command
lines over them. Whatever the input: the reader returns notes or raises one
:class:`ImportFailure` line; the notes always make a card file that loads with no problem
(the file ``import`` writes passes ``check``); the command exits 0, 1 or 2 with no
traceback, never writes through a link and never replaces a file without --force.

Packages are built from parts, each drawn hostile or sane: the schema (legacy JSON note
types, or the newer tables), every column value (text, UTF-8 and non-UTF-8 blobs, NULL,
huge and infinite numbers), field HTML and cloze markup from fragments that once hung or
crashed a reader, the JSON of note types and decks (nesting bombs too), the zip method,
flags and member name (zstd for ``.anki21b``), and a final corruption of the zip bytes.
``QUIZCOLL_FUZZ_SCALE=20`` runs a deep campaign; CI runs scale 1 (counts below).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from apkg_builder import BASIC_CLOZE_MODELS, legacy_db, new_db, package, set_flag_bits
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from deck.cards.loader import load_text
from deck.interchange.importing import ImportFailure, build_cards, card_file_text
from deck.interchange.importing.apkg import read_package
from deck.interchange.importing.table import read_csv
from quizcoll.cli.main import main
from quizcoll.executables import build_registry

SCALE = max(1, int(os.environ.get("QUIZCOLL_FUZZ_SCALE", "1")))
APKG_EXAMPLES = 350 * SCALE
CSV_EXAMPLES = 350 * SCALE
IMPORT_ARGV_EXAMPLES = 40 * SCALE  # each run loads the collection's ids
FUZZ_EXAMPLES = APKG_EXAMPLES + CSV_EXAMPLES + IMPORT_ARGV_EXAMPLES
REGISTRY = build_registry()
HOSTILE = Path(__file__).resolve().parent / "data" / "hostile"


def _settings(n: int) -> settings:
    return settings(
        max_examples=n,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# Pieces of field text that broke a converter once, or might: unclosed constructs, cloze
# markup, entities, media, placeholders, YAML-hostile and line-breaking characters.
FRAGMENTS = [
    "<b>", "</b>", "<i>x</i>", "<!--", "-->", "<a", "<a href='https://e.org/a b'>", "</a>",
    "<a x=\"", "<", ">", "</", "<!", "<?x", "<br>", "<br/>", "<div>", "</div>", "<ul><li>",
    "</li></ul>", "<ol><li>", "<table><tr><td>", "</td></tr></table>", "<pre>", "</pre>",
    "<code>", "</code>", "<script>", "</script>", "<style>x{}</style>", "<img src=\"p.png\">",
    "{{c1::", "{{c2::", "{{c", "{{c99999::", "{{c" + "9" * 30 + "::", "::", "}}", "{{", "}",
    "{x}", "{{y}}", "[sound:a.mp3]", "[sound:", "&amp;", "&#99999999;", "&#x110000;", "&",
    "\\(", "\\)", "\x00", "\x1f", "\x0c", "\u2028", "\u0085", "\ufeff", "\r\n", "\r", "\t",
    "!!python/object:os.system", "&a [*a]", "%TAG", "- ", "# ", "`", "*", "é", "中文", "\u202e",
]  # fmt: skip
_field = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=8), max_size=12).map("".join)
_number = st.sampled_from(
    [0, 1, 2, -1, 2**63 - 1, -(2**63), 1.5, float("inf"), float("-inf"), float("nan"), 1e308]
)
_blob = st.binary(max_size=24) | _field.map(lambda s: s.encode("utf-8", "surrogatepass"))
_value = st.one_of(_field, _number, st.none(), _blob)


@st.composite
def _fields(draw: st.DrawFn) -> Any:
    kind = draw(st.sampled_from(["text", "text", "text", "blob", "null", "number"]))
    text = "\x1f".join(draw(st.lists(_field, min_size=1, max_size=3)))
    if kind == "blob":
        return draw(_blob) if draw(st.booleans()) else text.encode("utf-8", "surrogatepass")
    return {"text": text, "null": None, "number": draw(_number)}[kind]


@st.composite
def _note(draw: st.DrawFn, i: int) -> tuple[Any, ...]:
    sane = draw(st.integers(0, 3)) > 0
    nid = i + 1 if sane else draw(_value)
    mid = draw(st.sampled_from([1, 2])) if sane else draw(_value)
    guid = f"g{i}" if sane else draw(_value)
    tags = draw(st.sampled_from(["", "a b", "x::y"])) if sane else draw(_value)
    return (nid, guid, mid, tags, draw(_fields()))


_json_junk = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
).map(lambda v: __import__("json").dumps(v))
_models = st.one_of(
    st.just(BASIC_CLOZE_MODELS),
    _json_junk,
    st.sampled_from(["[" * 5000, '{"1":' * 3000, "", "not json", '{"1e999": {}}']),
    st.just('{"' + "9" * 40 + '": {"name": "B", "flds": [{"name": "Front"}, {"name": "Back"}]}}'),
    _value,
)
_config = st.one_of(
    st.sampled_from([b"", b"\x08\x01", b"\x08\x00", b"\x80", b"\x0a\xff\xff\xff\xff\x0f"]),
    st.binary(max_size=16),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.none(),
    _field,
)


@st.composite
def packages(draw: st.DrawFn, folder: Path) -> Path:
    notes = [draw(_note(i)) for i in range(draw(st.integers(0, 5)))]
    if draw(st.booleans()):
        db = legacy_db(notes, models=draw(_models), decks=draw(st.one_of(st.just("{}"), _models)))
        member = draw(st.sampled_from(["collection.anki2", "collection.anki21"]))
    else:
        ids = st.one_of(st.sampled_from([1, 2]), _value)
        db = new_db(
            notes,
            notetypes=[(draw(ids), draw(_field), draw(_config)) for _ in range(draw(st.integers(0, 3)))],
            fields=[(draw(ids), draw(st.integers(0, 2) | _number), draw(st.sampled_from(["Front", "Back", "Text", "Extra"]) | _field)) for _ in range(draw(st.integers(0, 4)))],
            decks=[(draw(ids), draw(_field | _blob)) for _ in range(draw(st.integers(0, 2)))],
        )  # fmt: skip
        member = draw(st.sampled_from(["collection.anki21b", "collection.anki2"]))
    method = draw(
        st.sampled_from(
            [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA]
        )
    )
    extra = {"media": b"{}"} if draw(st.booleans()) else {}
    path = package(folder / "p.apkg", db, member=member, method=method, extra_members=extra)
    damage = draw(st.sampled_from(["none", "none", "none", "flip", "truncate", "flags"]))
    data = bytearray(path.read_bytes())
    if damage == "flip":
        for _ in range(draw(st.integers(1, 4))):
            at = draw(st.integers(0, len(data) - 1))
            data[at] ^= draw(st.integers(1, 255))
        path.write_bytes(bytes(data))
    elif damage == "truncate":
        path.write_bytes(bytes(data[: draw(st.integers(0, len(data) - 1))]))
    elif damage == "flags":
        set_flag_bits(path, draw(st.sampled_from([0x1, 0x8, 0x40, 0x800])))
    event(f"apkg {member} {damage}")
    return path


def _card_file_loads(notes: list[Any], where: str) -> None:
    deck, cards, _ = build_cards(notes)
    if not cards:
        return
    try:
        text = card_file_text(deck, cards, where)
    except ImportFailure as exc:  # too large for a card file: one line
        assert "\n" not in str(exc)
        return
    loaded, problems = load_text(text, "imported.yaml", REGISTRY)
    assert not problems, problems[:3]
    assert len(loaded) == len(cards)


@_settings(APKG_EXAMPLES)
@given(st.data())
def test_generated_packages_import_or_fail_in_one_line(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = data.draw(packages(Path(tmp)), label="package")
        try:
            notes, skipped = read_package(path)
        except ImportFailure as exc:
            assert "\n" not in str(exc) and str(exc).startswith(str(path)), str(exc)
            event("refused")
            return
        event(f"imported {min(len(notes), 3)}+ notes")
        assert all("\n" not in s.line() for s in skipped)
        _card_file_loads(notes, path.name)


_cell = st.lists(
    st.sampled_from([",", ";", "\t", '"', '""', "\n", "\r\n", "\r", "\x0c", "\u2028", "\x1c",
                     "\x00", "#", "front", "back", "tags", "deck", "<b>x</b>", "{y}", "a::b",
                     "é", " "]) | st.text(max_size=5),
    max_size=8,
).map("".join)  # fmt: skip
_directive = st.sampled_from(
    ["#separator:tab", "#separator:Semicolon", "#separator:|", "#separator:", "#html:true",
     "#html:false", "#tags column:3", "#tags column:0", "#tags column:²", "#tags column:99999",
     "#tags column:" + "9" * 5000, "#deck:Spanish::Verbs", "#deck:", "#notetype:Basic", "#x"]
)  # fmt: skip


@st.composite
def csv_files(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(_directive, max_size=3))
    if draw(st.booleans()):
        lines.append(
            draw(
                st.sampled_from(
                    ["front,back,tags", "back;front", "front,answer", "Front\tBack\tDeck"]
                )
            )
        )
    lines += draw(st.lists(_cell, max_size=8))
    text = draw(st.sampled_from(["\n", "\r\n", "\r"])).join(lines)
    data = text.encode("utf-8", "surrogatepass")
    kind = draw(st.sampled_from(["plain", "plain", "bom", "latin1", "junk"]))
    if kind == "bom":
        data = b"\xef\xbb\xbf" + data
    elif kind == "latin1":
        data += "café".encode("latin-1")
    elif kind == "junk":
        data += draw(st.binary(max_size=8))
    return data


@_settings(CSV_EXAMPLES)
@given(csv_files())
def test_generated_csv_files_import_or_fail_in_one_line(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cards.csv"
        path.write_bytes(data)
        try:
            notes = read_csv(path)
        except ImportFailure as exc:
            assert "\n" not in str(exc), str(exc)
            event("refused")
            return
        event(f"read {min(len(notes), 3)}+ rows")
        _card_file_loads(notes, path.name)


# -- import command lines ---------------------------------------------------------------

INPUTS = sorted(p.name for p in HOSTILE.iterdir())


@contextlib.contextmanager
def _sandbox(root: Path) -> Any:
    saved = {k: os.environ.get(k) for k in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "QUIZCOLL_DB")}
    cwd = os.getcwd()
    os.environ.update(
        XDG_DATA_HOME=str(root / "data"),
        XDG_CONFIG_HOME=str(root / "config"),
        QUIZCOLL_DB=str(root / "r.db"),
    )
    os.chdir(root)
    try:
        yield
    finally:
        os.chdir(cwd)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _prepare(root: Path) -> None:
    (root / "good.csv").write_text("What is 2+2?,four,math\nCapital of France?,Paris\n")
    (root / "mine.yaml").write_text("deck: mine\ncards: []\n")
    (root / "victim.txt").write_text("keep")
    (root / "link.yaml").symlink_to(root / "victim.txt")
    (root / "dangling.yaml").symlink_to(root / "nowhere.yaml")
    os.mkfifo(root / "fifo.yaml")
    (root / "dir.yaml").mkdir()


@_settings(IMPORT_ARGV_EXAMPLES)
@given(
    st.sampled_from(["good.csv", *INPUTS, "missing.apkg", "fifo.yaml", "/dev/zero"]),
    st.sampled_from([None, "-", "out.yaml", "mine.yaml", "link.yaml", "dangling.yaml",
                     "fifo.yaml", "dir.yaml", "deep/er/out.yaml", "~nosuchuser-qz/x.yaml", ""]),
    st.booleans(),
    st.sampled_from([None, "mine", "Bad Name", "../x", "", "a" * 60]),
)  # fmt: skip
def test_import_command_lines(
    source: str, output: str | None, force: bool, deck: str | None
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _prepare(root)
        src = source if source.startswith("/") else str(HOSTILE / source)
        if source in ("good.csv", "missing.apkg", "fifo.yaml"):
            src = str(root / source)
        argv = ["import", src]
        argv += [] if output is None else ["-o", output]
        argv += ["--force"] if force else []
        argv += [] if deck is None else ["--deck", deck]
        err = io.StringIO()
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = io.StringIO(), err
        try:
            with _sandbox(root):
                code = main(argv)
        finally:
            sys.stdout, sys.stderr = saved
        event(f"import exit {code}")
        assert code in (0, 1, 2) and "Traceback" not in err.getvalue(), (argv, err.getvalue())
        assert (root / "victim.txt").read_text() == "keep" and (root / "link.yaml").is_symlink()
        assert (root / "fifo.yaml").is_fifo() and not (root / "nowhere.yaml").exists()
        if not force:
            assert (root / "mine.yaml").read_text() == "deck: mine\ncards: []\n"
        for written in [*root.rglob("*.yaml")]:
            if written.is_file() and not written.is_symlink() and written.name != "mine.yaml":
                _, problems = load_text(written.read_text(), str(written), REGISTRY)
                assert not problems, (argv, problems[:2])
