"""The package map in docs/architecture.md, checked: which package may import which, and no module
imports one that imports it back (directly or through others), counting imports made inside
functions and under TYPE_CHECKING too — a cycle hidden in a function body or made for the types
only is still a cycle for the reader."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "bot")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {
        _module_name(path): path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    }


def _imports(name: str, path: Path, known: set[str]) -> Iterator[str]:
    """Every module of ours that `name` imports, anywhere in its body, TYPE_CHECKING blocks
    included: a module read for its types is still one the reader must know first."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            # `from pkg import sub` needs the submodule sub, not what pkg's __init__ imports.
            subs = [f"{module}.{alias.name}" for alias in node.names]
            targets = [sub for sub in subs if sub in known] or [module]
        else:
            continue
        for target in targets:
            # `from . import x` names a module when x is one, else a name in the package.
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: set(_imports(name, path, known)) for name, path in modules.items()}


def _third_party(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import loops of `graph`, each as the path that closes it."""
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return cycles


def test_no_module_imports_one_that_imports_it_back() -> None:
    cycles = _cycles(_graph())
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_the_cycle_check_finds_a_cycle() -> None:
    # The check itself can fail: a two-module loop is reported.
    known = {"bot.a", "bot.b"}
    assert set(_imports("bot.a", _write("from . import b\n"), known)) == {"bot.b"}


def test_the_cycle_check_counts_imports_made_for_the_types_only() -> None:
    # A loop closed only under TYPE_CHECKING is reported too.
    known = {"bot.a", "bot.b"}
    text = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import Thing\n"
    assert set(_imports("bot.a", _write(text), known)) == {"bot.b"}
    graph = {"bot.a": {"bot.b"}, "bot.b": {"bot.a"}}
    assert _cycles(graph) == [["bot.a", "bot.b", "bot.a"]]


def _write(text: str) -> Path:
    import tempfile

    folder = Path(tempfile.mkdtemp())
    path = folder / "a.py"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_engine_is_pure_and_never_imports_the_bot() -> None:
    for name, path in _modules().items():
        if not name.startswith("engine"):
            continue
        outside = _third_party(path) & {"bot", "discord", "aiosqlite", "asyncpg", "asyncio"}
        assert not outside, f"{name} imports {sorted(outside)}: engine/ is synchronous game logic"


@pytest.mark.parametrize(
    "module",
    ["bot.game.model", "bot.game.service", "bot.game.records", "bot.game.ratings", "bot.game.ports"],
)
def test_the_game_model_and_service_have_no_discord_in_them(module: str) -> None:
    path = _modules()[module]
    assert "discord" not in _third_party(path)
    for imported in _graph()[module]:
        assert "discord" not in _third_party(_modules()[imported]), (
            f"{module} reaches discord through {imported}"
        )


def test_the_ui_reaches_storage_only_through_the_service() -> None:
    ui = [
        name
        for name in _modules()
        if name.startswith("bot.cogs") or name in ("bot.ui.boards", "bot.ui.render", "bot.cogs.group")
    ]
    for name in ui:
        backends = {m for m in _graph()[name] if m.startswith("bot.storage.")}
        assert not backends - {"bot.game.ports"}, f"{name} imports {sorted(backends)}"
