"""Every user-facing string of the bot, keyed by id, so a translation is one more catalogue.

Strings are `str.format` templates; `t(key, **values)` fills them in. Code never builds English
sentences itself: it picks ids and passes values.
"""

from __future__ import annotations

from collections.abc import Mapping

DEFAULT_LOCALE = "en"

EN: dict[str, str] = {
    # ------------------------------------------------------------ start-up (console, not Discord)
    "console.no_token": (
        "caro-bot needs a Discord bot token and found none. Get one from the Discord Developer "
        "Portal (https://discord.com/developers/applications -> Applications -> your app -> Bot "
        "-> Reset Token), then put it in a file named .env in the directory you start the bot "
        "from, as a line DISCORD_TOKEN=your-token (see .env.example), or set the DISCORD_TOKEN "
        "environment variable."
    ),
    "console.bad_token": (
        "Discord refused the bot token (it is wrong, or it was reset). Copy a fresh one from the "
        "Developer Portal (your app -> Bot -> Reset Token) into DISCORD_TOKEN in .env."
    ),
    "console.bad_setting": "Setting {name} is invalid: {problem}",
    "console.not_a_number": "expected a whole number, got {value!r}",
    "console.not_positive": "expected a number of seconds above 0, got {value!r}",
    "console.bad_log_level": "expected DEBUG, INFO, WARNING or ERROR, got {value!r}",
    "console.privileged_intents": (
        "Discord refused the connection because the bot asks for an intent it is not allowed to "
        "use. caro-bot needs no privileged intents; check you are running an unmodified build."
    ),
    # ------------------------------------------------------------ command descriptions
    "cmd.group": "Play m,n,k games (tic-tac-toe, caro) against the AI",
    "cmd.start": "Start a game against the AI in this channel",
    "cmd.start.difficulty": "How strong the AI plays (default: normal)",
    "cmd.start.size": "Board size and how many in a row win (default: 3x3, 3 in a row)",
    "cmd.start.rule": "Which lines win (default: freestyle)",
    "cmd.start.first": "Who moves first and plays X (default: you)",
    "cmd.stats": "Wins, draws and losses of a player, and this server's leaderboard",
    "cmd.stats.user": "Whose stats to show (default: you)",
    "cmd.leaderboard": "This server's top 10 players",
    "cmd.help": "How to play",
    # ------------------------------------------------------------ option choices
    "level.easy": "easy",
    "level.normal": "normal",
    "level.hard": "hard",
    "level.impossible": "impossible",
    "size.3x3": "3x3, 3 in a row",
    "size.4x4": "4x4, 4 in a row",
    "size.5x5": "5x5, 4 in a row",
    "rule.freestyle": "freestyle (k or more in a row)",
    "rule.exact": "exact (exactly k; longer lines do not count)",
    "rule.caro": "caro (exactly k, not blocked at both ends)",
    "rulename.freestyle": "freestyle",
    "rulename.exact": "exact",
    "rulename.caro": "caro rule",
    "first.me": "me",
    "first.ai": "the AI",
    "first.random": "random",
    # ------------------------------------------------------------ option errors (ephemeral)
    "error.bad_choice": "**{value}** is not a valid {option}. Choose one of: {choices}.",
    "option.difficulty": "difficulty",
    "option.size": "size",
    "option.rule": "rule",
    "option.first": "first player",
    "error.guild_only": "caro games are played in a server channel, not in direct messages.",
    "error.already_playing": (
        "You already have a game running in this channel: {link}. Finish it before starting "
        "another."
    ),
    "error.already_playing_nolink": (
        "You already have a game running in this channel. Finish it before starting another."
    ),
    "error.internal": "Something went wrong on my side; the game was not changed. Try again.",
    # ------------------------------------------------------------ button errors (ephemeral)
    "click.forged": "That button is not one of this bot's game buttons; nothing was changed.",
    "click.no_game": "That game does not exist (any more); nothing was changed.",
    "click.not_your_game": "This is not your game. Start your own with `/caro start`.",
    "click.finished": "This game is over. Start a new one with `/caro start`.",
    "click.stale": (
        "That board is out of date (the game has moved on); use the latest board of this game."
    ),
    "click.not_your_turn": "Wait for the AI to answer before you move.",
    "click.off_board": "There is no cell {cell} on this board; nothing was changed.",
    "click.taken": "{cell} is already taken.",
    # ------------------------------------------------------------ the game message
    "game.title": "**{rows}x{cols}, {k} in a row, {rule}**",
    "game.players": "{player} ({player_mark}) vs AI ({ai_mark}, {level})",
    "game.ai_moved": "AI played **{cell}**: {reason}.",
    "game.ai_thinking": "The AI is thinking...",
    "game.your_turn": "Your turn ({mark}).",
    "game.result.win": "**You win!**",
    "game.result.loss": "**The AI wins.**",
    "game.result.draw": "**Draw.**",
    "game.abandoned": "This game was abandoned.",
    "reason.win": "completes a winning line",
    "reason.block": "blocks your winning line",
    "reason.fork": "makes two threats at once",
    "reason.threat": "threatens to win next move",
    "reason.defend": "defends against your threat",
    "reason.center": "takes the centre",
    "reason.develop": "builds up its position",
    "reason.unknown": "its choice",
    # ------------------------------------------------------------ stats and leaderboard
    "stats.title": "Stats of {name}",
    "stats.overall": "Overall",
    "stats.line": "{wins} W / {draws} D / {losses} L, {games} played, win rate {rate}",
    "stats.none": "No finished games in this server yet.",
    "stats.points": "Points: {points}",
    "board.title": "Leaderboard",
    "board.empty": "Nobody has finished a game in this server yet. Be the first: `/caro start`.",
    "board.line": "**{rank}.** {user}: {points} pts ({wins} W / {draws} D / {losses} L, {rate})",
    "board.rule": (
        "Points per game: win 3, draw 1, loss 0, times the difficulty weight (easy 1, normal 2, "
        "hard 3, impossible 4). Ties go to the higher win rate, then to more games played."
    ),
    # ------------------------------------------------------------ help
    "help.title": "How to play caro",
    "help.body": (
        "Get k of your marks in a row (across, down or diagonally) before the AI does.\n\n"
        "**/caro start** starts a game in this channel. Options:\n"
        "- `difficulty`: easy, normal (default), hard or impossible\n"
        "- `size`: 3x3 with 3 in a row (default), 4x4 with 4, or 5x5 with 4\n"
        "- `rule`: freestyle (default: k or more in a row win), exact (exactly k), or caro "
        "(exactly k, and not blocked by the opponent at both ends)\n"
        "- `first`: me (default), ai or random; whoever moves first plays X\n\n"
        "Click an empty cell to play there; the AI answers and says why it chose its move. "
        "Only you can click your board, and you can have one game per channel.\n\n"
        "**/caro stats** shows wins, draws and losses per difficulty and this server's "
        "leaderboard; **/caro leaderboard** shows the leaderboard alone."
    ),
}

CATALOGUES: dict[str, Mapping[str, str]] = {DEFAULT_LOCALE: EN}


def t(key: str, /, **values: object) -> str:
    """The English text `key`, filled with `values`."""
    return text_in(DEFAULT_LOCALE, key, **values)


def text_in(locale: str, key: str, /, **values: object) -> str:
    """The text `key` in `locale` (e.g. "vi" or "en-US"), falling back to English."""
    catalogue = CATALOGUES.get(locale.split("-")[0].lower(), EN)
    template = catalogue.get(key)
    if template is None:
        template = EN[key]  # KeyError here is a programming mistake: an id with no text.
    return template.format(**values) if values else template
