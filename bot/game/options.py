"""The options of /caro start, /caro challenge and /caro settings, parsed and validated: what a
member may type, and the clear refusal naming the valid choices for anything else."""

from __future__ import annotations

from dataclasses import dataclass

from bot.game.errors import UserError
from bot.game.levels import NO_ENGINE, ExternalLevel
from bot.game.model import BoardStyle, ChallengeFirst
from bot.i18n.texts import CATALOGUES, TextId
from engine import Rule
from engine.game.notation import SizeError
from engine.game.notation import parse_size as engine_parse_size
from engine.game.openings import MIN_SIDE, Opening
from engine.game.types import LEVELS, Level

ADAPTIVE = "adaptive"
DIFFICULTIES: tuple[str, ...] = (*LEVELS, ADAPTIVE)
SIZES: dict[str, tuple[int, int, int]] = {
    "3x3": (3, 3, 3),
    "4x4": (4, 4, 4),
    "5x5": (5, 5, 4),
    "9x9": (9, 9, 5),
    "15x15": (15, 15, 5),
    "19x19": (19, 19, 5),
}
# The Vietnamese game: 15x15, five in a row, caro rule, unless the player picks another rule.
PRESET_RULES: dict[str, Rule] = {"15x15": Rule.CARO}
RULES: tuple[str, ...] = tuple(r.value for r in Rule)
# Renju is played on the standard board unless the member picks another of k = 5.
RENJU_SIZE = "15x15"
FIRSTS: tuple[str, ...] = ("me", "ai", "random")
OPENINGS: tuple[str, ...] = tuple(opening.value for opening in Opening)
CHALLENGE_FIRSTS: tuple[str, ...] = tuple(f.value for f in ChallengeFirst)
MAX_TIMEOUT = 7 * 24 * 3600.0
THEMES: tuple[str, ...] = tuple(style.value for style in BoardStyle)
# A language a member or a server may choose: a catalogue's, or "auto" to choose none.
AUTO_LANGUAGE = "auto"
LANGUAGES: tuple[str, ...] = (AUTO_LANGUAGE, *CATALOGUES)


@dataclass(frozen=True, slots=True)
class GameOptions:
    level: str  # a Level's name, or "adaptive"
    rows: int
    cols: int
    k: int
    rule: Rule
    first: str  # "me", "ai" or "random" (a challenge: "me", "them" or "random")
    # False: a casual game, never rated (takebacks allowed); True: rated if the board allows.
    rated: bool = True
    opening: Opening = Opening.FREE


def _choice(value: str | None, default: str, allowed: tuple[str, ...], option: str) -> str:
    if value is None:
        return default
    cleaned = value.strip().lower()
    if cleaned not in allowed:
        raise UserError(
            "error.bad_choice",
            value=value[:40].replace("*", "").replace("`", "") or "(empty)",
            option=TextId(f"option.{option}"),
            choices=", ".join(allowed),
        )
    return cleaned


def difficulties(external: ExternalLevel) -> tuple[str, ...]:
    """The difficulties /caro start offers: DIFFICULTIES, and the external engine when the
    operator set one up (before "adaptive", which only picks among caro's own levels)."""
    return (*LEVELS, *external.offered(), ADAPTIVE)


def parse_options(
    difficulty: str | None = None,
    size: str | None = None,
    rule: str | None = None,
    first: str | None = None,
    *,
    firsts: tuple[str, ...] = FIRSTS,
    external: ExternalLevel = NO_ENGINE,
    rated: bool = True,
    opening: str | None = None,
) -> GameOptions:
    """Options of /caro start (and /caro challenge, with `firsts` = CHALLENGE_FIRSTS);
    UserError naming the valid choices for anything else. The external engine is a choice only
    with the `external` level of an operator who set one up."""
    level = _choice(difficulty, Level.NORMAL.value, difficulties(external), "difficulty")
    chosen_rule = None if rule is None else _choice(rule, rule, RULES, "rule")
    if size is None and chosen_rule == Rule.RENJU.value:
        size = RENJU_SIZE
    rows, cols, k = parse_size(size)
    size_key = f"{rows}x{cols}"
    rule_name = chosen_rule or PRESET_RULES.get(size_key, Rule.FREESTYLE).value
    if rule_name == Rule.RENJU.value and (k != 5 or min(rows, cols) < 5):
        raise UserError("error.renju_size")
    who = _choice(first, "me", firsts, "first")
    chosen_opening = _choice(opening, Opening.FREE.value, OPENINGS, "opening")
    if chosen_opening == Opening.RIF.value and rule is None and size is None:
        # RIF is renju's opening: asked for alone, it brings its rule and board.
        rows, cols, k = parse_size(RENJU_SIZE)
        rule_name = Rule.RENJU.value
    options = GameOptions(
        level=level, rows=rows, cols=cols, k=k, rule=Rule.parse(rule_name), first=who, rated=rated,
        opening=Opening(chosen_opening),
    )
    check_opening(options.opening, rows, cols, k, options.rule)
    return options


def check_opening(opening: Opening, rows: int, cols: int, k: int, rule: Rule) -> None:
    """UserError, saying why, if `opening` cannot be played on this board (engine.game.openings)."""
    if opening.refusal(rows, cols, k, rule) is None:
        return
    key = "opening.rif_only" if opening is Opening.RIF else "opening.too_small"
    raise UserError(key, opening=TextId(f"openingname.{opening.value}"), side=MIN_SIDE)


def parse_size(text: str | None) -> tuple[int, int, int]:
    """(rows, cols, k) of a preset ("15x15") or a typed size: "12x12" (k = 5, or the longer
    side if shorter) or "12x12k4", up to 26x26."""
    if text is None:
        return SIZES["3x3"]
    cleaned = text.strip().lower().replace(" ", "")
    if cleaned in SIZES:
        return SIZES[cleaned]
    try:
        return engine_parse_size(cleaned).with_k()
    except SizeError:
        pass
    raise UserError(
        "error.bad_size",
        value=text[:40].replace("*", "").replace("`", "") or "(empty)",
        choices=", ".join(SIZES),
    )


def parse_timeout(minutes: float, *, minimum_seconds: float) -> float:
    """A turn time limit given in minutes, as seconds; UserError outside the allowed range."""
    seconds = minutes * 60.0
    if not minimum_seconds <= seconds <= MAX_TIMEOUT:
        raise UserError(
            "error.bad_timeout",
            low=_minutes_text(minimum_seconds),
            high=_minutes_text(MAX_TIMEOUT),
        )
    return seconds


def _minutes_text(seconds: float) -> str:
    return f"{seconds / 60:g}"


def parse_theme(value: str) -> BoardStyle:
    return BoardStyle(_choice(value, value, THEMES, "theme"))


def parse_language(value: str) -> str | None:
    """A language option: a catalogue's locale, or None for "auto"."""
    chosen = _choice(value, value, LANGUAGES, "language")
    return None if chosen == AUTO_LANGUAGE else chosen
