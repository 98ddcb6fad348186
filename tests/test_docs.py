"""The README and docs/ cannot rot: their examples run, the paths they name exist, their pictures
are the ones the script draws. The rules are in docs/architecture.md ("Documentation that cannot
rot"). The ```python blocks are collected by Sybil in conftest.py at the root of the repository."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
BIN = Path(sys.executable).parent
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\s*$", re.S | re.M)
LINKED = ("bot", "engine", "tests", "bench", "docs", ".env.example", "pyproject.toml", ".venv")
TIMEOUT = 600


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    lang: str
    text: str


def blocks(lang: str) -> list[Block]:
    found = []
    for page in PAGES:
        source = page.read_text(encoding="utf-8")
        for m in FENCE.finditer(source):
            if m.group(1) == lang:
                found.append(Block(page, source.count("\n", 0, m.start()) + 1, lang, m.group(2)))
    return found


def block_id(block: Block) -> str:
    return f"{block.page.relative_to(ROOT)}:{block.line}"


def run(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
               PYTHONPATH=str(ROOT), NO_COLOR="1")
    env.pop("DISCORD_TOKEN", None)
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=TIMEOUT)


def scratch(page: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder per page that links to the checkout's top-level entries."""
    folder = tmp_path_factory.mktemp(page.stem)
    for name in LINKED:
        if (ROOT / name).exists():
            (folder / name).symlink_to(ROOT / name)
    return folder


SH_PAGES = sorted({b.page for b in blocks("sh")})


@pytest.mark.parametrize("page", SH_PAGES, ids=[str(p.relative_to(ROOT)) for p in SH_PAGES])
def test_sh_blocks_run(page: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every ```sh block of the page, in order, in one scratch folder."""
    cwd = scratch(page, tmp_path_factory)
    for block in (b for b in blocks("sh") if b.page == page):
        where = block_id(block)
        lines = block.text.splitlines()
        if not any(line.startswith("$ ") for line in lines):
            done = run("set -euo pipefail\n" + block.text, cwd)
            assert done.returncode == 0, f"{where}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
            continue
        steps: list[tuple[str, list[str]]] = []
        for line in lines:
            if line.startswith("$ "):
                steps.append((line[2:], []))
            elif line.strip():
                steps[-1][1].append(line.strip())
        for command, expected in steps:
            m = re.search(r"#\s*exit code (\d+)\s*$", command)
            want = int(m.group(1)) if m else 0
            done = run(command, cwd)
            assert done.returncode == want, (
                f"{where}: {command!r} exit {done.returncode}, not {want}\n{done.stdout}\n{done.stderr}")
            output = [line.strip() for line in (done.stdout + done.stderr).splitlines()]
            for line in expected:
                assert line in output, f"{where}: {command!r} did not print {line!r}:\n{done.stdout}"


def programs(block: Block) -> list[list[str]]:
    """The caro, caro-bot and python -m programs a ```console block names, as far as their
    subcommands go (the words before the first option or argument)."""
    found = []
    for line in block.text.splitlines():
        line = line.split(" #")[0].strip()
        if not line or line.startswith("#"):
            continue
        for part in re.split(r"&&|\|", line):
            try:
                words = shlex.split(part)
            except ValueError:
                continue
            words = [w for w in words if "=" not in w or w.startswith("-")] if words and "=" in words[0] else words
            if not words:
                continue
            name = Path(words[0]).name
            if name in ("caro", "caro-bot"):
                command = [name]
                for word in words[1:]:
                    if not re.fullmatch(r"[a-z][a-z-]*", word):
                        break
                    command.append(word)
                    if name == "caro-bot" or len(command) == 3:
                        break
                found.append(command)
            elif name.startswith("python") and words[1:2] == ["-m"] and len(words) > 2:
                found.append(["python", "-m", words[2]])
    return found


CONSOLE = blocks("console")


@pytest.mark.parametrize("block", CONSOLE, ids=[block_id(b) for b in CONSOLE])
def test_console_blocks_say_why_and_name_real_programs(block: Block) -> None:
    first = block.text.splitlines()[0]
    assert first.startswith("# not run"), f"{block_id(block)}: first line must say why it is not run"
    for command in programs(block):
        if command[0] == "caro-bot" and command[1:] and command[1] != "":
            command = command[:1]
        done = run(shlex.join(command) + " --help", ROOT)
        assert done.returncode == 0, f"{block_id(block)}: {command} --help failed\n{done.stderr}"


PATH_RE = re.compile(r"`((?:bot|engine|tests|testkit|bench|docs)/[A-Za-z0-9_./*-]+)`")


def test_every_repository_path_named_exists() -> None:
    missing = []
    for page in PAGES:
        for m in PATH_RE.finditer(page.read_text(encoding="utf-8")):
            path = m.group(1).rstrip(".")
            if not (list(ROOT.glob(path)) if "*" in path else (ROOT / path).exists()):
                missing.append(f"{page.relative_to(ROOT)}: {path}")
    assert not missing, "paths named in the docs that do not exist:\n" + "\n".join(missing)


def test_pictures_are_the_ones_the_script_draws(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "docs" / "screenshots.py"), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    from PIL import Image

    from bot.ui.pictures import THEMES
    from bot.ui.rule_pictures import RuleTopic

    drawn = sorted(p.name for p in tmp_path.iterdir())
    themes = [f"theme-{name}.png" for name in THEMES]
    rules = [f"rules-{topic.value}.png" for topic in RuleTopic]
    assert drawn == sorted(["big-board.png", "replay.gif", *themes, *rules])
    for name in drawn:
        with Image.open(tmp_path / name) as image:
            assert image.width > 100 and image.height > 100
        assert (tmp_path / name).read_bytes() == (ROOT / "docs" / "images" / name).read_bytes(), (
            f"docs/images/{name} is not what docs/screenshots.py draws now: run it and commit")


def test_the_blocks_are_counted() -> None:
    """The README and the docs hold examples of each kind the tests run."""
    assert len(blocks("python")) >= 5 and len(blocks("sh")) >= 5
    assert len(CONSOLE) <= 13, "keep the blocks that are not run few (a ratchet: lower it)"
