"""The import contracts of pyproject.toml ([tool.importlinter], checked by `lint-imports` in
.ci/run) cover the whole tree, and they can fail: a copy of the tree with one forbidden import
added, a type-only one included, breaks them."""

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


def test_every_engine_module_is_kept_from_importing_the_programs() -> None:
    sources = _contract("engine: the game logic never imports")["source_modules"]
    assert isinstance(sources, list)
    found = {f"engine.{name}" for name in _modules(ROOT / "engine") | _packages(ROOT / "engine")}
    assert set(sources) == found - {"engine.programs"}


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
    for package in ("engine", "bot", "training"):
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
        ("engine/board.py", "import asyncio\n", "engine: pure"),
        ("engine/board.py", "from engine.programs import play\n", "engine: the game logic never imports"),
        # The runtime reaching for the training pipeline instead of its exported tables.
        ("engine/ai/patterns.py", "import training.fit\n", "the runtime never imports"),
        # Two modules of one folder importing each other.
        ("bot/game/errors.py", "from bot.game import options\n", "no import cycle"),
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
