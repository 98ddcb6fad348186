"""The text of /caro help, built in every language from the facts the bot plays by: the board
presets and the largest typed size, the rules, the AI levels and their ratings, adaptive
difficulty, big boards, the time limits and every /caro subcommand. A new preset, level or
subcommand shows up in the help of every language without anyone editing the help."""

from __future__ import annotations

from collections.abc import Callable

from bot.game.challenges import CHALLENGE_SECONDS
from bot.game.hints import HINT_LEVELS
from bot.game.ladder import LADDER_SIZE, MEASURED, games_between_levels, head_to_head
from bot.game.levels import ExternalLevel
from bot.game.model import External
from bot.game.options import (
    FIRSTS,
    OPENINGS,
    PRESET_RULES,
    SIZES,
    difficulties,
    parse_options,
    parse_size,
)
from bot.game.ratings import (
    AI_ANCHORS,
    K_FACTOR,
    LADDER_PIN,
    LEADERBOARD_MIN_GAMES,
    START_RATING,
)
from bot.game.seasons import SOFT_RESET_KEEP
from bot.game.settings import DEFAULT_TIMEOUTS
from bot.i18n.texts import Counted, command_name, subcommands, text_in
from bot.ui.render import MAX_BUTTON_SIDE
from engine.game.notation import MAX_SIDE
from engine.game.types import LEVELS, Level, Rule

# A typed size shown as the example of a custom board: bigger than every preset's button grid, so
# the example also meets the big-board paragraph.
EXAMPLE_SIZE = "12x12"
EXAMPLE_K = 4

Section = tuple[str, str]
# The name of a field that goes on with the one before it (a name is required; a zero-width space
# shows none).
CONTINUED = "\u200b"


# Field texts the list of commands is cut into.
COMMAND_FIELDS = 3


