"""Shared pieces of the fault, hostile-input and secrets tests (and bench/): launching the real bot
against the double outside the function-scoped conftest fixtures, reading boards off messages,
and the checks every run ends with."""

from __future__ import annotations

import asyncio
import random
import re
import signal
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from testkit.bot_process import TOKEN, BotHandle
from testkit.discord_double import InteractionFailed
from testkit.sqlite_rows import player_result

FINAL = ("**You win!**", "**The AI wins.**", "**Draw.**")
RESULT_OF_TEXT = {"**You win!**": "win", "**The AI wins.**": "loss", "**Draw.**": "draw"}
COOLDOWN = "Slow down a little"
_LINK = re.compile(r"/channels/\d+/\d+/(\d+)")


async def launch(workdir: Path, *, token: str = TOKEN, **env: str) -> tuple[Any, BotHandle]:
    """A started double and a ready bot process on workdir/caro.db."""
    from testkit.discord_double import DiscordDouble

    double = DiscordDouble(token=token)
    if token != TOKEN:
        env["DISCORD_TOKEN"] = token
    await double.start()
    workdir.mkdir(parents=True, exist_ok=True)
    handle = BotHandle(double, workdir, env)
    try:
        await handle.start()
    except BaseException:
        await double.stop()
        raise
    return double, handle


async def shutdown(double: Any, handle: BotHandle, *, allow_violations: bool = False,
                   allow_tracebacks: bool = False) -> list[str]:
    """Stop the bot (SIGTERM) and the double; the problems a clean run must not have."""
    problems: list[str] = []
    if handle.process is not None:
        code = await handle.stop()
        if code != 0:
            problems.append(f"bot exited with {code} on SIGTERM")
    await double.stop()
    log = handle.log_text()
    if double.token in log:
        problems.append("the token appears in the bot's log")
    if "Traceback" in log and not allow_tracebacks:
        problems.append("the bot logged a traceback")
    if double.violations and not allow_violations:
        problems.append(f"Discord rules broken: {double.violations}")
    return problems


def text_of(message: Any) -> str:
    """What a message says: its content plus its text displays (Components V2 messages keep
    their text there and have no content)."""
    parts = [message.content or ""]
    stack = list(message.payload.get("components") or [])
    while stack:
        component = stack.pop(0)
        if component.get("type") == 10:
            parts.append(str(component.get("content", "")))
        stack.extend(component.get("components") or [])
        if isinstance(component.get("component"), dict):
            stack.append(component["component"])
    return "\n".join(parts)


def is_over(message: Any) -> bool:
    text = text_of(message)
    return any(final in text for final in FINAL)


def result_of(message: Any) -> str | None:
    text = text_of(message)
    return next((r for final, r in RESULT_OF_TEXT.items() if final in text), None)


def cell_buttons(message: Any) -> list[dict[str, Any]]:
    """The board's cell buttons (caro:m:<game>:<ply>:<cell>), not its controls (resign, ...)."""
    return [b for b in message.buttons if str(b.get("custom_id", "")).startswith("caro:m:")]


def game_id_of(message: Any) -> int:
    return int(cell_buttons(message)[0]["custom_id"].split(":")[2])


def ply_of(message: Any) -> int:
    return int(cell_buttons(message)[0]["custom_id"].split(":")[3])


def stones_of(message: Any) -> dict[str, str]:
    """Cell name -> "X"/"O" for every stone drawn on a game message."""
    return {
        b["custom_id"].rsplit(":", 1)[1]: b["label"]
        for b in cell_buttons(message)
        if b.get("label") in ("X", "O")
    }


def free_cells(message: Any) -> list[str]:
    """Full custom_ids of the cells that can be clicked now (pass them to Member.click)."""
    return [b["custom_id"] for b in cell_buttons(message) if not b.get("disabled")]


def players_turn(message: Any) -> bool:
    return "Your turn" in text_of(message) and bool(free_cells(message))


def linked_message_id(text: str | None) -> int | None:
    """The message id of a jump link in a bot reply ("you already have a game: <link>")."""
    match = _LINK.search(text or "")
    return int(match.group(1)) if match else None


