"""Architecture rules: the import-linter contracts (pyproject.toml), no runtime import cycles,
and what a fresh interpreter loads for the engine and the command line."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


DECK_MODULES = sorted(_module_name(p) for p in (ROOT / "deck").rglob("*.py"))


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys\nprint('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return set(out.stdout.split())


@pytest.mark.parametrize("module", DECK_MODULES)
def test_deck_imports_no_application_textual_or_numpy(module: str) -> None:
    loaded = _modules_after(f"import {module}")
    forbidden = {m for m in loaded if m.split(".")[0] in ("quizcoll", "textual", "numpy")}
    assert not forbidden, f"{module} pulled in {sorted(forbidden)[:5]}"


def test_only_tui_imports_textual() -> None:
    statement = re.compile(r"^\s*(?:import|from)\s+textual\b", re.MULTILINE)
    offenders = []
    for path in [*(ROOT / "quizcoll").rglob("*.py"), *(ROOT / "deck").rglob("*.py")]:
        if "tui" in path.relative_to(ROOT).parts:
            continue
        if statement.search(path.read_text(encoding="utf-8")):
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["check", "--help"], ["list", "--help"], ["sim", "--help"], ["vram", "--help"]],
)
def test_cli_help_imports_neither_textual_nor_numpy(argv: list[str]) -> None:
    code = (
        "import sys\nfrom quizcoll.cli.main import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
    )
    loaded = _modules_after(code)
    assert not {m for m in loaded if m.split(".")[0] == "textual"}
    assert not {m for m in loaded if m.split(".")[0] == "numpy"}


def test_check_does_not_import_textual() -> None:
    code = (
        "from quizcoll.cli.main import main\n"
        "import contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        "    main(['check', '--seeds', '1'])\n"
    )
    loaded = _modules_after(code)
    assert not {m for m in loaded if m.split(".")[0] == "textual"}


def test_import_linter_contracts_are_kept() -> None:
    """The layers and forbidden imports written in pyproject.toml ([tool.importlinter])."""
    lint = Path(sys.executable).with_name("lint-imports")
    command = [str(lint)] if lint.exists() else [sys.executable, "-m", "importlinter.cli"]
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "0 broken" in out.stdout


def _runtime_imports(path: Path, module: str, modules: set[str]) -> set[str]:
    """The project modules ``module`` imports when it runs (function-level imports included,
    ``if TYPE_CHECKING:`` blocks left out). ``from pkg import sub`` imports ``pkg.sub``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for node in ast.walk(block)
    }
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            subs = {f"{base}.{a.name}" for a in node.names} & modules
            found.update(subs or {base})
            if len(subs) < len(node.names):
                found.add(base)
    return {m for m in found if m in modules and m != module}


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_runtime_import_cycles() -> None:
    paths = {_module_name(p): p for top in ("deck", "quizcoll") for p in (ROOT / top).rglob("*.py")}
    modules = set(paths)
    edges = {m: _runtime_imports(p, m, modules) for m, p in paths.items()}
    assert _cycles(edges) == []


def test_the_cycle_finder_finds_a_planted_cycle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(edges) == [["a", "b", "c"]]