def _parts(lines: list[str]) -> list[str]:
    """`lines` as COMMAND_FIELDS field texts, in order: the list of commands outgrew one embed
    field (1024 characters), and a split by count keeps every language's help the same shape."""
    size = -(-len(lines) // COMMAND_FIELDS)
    return ["\n".join(lines[i : i + size]) for i in range(0, len(lines), size)]


def command(locale: str, name: str) -> str:
    """How a member whose Discord client is in `locale` types the subcommand `name`, e.g.
    "/caro bắt-đầu"."""
    return command_name(locale, name)


def _either(tr: Callable[..., str], items: list[str]) -> str:
    """ "a, b or c" in the language of `tr`."""
    if len(items) < 2:
        return "".join(items)
    return tr("help.or", first=", ".join(items[:-1]), last=items[-1])


def _rated(tr: Callable[..., str], level: Level, anchor: float) -> str:
    """What the help says of an AI level: its anchor, and its measured score against the level
    rated next below it, both from the ladder (bot.game.ladder)."""
    below = [other for other in AI_ANCHORS if AI_ANCHORS[other] < anchor]
    weaker = max(below, key=lambda other: AI_ANCHORS[other]) if below else None
    games = head_to_head(MEASURED, level, weaker) if weaker is not None else None
    if weaker is None or games is None:
        return tr("help.level.rated", rating=f"{anchor:g}")
    return tr(
        "help.level.rated_above",
        rating=f"{anchor:g}",
        score=f"{games.score:.0%}",
        weaker=tr(f"level.{weaker}"),
    )


def help_sections(locale: str, external: ExternalLevel, client: str | None = None) -> list[Section]:
    """(title, body) of each part of /caro help in `locale`, with the `external` level when the
    operator set one up, naming the commands as a Discord client in `client` shows them (by
    default `locale`); each body fits a Discord embed field (1024 characters) and the whole an
    embed (6000)."""

    def tr(key: str, /, **values: object) -> str:
        return text_in(locale, key, **values)

    def option(name: str) -> str:
        return tr(f"optname.{name}")

    def default(text: str, is_default: bool) -> str:
        return tr("help.default", text=text) if is_default else text

    defaults = parse_options()
    commands = {name: command(client or locale, name) for name in subcommands()}

    game = tr("help.game")

    command_lines = _parts(
        [
            tr("help.command", command=commands[name], description=tr(f"cmd.{name}"))
            for name in subcommands()
        ]
    )

    preset_lines = []
    for key, (rows, cols, k) in SIZES.items():
        line = tr("size.custom", rows=rows, cols=cols, k=k)
        if key in PRESET_RULES:
            line = tr(
                "help.size.with_rule", size=line, rule=tr(f"rulename.{PRESET_RULES[key].value}")
            )
        is_default = (rows, cols, k) == (defaults.rows, defaults.cols, defaults.k)
        preset_lines.append(tr("help.item", item=default(f"`{key}`", is_default), text=line))
    _, _, example_k = parse_size(EXAMPLE_SIZE)
    sizes = "\n".join(
        [
            tr("help.sizes", option=option("size")),
            *preset_lines,
            tr(
                "help.sizes.typed",
                max=MAX_SIDE,
                example=EXAMPLE_SIZE,
                example_k=example_k,
                chosen=f"{EXAMPLE_SIZE}k{EXAMPLE_K}",
                chosen_k=EXAMPLE_K,
            ),
            tr("help.sizes.big", side=MAX_BUTTON_SIDE, button=tr("button.type"), cell="H8"),
        ]
    )

    # Rules, levels and first players are chosen from a list showing their names in the
    # member's language, so the help shows those names (sizes are typed, so their values).
    rule_lines = [
        tr("help.bullet", text=default(tr(f"rule.{rule.value}"), rule is defaults.rule))
        for rule in Rule
    ]
    rule_lines += [
        tr("help.rules.preset", size=f"`{key}`", rule=tr(f"rulename.{rule.value}"))
        for key, rule in PRESET_RULES.items()
    ]
    rule_lines.append(
        tr(
            "help.rules.pictures",
            command=commands["help"],
            option=option("topic"),
        )
    )
    rules = "\n".join(
        [
            tr("help.rules", option=option("rule")),
            *rule_lines,
            tr(
                "help.openings",
                option=option("opening"),
                choices=_either(tr, [tr(f"openingname.{value}") for value in OPENINGS]),
            ),
        ]
    )

    level_lines = []
    for level in difficulties(external):
        engine = external.engine if level == External.ENGINE else None
        label = engine.name if engine is not None else tr(f"level.{level}")
        name = default(f"**{label}**", level == defaults.level)
        anchor = AI_ANCHORS.get(Level(level)) if level in LEVELS else None
        if engine is not None:
            text = tr("help.level.external", rating=f"{engine.rating:g}")
        elif anchor is not None:
            text = _rated(tr, Level(level), anchor)
        else:
            text = tr(f"help.level.{level}", start=f"{START_RATING:g}")
        level_lines.append(tr("help.item", item=name, text=text))
    first_lines = _either(
        tr, [default(tr(f"first.{who}"), who == defaults.first) for who in FIRSTS]
    )
    levels = "\n".join(
        [
            tr("help.levels", option=option("difficulty")),
            *level_lines,
            tr(
                "help.levels.ladder",
                games=games_between_levels(MEASURED),
                size=LADDER_SIZE,
                level=tr(f"level.{LADDER_PIN.value}"),
                start=f"{START_RATING:g}",
            ),
            tr(
                "help.hints",
                hint=commands["hint"],
                levels=_either(tr, [tr(f"level.{level}") for level in HINT_LEVELS]),
            ),
            tr("help.first", option=option("first"), choices=first_lines),
        ]
    )

    people = "\n".join(
        [
            tr(
                "help.challenge",
                challenge=commands["challenge"],
                count=CHALLENGE_SECONDS / 60,
            ),
            tr("help.watch", watch=commands["watch"], stop=tr("button.stop")),
            tr(
                "help.clock",
                pvp=Counted("count.minutes", DEFAULT_TIMEOUTS.pvp_timeout / 60),
                ai=Counted("count.minutes", DEFAULT_TIMEOUTS.ai_timeout / 60),
                settings=commands["settings"],
                resign=commands["resign"],
            ),
            tr(
                "help.ratings",
                start=f"{START_RATING:g}",
                k=f"{K_FACTOR:g}",
                stats=commands["stats"],
                leaderboard=commands["leaderboard"],
                count=LEADERBOARD_MIN_GAMES,
                rematch=commands["rematch"],
            ),
        ]
    )

    return [
        (tr("help.game.title"), game),
        *(
            (tr("help.commands.title") if i == 0 else CONTINUED, lines)
            for i, lines in enumerate(command_lines)
        ),
        (tr("help.sizes.title"), sizes),
        (tr("help.rules.title"), rules),
        (tr("help.levels.title"), levels),
        (tr("help.people.title"), people),
        (
            tr("help.seasons.title"),
            tr(
                "help.seasons",
                settings=commands["settings"],
                keep=f"{SOFT_RESET_KEEP:.0%}",
                start=f"{START_RATING:g}",
                leaderboard=commands["leaderboard"],
            ),
        ),
    ]
