"""Message text, buttons and embeds drawn from stored state. No decisions are made here."""

from __future__ import annotations

import discord

from engine import Mark

from .games import LEVELS, GameState, custom_id
from .storage import LeaderRow, Record, UserStats
from .texts import EN, t
from .views import EMPTY_LABEL, CellButton

MAX_BUTTON_SIDE = 5  # Discord allows 5 action rows of 5 buttons

_MARK_STYLE = {Mark.X: discord.ButtonStyle.primary, Mark.O: discord.ButtonStyle.danger}


def game_content(state: GameState) -> str:
    row = state.row
    lines = [
        t("game.title", rows=row.rows, cols=row.cols, k=row.k, rule=t(f"rulename.{row.rule}")),
        t(
            "game.players",
            player=f"<@{row.player_id}>",
            player_mark=state.player_mark.name,
            ai_mark=state.ai_mark.name,
            level=t(f"level.{row.ai_level}"),
        ),
    ]
    last = state.last_ai_move
    if last is not None:
        cell, reason = last
        reason_key = f"reason.{reason}" if f"reason.{reason}" in EN else "reason.unknown"
        lines.append(t("game.ai_moved", cell=cell, reason=t(reason_key)))
    if row.status == "finished" and row.result is not None:
        lines.append(t(f"game.result.{row.result}"))
    elif row.status == "abandoned":
        lines.append(t("game.abandoned"))
    elif state.ai_to_move:
        lines.append(t("game.ai_thinking"))
    else:
        lines.append(t("game.your_turn", mark=state.player_mark.name))
    return "\n".join(lines)


def game_view(state: GameState) -> discord.ui.View:
    """One button per cell; clickable only while it is the player's turn."""
    board = state.board
    if board.rows > MAX_BUTTON_SIDE or board.cols > MAX_BUTTON_SIDE:
        raise ValueError(f"a {board.rows}x{board.cols} board does not fit in buttons (5x5 at most)")
    outcome = board.outcome()
    winning = set(outcome.line) if outcome is not None else set()
    players_turn = state.active and not board.is_over() and not state.ai_to_move
    view = discord.ui.View(timeout=None)
    for r in range(board.rows):
        for c in range(board.cols):
            mark = board[r, c]
            if mark is None:
                label, style = EMPTY_LABEL, discord.ButtonStyle.secondary
            else:
                label, style = mark.name, _MARK_STYLE[mark]
            if (r, c) in winning:
                style = discord.ButtonStyle.success
            view.add_item(
                CellButton(
                    custom_id(state.id, board.ply, (r, c)),
                    label=label,
                    style=style,
                    disabled=not players_turn or mark is not None,
                    row=r,
                )
            )
    return view


def jump_link(guild_id: int, channel_id: int, message_id: int) -> str:
    return f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}"


def _record_line(record: Record) -> str:
    return t(
        "stats.line",
        wins=record.wins,
        draws=record.draws,
        losses=record.losses,
        games=record.games,
        rate=f"{record.win_rate:.0%}",
    )


def leaderboard_text(rows: list[LeaderRow]) -> str:
    if not rows:
        return t("board.empty")
    return "\n".join(
        t(
            "board.line",
            rank=row.rank,
            user=f"<@{row.user_id}>",
            points=row.points,
            wins=row.record.wins,
            draws=row.record.draws,
            losses=row.record.losses,
            rate=f"{row.record.win_rate:.0%}",
        )
        for row in rows
    )


def leaderboard_embed(rows: list[LeaderRow]) -> discord.Embed:
    embed = discord.Embed(title=t("board.title"), description=leaderboard_text(rows))
    embed.set_footer(text=t("board.rule"))
    return embed


def stats_embed(name: str, stats: UserStats, board: list[LeaderRow]) -> discord.Embed:
    embed = discord.Embed(title=t("stats.title", name=name))
    if stats.overall.games == 0:
        embed.description = t("stats.none")
    else:
        embed.description = t("stats.points", points=stats.points)
        embed.add_field(name=t("stats.overall"), value=_record_line(stats.overall), inline=False)
        for level in LEVELS:
            record = stats.by_level.get(level)
            if record is not None and record.games:
                embed.add_field(name=t(f"level.{level}"), value=_record_line(record), inline=False)
    embed.add_field(name=t("board.title"), value=leaderboard_text(board), inline=False)
    embed.set_footer(text=t("board.rule"))
    return embed


def help_embed() -> discord.Embed:
    return discord.Embed(title=t("help.title"), description=t("help.body"))
