"""What members see of a tournament: its announcement (with Join and Leave), the lines posted as
it runs, and the standings picture after each round and at the end. Texts only: the cog posts
them, and the picture is drawn in the CPU pool (bot.ui.picture_jobs.standings_job)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import discord

from bot.game.pairings import Format, Standing
from bot.game.tournament_model import (
    Entrant,
    EntryRow,
    PairingRow,
    TournamentRow,
    TournamentStatus,
    is_member_entrant,
)
from bot.i18n.texts import text_in
from bot.ui import drawing
from bot.ui.buttons import TournamentJoin, TournamentLeave
from bot.ui.payloads import row_payload
from bot.ui.standings_picture import points_text

Translate = Callable[..., str]
SUCCESS = discord.ButtonStyle.success
SECONDARY = discord.ButtonStyle.secondary
# Names listed in the announcement; past it, "and N more".
LISTED_ENTRIES = 40
STANDINGS_FILENAME = "standings.png"
MEDALS = ("🥇", "🥈", "🥉")


def translator(locale: str) -> Translate:
    def tr(key: str, /, **values: object) -> str:
        return text_in(locale, key, **values)

    return tr


def entrant_label(entrant: Entrant, tr: Translate, names: dict[int, str] | None = None) -> str:
    """An entry as text: a member's mention (or, with `names`, their display name, for a
    picture), an AI level's name with its number when it is entered more than once."""
    if is_member_entrant(entrant):
        member = int(entrant)
        if names is None:
            return f"<@{member}>"
        return names.get(member, str(member))
    level, _, number = entrant.partition("#")
    name = tr(f"level.{level}")
    if number:
        return tr("tournament.ai_entry_numbered", level=name, number=number)
    return tr("tournament.ai_entry", level=name)


def summary_line(row: TournamentRow, tr: Translate) -> str:
    """Format, board, rule, opening, clock and rating in one line."""
    kind = tr(f"format.{row.format.value}")
    if row.format is Format.SWISS and row.rounds is not None:
        kind = tr("tournament.swiss_rounds", format=kind, rounds=row.rounds)
    if row.format is Format.ARENA and row.minutes is not None:
        kind = tr("tournament.arena_minutes", format=kind, minutes=row.minutes)
    return tr(
        "tournament.summary",
        format=kind,
        # Written as boards, help and autocomplete write a size: "4x4, 3 in a row".
        size=tr("size.custom", rows=row.rows, cols=row.cols, k=row.k),
        rule=tr(f"rulename.{row.rule}"),
        opening=tr(f"openingname.{row.opening.value}"),
        seconds=f"{row.turn_seconds:g}",
        rated=tr("tournament.rated" if row.rated else "tournament.casual"),
    )


def status_line(row: TournamentRow, tr: Translate) -> str:
    if row.status is TournamentStatus.OPEN:
        return tr("tournament.status.open", when=f"<t:{int(row.starts_at)}:R>")
    if row.status is TournamentStatus.RUNNING:
        if row.format is Format.ARENA and row.ends_at is not None:
            return tr("tournament.status.arena", when=f"<t:{int(row.ends_at)}:R>")
        return tr("tournament.status.running", round=row.round, rounds=row.rounds or row.round)
    return tr(f"tournament.status.{row.status.value}")


def announcement(
    row: TournamentRow, entries: Sequence[EntryRow], locale: str | None = None
) -> dict[str, Any]:
    """The announcement's message: what the tournament is, who is in, and Join / Leave while it
    takes entries (Leave, which then withdraws, until it is over)."""
    tr = translator(locale or row.locale)
    embed = discord.Embed(
        title=tr("tournament.title", id=row.id),
        description=f"{summary_line(row, tr)}\n{status_line(row, tr)}",
        colour=discord.Colour.blurple(),
    )
    active = [e for e in entries if not e.withdrawn]
    listed = [entrant_label(e.entrant, tr) for e in active[:LISTED_ENTRIES]]
    if len(active) > LISTED_ENTRIES:
        listed.append(tr("tournament.more", count=len(active) - LISTED_ENTRIES))
    embed.add_field(
        name=tr("tournament.players", count=len(active), max=row.max_players),
        value=", ".join(listed) or tr("tournament.no_players"),
        inline=False,
    )
    embed.add_field(name=tr("tournament.organiser"), value=f"<@{row.created_by}>", inline=False)
    buttons = []
    if row.status is TournamentStatus.OPEN or row.joins_late:
        buttons.append(TournamentJoin.button(tr("button.join"), SUCCESS, tournament=row.id))
    if not row.status.over:
        buttons.append(TournamentLeave.button(tr("button.leave"), SECONDARY, tournament=row.id))
    view = drawing.view([row_payload(buttons)] if buttons else [])
    return {"embed": embed, "view": view}