def integrity(db_path: Path) -> str:
    with sqlite3.connect(db_path) as db:
        return str(db.execute("PRAGMA integrity_check").fetchone()[0])


def stored_moves(db_path: Path, game_id: int) -> dict[int, tuple[str, bool]]:
    with sqlite3.connect(db_path) as db:
        rows = db.execute(
            "SELECT ply, cell, by_ai FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)
        ).fetchall()
    return {int(ply): (str(cell), bool(by_ai)) for ply, cell, by_ai in rows}


def db_snapshot(db_path: Path) -> tuple[Any, ...]:
    """Every row of the game tables, to show that a refused request changed nothing."""
    with sqlite3.connect(db_path) as db:
        return tuple(
            tuple(db.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall())
            for table in ("games", "moves", "results")
        )


def stats_problems(db_path: Path) -> list[str]:
    """Finished games and result rows must match one to one (each game counted exactly once)."""
    problems: list[str] = []
    with sqlite3.connect(db_path) as db:
        orphans = db.execute(
            "SELECT r.game_id FROM results r JOIN games g ON g.id = r.game_id"
            f" WHERE g.status != 'finished' OR {player_result('g')} != r.result"
        ).fetchall()
        uncounted = db.execute(
            "SELECT g.id FROM games g LEFT JOIN results r ON r.game_id = g.id"
            " WHERE g.status = 'finished' AND g.mode = 'ai' AND g.rated = 1 AND r.game_id IS NULL"
        ).fetchall()
        wrong_ply = db.execute(
            "SELECT g.id FROM games g WHERE g.ply != (SELECT COUNT(*) FROM moves m"
            " WHERE m.game_id = g.id)"
        ).fetchall()
    if orphans:
        problems.append(f"results for games not finished that way: {orphans}")
    if uncounted:
        problems.append(f"finished games without a result: {uncounted}")
    if wrong_ply:
        problems.append(f"games whose ply does not match their moves: {wrong_ply}")
    return problems


async def settle(double: Any, seconds: float = 0.3) -> None:
    """Let in-flight bot work (AI answers, edits) land: wait until the double sees no request
    for `seconds`."""
    while True:
        count = len(double.requests)
        await asyncio.sleep(seconds)
        if len(double.requests) == count:
            return


# ----------------------------------------------------------------- crash campaigns
ALLOWED_AFTER_KILL = "not acknowledged within"  # interactions in flight when the bot died


@dataclass
class Seat:
    """One simulated player and what the bot has acknowledged to them."""

    member: Any
    level: str
    size: str
    message: Any = None
    acked: list[tuple[int, int, str]] = field(default_factory=list)  # (game, ply, cell)
    finished: dict[int, str] = field(default_factory=dict)  # game -> result the player saw


