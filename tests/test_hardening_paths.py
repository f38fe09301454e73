"""Files in and out (issue 12): what the program writes is only ever the regular file the
user named, replaced atomically; what it reads is a regular file of bounded size.

Covers ``deck.base.safeio`` directly and every writer and reader of the CLI: ``export -o``
(file and folder forms), ``history export -o``, ``--db``/``QUIZCOLL_DB``, ``vram --config``,
``list --cards``, ``history import``; and read-only commands that must not create a database.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from deck.base import safeio
from deck.base.safeio import PathError
from deck.review.store import NoDatabase, Store
from quizcoll.cli.main import main

CARD = """\
deck: demo
cards:
  - id: c1
    type: basic
    front: hi
    back: there
"""

needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="mknod needs root"
)


@pytest.fixture
def cards(tmp_path: Path) -> Path:
    path = tmp_path / "cards.yaml"
    path.write_text(CARD, encoding="utf-8")
    return path


def _device(tmp_path: Path) -> Path:
    """A character device like /dev/null, made in tmp_path (never the real one)."""
    dev = tmp_path / "nulldev"
    os.mknod(dev, 0o644 | stat.S_IFCHR, os.makedev(1, 3))
    return dev


def _fifo(tmp_path: Path) -> Path:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    return fifo


def _one_line_error(capsys: pytest.CaptureFixture[str], *needles: str) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "error" in line]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


# -- the writer ---------------------------------------------------------------------------


def test_write_creates_and_replaces_keeping_permissions(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "out.md"
    safeio.write_text(target, "one\n")
    assert target.read_text() == "one\n"
    target.chmod(0o640)
    safeio.write_text(target, "two\n")
    assert target.read_text() == "two\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in target.parent.iterdir()) == ["out.md"]  # no temporary left


def test_write_refuses_a_symlink_and_leaves_it(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_text("keep")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    with pytest.raises(PathError, match="symbolic link"):
        safeio.write_text(link, "new")
    assert link.is_symlink() and real.read_text() == "keep"


def test_write_refuses_a_fifo_and_a_folder(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path)
    with pytest.raises(PathError, match="FIFO"):
        safeio.write_text(fifo, "x")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    with pytest.raises(PathError, match="folder"):
        safeio.write_text(tmp_path, "x")


@needs_root
def test_write_refuses_a_device(tmp_path: Path) -> None:
    dev = _device(tmp_path)
    with pytest.raises(PathError, match="device"):
        safeio.write_text(dev, "x")
    assert stat.S_ISCHR(os.lstat(dev).st_mode)


@pytest.mark.parametrize("err", [errno.ENOSPC, errno.EACCES, errno.EIO])
def test_a_failed_write_leaves_the_old_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, err: int
) -> None:
    target = tmp_path / "out.md"
    target.write_text("old content")

    def fail(fd: int) -> None:
        raise OSError(err, os.strerror(err))

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(PathError) as info:
        safeio.write_text(target, "new content")
    assert os.strerror(err).lower() in str(info.value).lower()
    assert "old file is unchanged" in str(info.value)
    assert target.read_text() == "old content"
    assert [p.name for p in tmp_path.iterdir()] == ["out.md"]


def test_a_failing_check_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "settings.toml"
    target.write_text("old")

    def refuse(tmp: Path) -> None:
        assert tmp.read_text() == "new"
        raise PathError("no")

    with pytest.raises(PathError):
        safeio.write_text(target, "new", check=refuse)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["settings.toml"]


@pytest.mark.parametrize(
    "name", ["../x.md", "a/b.md", "..", ".", "", ".hidden.md", "a\x00b.md", "/etc/passwd"]
)
def test_child_names_never_leave_the_folder(tmp_path: Path, name: str) -> None:
    with pytest.raises(PathError):
        safeio.child(tmp_path, name)


def test_output_dir_refuses_a_file(tmp_path: Path) -> None:
    f = tmp_path / "f"
    f.write_text("x")
    with pytest.raises(PathError, match="not a folder"):
        safeio.output_dir(f)
    assert safeio.output_dir(tmp_path / "new" / "dir").is_dir()


def test_expand_names_the_unknown_user() -> None:
    with pytest.raises(PathError, match="nosuchuser"):
        safeio.expand("~nosuchuser-qz/x")
    with pytest.raises(PathError, match="NUL"):
        safeio.expand("a\x00b")


# -- the reader ---------------------------------------------------------------------------


def test_read_refuses_streams_at_once(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path)  # no writer: a blocking open would wait forever
    with pytest.raises(PathError, match="FIFO"):
        safeio.read_bytes(fifo, limit=100)
    with pytest.raises(PathError, match="device"):
        safeio.read_bytes("/dev/zero", limit=100)
    with pytest.raises(PathError, match="folder"):
        safeio.read_bytes(tmp_path, limit=100)
    with pytest.raises(PathError, match="no such file"):
        safeio.read_bytes(tmp_path / "missing", limit=100)


def test_read_caps_the_size(tmp_path: Path) -> None:
    f = tmp_path / "big"
    f.write_bytes(b"x" * 101)
    with pytest.raises(PathError, match=r"larger than a file may be \(100 bytes\)"):
        safeio.read_bytes(f, limit=100)
    assert safeio.read_bytes(f, limit=101) == b"x" * 101
    f.write_bytes(b"ok \xff")
    with pytest.raises(PathError, match="not UTF-8"):
        safeio.read_text(f, limit=100)


# -- the database path --------------------------------------------------------------------


def test_database_path_refuses_special_files(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path)
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nothing")
    for bad, why in ((fifo, "FIFO"), (dangling, "link to nothing"), (tmp_path, "folder")):
        with pytest.raises(PathError, match=why):
            Store.open(bad)
    assert not (tmp_path / "nothing").exists()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@needs_root
def test_database_on_a_device_is_refused_and_left(tmp_path: Path) -> None:
    dev = _device(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(dev)
    for path in (dev, link):
        with pytest.raises(PathError, match="device"):
            Store.open(path)
    assert stat.S_ISCHR(os.lstat(dev).st_mode)


def test_a_link_to_a_database_is_followed(tmp_path: Path) -> None:
    real = tmp_path / "real.db"
    Store.open(real).close()
    link = tmp_path / "link.db"
    link.symlink_to(real)
    with Store.open(link) as store:
        assert store.review_count() == 0
    assert link.is_symlink()


def test_open_without_create(tmp_path: Path) -> None:
    with pytest.raises(NoDatabase, match="nothing created"):
        Store.open(tmp_path / "typo.db", create=False)
    assert not (tmp_path / "typo.db").exists()


# -- through the CLI ----------------------------------------------------------------------


def test_stats_on_a_named_missing_database_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "typo.db"
    assert main(["stats", "--db", str(db)]) == 2
    _one_line_error(capsys, "no review database", str(db))
    assert list(tmp_path.iterdir()) == []


def test_stats_on_the_default_missing_database_shows_nothing_yet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("QUIZCOLL_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["stats", "--json"]) == 0
    assert '"reviews": 0' in capsys.readouterr().out
    assert not (tmp_path / "data").exists()


def test_history_export_never_creates_a_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["history", "export", "--db", str(tmp_path / "none.db")]) == 2
    _one_line_error(capsys, "no review database")
    assert list(tmp_path.iterdir()) == []


def test_unknown_user_in_quizcoll_db(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIZCOLL_DB", "~nosuchuser-qz/x")
    assert main(["stats"]) == 2
    _one_line_error(capsys, "nosuchuser-qz")
    assert main(["review", "--plain", "--db", "~nosuchuser-qz/y"]) == 2
    _one_line_error(capsys, "nosuchuser-qz")


def test_history_export_into_a_fifo_is_refused(
    tmp_path: Path, cards: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.db"
    Store.open(db).close()
    fifo = _fifo(tmp_path)
    assert main(["history", "export", "--db", str(db), "-o", str(fifo)]) == 2
    _one_line_error(capsys, "FIFO")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert main(["stats", "--db", str(fifo)]) == 2
    _one_line_error(capsys, "FIFO")


@needs_root
def test_devices_are_never_replaced_through_the_cli(
    tmp_path: Path, cards: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dev = _device(tmp_path)
    db = tmp_path / "r.db"
    Store.open(db).close()
    for argv in (
        ["history", "export", "--db", str(db), "-o", str(dev)],
        ["stats", "--db", str(dev)],
        ["export", "--cards", str(cards), "-o", str(dev)],
    ):
        assert main(argv) == 2, argv
        _one_line_error(capsys, "device")
        assert stat.S_ISCHR(os.lstat(dev).st_mode)


def test_export_on_a_full_disk_keeps_the_old_file(
    tmp_path: Path, cards: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "cards.md"
    out.write_text("the old export")

    def full(fd: int, data: object) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full)
    assert main(["export", "--cards", str(cards), "-o", str(out)]) == 2
    _one_line_error(capsys, "no space left on device", "unchanged")
    assert out.read_text() == "the old export"
    assert [p.name for p in tmp_path.iterdir()] == sorted(["cards.md", "cards.yaml"])


def test_export_into_a_folder_writes_only_there(
    tmp_path: Path, cards: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "out"
    assert main(["export", "--cards", str(cards), "-o", f"{folder}/"]) == 0
    assert [p.name for p in folder.iterdir()] == ["demo.md"]
    link = tmp_path / "link.md"
    link.symlink_to(tmp_path / "elsewhere.md")
    assert main(["export", "--cards", str(cards), "-o", str(link)]) == 2
    _one_line_error(capsys, "symbolic link")
    assert not (tmp_path / "elsewhere.md").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["vram", "--config", "/dev/zero"],
        ["list", "--cards", "/dev/zero"],
        ["history", "import", "/dev/zero"],
        ["check", "/dev/zero"],
    ],
)
def test_endless_streams_are_refused_at_once(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([*argv, *(["--db", str(tmp_path / "r.db")] if argv[0] == "history" else [])])
    assert code == 2
    err = capsys.readouterr().err
    assert "device" in err and "Traceback" not in err


def test_a_fifo_given_as_input_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = _fifo(tmp_path)
    os.mkfifo(tmp_path / "deck.csv")
    os.mkfifo(tmp_path / "deck.apkg")
    for argv in (
        ["vram", "--config", str(fifo)],
        ["list", "--cards", str(fifo)],
        ["history", "import", str(fifo), "--db", str(tmp_path / "r.db")],
        ["import", str(tmp_path / "deck.csv")],
        ["import", str(tmp_path / "deck.apkg")],
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "FIFO" in err or "not a regular file" in err, (argv, err)


def test_check_mutate_reads_like_the_loader(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by the fuzz tests: `check --mutate FIFO` blocked forever, bad YAML was a traceback."""
    fifo = _fifo(tmp_path)
    bad = tmp_path / "bad.yaml"
    bad.write_text("cards: [\n")
    for path, why in (
        (fifo, "FIFO"),
        (bad, "not YAML that can be mutated"),
        ("/dev/zero", "device"),
    ):
        assert main(["check", "--mutate", str(path)]) == 2
        _one_line_error(capsys, why)


@pytest.mark.parametrize(("folder", "why"), [("", "is empty"), ("\x1f", "control character")])
def test_new_refuses_an_empty_or_control_character_folder(
    folder: str, why: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    """Found by the command-line fuzz: ``--dir ''`` wrote into the working folder (an empty
    path reads as "."), and a control character reached the starter file's text."""
    monkeypatch.chdir(tmp_path)
    assert main(["new", "deck-x", "--dir", folder]) != 0
    assert why in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