def pairing_lines(
    row: TournamentRow, pairings: Sequence[PairingRow], round: int, tr: Translate
) -> str:
    """Round `round`'s pairings, one line each: "X – O", or a bye."""
    lines = []
    for pairing in pairings:
        if pairing.round != round:
            continue
        x = entrant_label(pairing.x, tr)
        if pairing.o is None:
            lines.append(tr("tournament.bye", player=x))
        else:
            lines.append(f"{x} – {entrant_label(pairing.o, tr)}")
    return "\n".join(lines)


def standings_rows(
    standings: Sequence[Standing],
    entries: Sequence[EntryRow],
    tr: Translate,
    names: dict[int, str],
) -> list[tuple[int, str, str, str, str, int, bool]]:
    """The standings as plain values for the picture job: rank, name, points, Buchholz,
    Sonneborn-Berger, games, withdrawn."""
    withdrawn = {e.entrant for e in entries if e.withdrawn}
    return [
        (
            s.rank,
            entrant_label(s.player, tr, names),
            points_text(s.points),
            points_text(s.buchholz),
            points_text(s.sonneborn_berger),
            s.games,
            s.player in withdrawn,
        )
        for s in standings
    ]


def picture_texts(
    row: TournamentRow, tr: Translate, *, final: bool, round: int
) -> tuple[str, str, tuple[str, str, str, str, str, str]]:
    """The standings picture's title, subtitle and column headers."""
    title = tr("tournament.title", id=row.id)
    if final:
        subtitle = tr("tournament.picture.final")
    elif row.format is Format.ARENA:
        subtitle = tr("tournament.picture.arena")
    else:
        subtitle = tr("tournament.picture.after", round=round, rounds=row.rounds or round)
    headers = (
        tr("tournament.col.rank"),
        tr("tournament.col.player"),
        tr("tournament.col.points"),
        tr("tournament.col.buchholz"),
        tr("tournament.col.berger"),
        tr("tournament.col.games"),
    )
    return title, subtitle, headers


def round_content(
    row: TournamentRow, round: int, pairings: Sequence[PairingRow], tr: Translate
) -> str:
    """The line posted when a round is over, with the next round's pairings if it is paired."""
    text = tr("tournament.round_done", id=row.id, round=round, rounds=row.rounds or round)
    following = pairing_lines(row, pairings, round + 1, tr)
    if following:
        text += "\n" + tr("tournament.next_round", round=round + 1) + "\n" + following
    return text


def final_content(row: TournamentRow, standings: Sequence[Standing], tr: Translate) -> str:
    podium = [
        f"{medal} {entrant_label(s.player, tr)} ({points_text(s.points)})"
        for medal, s in zip(MEDALS, standings, strict=False)
    ]
    return tr("tournament.final", id=row.id) + ("\n" + "\n".join(podium) if podium else "")


def started_content(row: TournamentRow, pairings: Sequence[PairingRow], tr: Translate) -> str:
    if row.format is Format.ARENA:
        return tr("tournament.started_arena", id=row.id, when=f"<t:{int(row.ends_at or 0)}:R>")
    first = pairing_lines(row, pairings, 1, tr)
    return tr("tournament.started", id=row.id) + ("\n" + first if first else "")


__all__ = [
    "STANDINGS_FILENAME",
    "announcement",
    "entrant_label",
    "final_content",
    "picture_texts",
    "round_content",
    "standings_rows",
    "started_content",
    "summary_line",
    "translator",
]