class CrashCampaign:
    """Players play against the AI while the bot is SIGKILLed at random moments; after each
    kill the database and, after the restart, every board are checked."""

    def __init__(self, double: Any, bot: BotHandle, rng: random.Random, players: int = 4) -> None:
        self.double = double
        self.bot = bot
        self.rng = rng
        levels, sizes = ("easy", "normal"), ("3x3", "4x4", "5x5")
        self.seats = [
            Seat(double.add_member(f"player{i}"), levels[i % 2], sizes[i % 3])
            for i in range(players)
        ]
        self.kills = 0
        self.worker_pids: set[int] = set()

    async def _play(self, seat: Seat) -> None:
        while True:
            if seat.message is None:
                result = await seat.member.slash("caro start", difficulty=seat.level,
                                                 size=seat.size)
                if result.ephemeral and COOLDOWN in str(result.content):
                    # These players start games far faster than people can (the per-member
                    # cooldown says so): the next game is played by a fresh member.
                    seat.member = self.double.add_member(f"{seat.member.name}+")
                    continue
                if result.ephemeral:
                    linked = linked_message_id(result.content)
                    assert linked is not None, f"unexpected refusal: {result.content}"
                    seat.message = self.double.store.get(str(linked))
                    assert seat.message is not None, f"no message {linked}"
                else:
                    seat.message = result.message
            message = await seat.message.wait_for(lambda m: players_turn(m) or is_over(m),
                                                  timeout=30)
            if is_over(message):
                seat.finished[game_id_of(message)] = str(result_of(message))
                seat.message = None
                continue
            await asyncio.sleep(self.rng.uniform(0, 0.05))
            if not players_turn(message):
                # Redrawn during the pause (the message is live): after a restart a board the
                # bot's answer never reached shows the stored game, such as the AI to move.
                continue
            game, ply = game_id_of(message), ply_of(message)
            custom_id = self.rng.choice(free_cells(message))
            result = await seat.member.click(message, custom_id)
            if result.callback_type == 7:
                seat.acked.append((game, ply, custom_id.rsplit(":", 1)[1]))

    async def round(self, seconds: float) -> list[str]:
        """Play for `seconds`, SIGKILL the bot, check the database, restart, check the boards."""
        tasks = [asyncio.ensure_future(self._play(seat)) for seat in self.seats]
        done, _ = await asyncio.wait(tasks, timeout=seconds)
        assert self.bot.process is not None
        self.worker_pids |= set(child_pids(self.bot.process.pid))
        await self.bot.stop(signal.SIGKILL)
        self.kills += 1
        for task in tasks:
            task.cancel()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        problems = [f"player crashed: {r!r}" for r in results
                    if isinstance(r, BaseException) and not isinstance(
                        r, asyncio.CancelledError | InteractionFailed)]
        problems += self.check_database()
        await self.bot.start()
        problems += await self.check_boards()
        return problems

    def check_database(self) -> list[str]:
        db = self.bot.db_path
        problems = []
        if (state := integrity(db)) != "ok":
            problems.append(f"integrity_check: {state}")
        problems += stats_problems(db)
        for seat in self.seats:
            for game, ply, cell in seat.acked:
                if stored_moves(db, game).get(ply) != (cell, False):
                    problems.append(f"acknowledged move {cell} (game {game}, ply {ply}) lost")
            for game, result in seat.finished.items():
                rows = self.bot.db_rows(
                    f"SELECT g.status, {player_result('g')}, COUNT(r.game_id) FROM games g"
                    " LEFT JOIN results r ON r.game_id = g.id WHERE g.id = ?", (game,))
                if rows != [("finished", result, 1)]:
                    problems.append(f"finished game {game} ({result}) is stored as {rows}")
        return problems

    async def check_boards(self, timeout: float = 20) -> list[str]:
        """Every player's board comes back to what is stored, and playable or finished."""
        problems = []
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        for seat in self.seats:
            if seat.message is None or not cell_buttons(seat.message):
                continue
            game = game_id_of(seat.message)

            def shows_stored(m: Any, game: int = game) -> bool:
                stored = {c: ("O" if ai else "X") for c, ai in stored_moves(
                    self.bot.db_path, game).values()}
                player_x = "(X) vs AI" in text_of(m)
                if not player_x:
                    stored = {c: ("X" if s == "O" else "O") for c, s in stored.items()}
                return stones_of(m) == stored and (players_turn(m) or is_over(m))

            try:
                await seat.message.wait_for(shows_stored,
                                            timeout=max(0.5, deadline - loop.time()))
            except AssertionError:
                problems.append(f"game {game}: board not back to the stored state after the "
                                f"restart: shows {stones_of(seat.message)} / "
                                f"{text_of(seat.message)!r}, stored {stored_moves(self.bot.db_path, game)}")
        return problems

    def leftover_workers(self) -> list[int]:
        """AI worker processes of killed bots that are still alive."""
        return sorted(pid for pid in self.worker_pids if Path(f"/proc/{pid}").exists()
                      and "Z" not in _proc_state(pid))

    def unexpected_violations(self) -> list[str]:
        return [v for v in self.double.violations if ALLOWED_AFTER_KILL not in v]


def child_pids(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return sorted(found)


def _proc_state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"
