"""The import contracts of pyproject.toml ([tool.importlinter], checked by `lint-imports` in
.ci/run) cover the whole tree, and they can fail: a copy of the tree with one forbidden import
added, a type-only one included, breaks them. And no two modules of the tree import each other,
however indirectly, in a function or for the types only."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _contracts() -> list[dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts: list[dict[str, object]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def _contract(name_starts: str) -> dict[str, object]:
    (found,) = [c for c in _contracts() if str(c["name"]).startswith(name_starts)]
    return found


def _packages(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir() if (p / "__init__.py").is_file()}


def _modules(folder: Path) -> set[str]:
    return {p.stem for p in folder.glob("*.py") if p.stem not in ("__init__", "__main__")}


def test_every_folder_of_the_bot_sits_in_a_layer() -> None:
    # A new folder (a feature, a backend) must be placed, not slip between the layers.
    layers = _contract("bot: each folder")["layers"]
    assert isinstance(layers, list)
    placed = {part.strip().removeprefix("bot.") for layer in layers for part in layer.split("|")}
    assert _packages(ROOT / "bot") == placed
    # And no module sits loose beside the folders: the entry point only.
    assert _modules(ROOT / "bot") == set()


def test_every_folder_of_the_engine_sits_in_a_layer() -> None:
    # The engine's layers show as the bot's do: every module in a folder, every folder placed.
    contract = _contract("engine: each folder")
    layers = contract["layers"]
    assert isinstance(layers, list)
    placed = {part.strip() for layer in layers for part in layer.split("|")}
    assert _packages(ROOT / "engine") == placed
    # Beside the folders, the package's own __init__ (its public names) and __main__ only; and
    # lint-imports itself refuses a module it was not told about.
    assert _modules(ROOT / "engine") == set()
    assert contract["exhaustive"] is True


# The size past which a class of bot/ is to be split along its seams (docs/architecture.md).
MAX_METHODS = 25
MAX_LINES = 400


def _oversized(folder: Path) -> list[str]:
    """The classes under `folder` with more than MAX_METHODS methods or MAX_LINES lines."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            methods = sum(
                isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) for item in node.body
            )
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            if methods > MAX_METHODS or lines > MAX_LINES:
                where = path.relative_to(folder.parent)
                found.append(f"{where}: {node.name} ({methods} methods, {lines} lines)")
    return found


def test_no_class_of_the_bot_outgrows_its_room() -> None:
    # A class past the line is split along its seams (members and organisers apart from the
    # runner, drawing apart from posting...), not let grow.
    assert _oversized(ROOT / "bot") == []


def test_an_oversized_class_is_found(tmp_path: Path) -> None:
    body = "".join(f"    def m{i}(self) -> None: ...\n" for i in range(MAX_METHODS + 1))
    (tmp_path / "big.py").write_text(f"class Big:\n{body}", encoding="utf-8")
    long = "    x = 0\n" * MAX_LINES
    (tmp_path / "long.py").write_text(f"class Long:\n{long}", encoding="utf-8")
    (tmp_path / "fine.py").write_text("class Fine:\n    def m(self) -> None: ...\n")
    assert [line.split(": ")[1].split(" ")[0] for line in _oversized(tmp_path)] == ["Big", "Long"]


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo"],
        cwd=tree, capture_output=True, text=True, timeout=120,
    )


@pytest.fixture(scope="module")
def tree_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packages and the contracts, copied where a test may break them."""
    tree = tmp_path_factory.mktemp("tree")
    for package in ("engine", "bot", "training", "testkit"):
        shutil.copytree(ROOT / package, tree / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "locales"))
    shutil.copy(ROOT / "pyproject.toml", tree)
    return tree


def test_the_tree_keeps_every_contract(tree_copy: Path) -> None:
    done = _lint(tree_copy)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("module", "added", "broken"),
    [
        # The game reaching up into the drawing.
        ("bot/game/model.py", "from bot.ui import render\n", "each folder imports only"),
        # A cog typed against the wiring, for the types only: still a loop for the reader.
        ("bot/cogs/play.py",
         "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from bot.runtime.client import CaroBot\n",
         "each folder imports only"),
        # The drawing opening the database through the storage package's __init__.
        ("bot/ui/render.py", "import bot.storage\n", "only the wiring"),
        ("engine/game/board.py", "import asyncio\n", "engine: pure"),
        # The game logic reaching up into the programs, the AI, or the analysis of games.
        ("engine/game/board.py", "from engine.programs import play\n", "engine: each folder imports only"),
        ("engine/game/openings.py", "from engine.ai import choose_move\n", "engine: each folder imports only"),
        ("engine/solve/solver.py", "from engine.analysis import review\n", "engine: each folder imports only"),
        # Two folders of one layer are independent: the other players never use caro's AI.
        ("engine/players/montecarlo.py", "from engine.ai import levels\n", "engine: each folder imports only"),
        # The runtime reaching for the training pipeline instead of its exported tables.
        ("engine/ai/patterns.py", "import training.fit\n", "the runtime never imports"),
        # Two modules of one folder importing each other.
        ("bot/game/errors.py", "from bot.game import options\n", "no import cycle"),
        # The Discord double's parts reaching back to the server that builds them.
        ("testkit/discord_double/gateway.py",
         "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from testkit.discord_double.server import DiscordDouble\n",
         "no import cycle"),
    ],
)
def test_a_forbidden_import_breaks_its_contract(
    tree_copy: Path, module: str, added: str, broken: str
) -> None:
    path = tree_copy / module
    original = path.read_text(encoding="utf-8")
    try:
        path.write_text(original + "\n" + added, encoding="utf-8")
        done = _lint(tree_copy)
    finally:
        path.write_text(original, encoding="utf-8")
    assert done.returncode == 1, done.stdout
    broken_lines = [line for line in done.stdout.splitlines() if line.endswith("BROKEN")]
    assert any(broken in line for line in broken_lines), done.stdout


def test_a_module_beside_the_engines_folders_breaks_its_layers(tree_copy: Path) -> None:
    loose = tree_copy / "engine" / "loose.py"
    loose.write_text("from engine.game.board import Board\n", encoding="utf-8")
    try:
        done = _lint(tree_copy)
    finally:
        loose.unlink()
    assert done.returncode == 1, done.stdout
    assert "engine.loose" in done.stdout, done.stdout


# ----------------------------------------------------------------------------- import cycles

# The tree's own packages: the runtime, the test kit, the evaluation's pipeline, the benchmarks
# and the tests.
FIRST_PARTY = ("engine", "bot", "testkit", "training", "bench", "tests")


def _module_files(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def import_graph(root: Path, packages: tuple[str, ...]) -> dict[str, set[str]]:
    """Module -> the modules of the tree it imports: every import statement counts, at the top,
    in a function or under TYPE_CHECKING. `from a import b` imports a.b when that is a module,
    else a; an import of something below a module counts as one of that module."""
    files = _module_files(root, packages)
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = package.split(".")
                    base = parts[: len(parts) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in files
                           else source for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in files:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    imported.add(target)
        graph[name] = imported
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or not (Tarjan's strongly
    connected components of more than one module), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(start: str) -> None:
        # Iterative, so a deep chain of imports cannot reach Python's recursion limit.
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        work = [(start, iter(sorted(graph[start])))]
        while work:
            module, following = work[-1]
            for target in following:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[module] = min(low[module], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[module])
                if low[module] == index[module]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == module:
                            break
                    if len(group) > 1:
                        cycles.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(cycles)


def test_no_modules_of_the_tree_import_each_other() -> None:
    # An import moved into a function or under TYPE_CHECKING still ties the two modules: the
    # way out is a module both can import (a protocol, the shared types), not a hidden import.
    assert import_cycles(import_graph(ROOT, FIRST_PARTY)) == []


def test_an_import_cycle_is_found_however_it_is_hidden(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "sub" / "__init__.py").write_text("", encoding="utf-8")
    # a -> b at the top, b -> c in a function, c -> a for the types only: one cycle of three.
    (package / "a.py").write_text("from pkg import b\n", encoding="utf-8")
    (package / "b.py").write_text("def f():\n    from .sub.c import g\n", encoding="utf-8")
    (package / "sub" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..a import A\n",
        encoding="utf-8")
    # d imports a, outside the cycle.
    (package / "d.py").write_text("import pkg.a\n", encoding="utf-8")
    graph = import_graph(tmp_path, ("pkg",))
    assert import_cycles(graph) == [["pkg.a", "pkg.b", "pkg.sub.c"]]
