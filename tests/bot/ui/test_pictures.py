"""The board image: size, coordinates, stones, last move, winning line, window outline."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from bot.game.model import DEFAULT_STYLE, BoardStyle
from bot.ui.pictures import (
    BUTTON_RGB,
    DEFAULT_THEME,
    THEMES,
    ButtonColour,
    RenderError,
    cell_centre,
    clear_caches,
    image_size,
    layout,
    legend_height,
    render_board,
    render_replay,
    render_step,
    render_turning_point,
    warm_up,
)
from bot.ui.pictures import _empty_board as _empty_board
from bot.ui.window import Window
from engine import Board, Rule

WOOD = THEMES["wood"]
PAPER = THEMES["paper"]
RGB = tuple[int, int, int]


def played(rows: int, cols: int, k: int, *names: str, rule: Rule = Rule.FREESTYLE) -> Board:
    board = Board(rows, cols, k, rule)
    for name in names:
        board.push_name(name)
    return board


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    return image.convert("RGB")


def colour_at(image: Image.Image, xy: tuple[int, int]) -> RGB:
    pixel = image.getpixel(xy)
    assert isinstance(pixel, tuple)
    return (int(pixel[0]), int(pixel[1]), int(pixel[2]))


def centre(board: Board, name: str) -> tuple[int, int]:
    return cell_centre(board.rows, board.cols, board.parse_move(name))


def midpoint(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    return (a[0] + b[0]) // 2, (a[1] + b[1]) // 2


# A mid-game 15x15 caro position: 14 stones, X first, O last (on F8), no winner yet.
MID_GAME = ("H8", "I9", "H9", "H10", "G8", "I8", "J7", "G10", "F9", "E10", "I10", "G9", "F10", "F8")


# ---------------------------------------------------------------------------- size
@pytest.mark.parametrize("side", range(3, 27))
def test_image_decodes_at_the_advertised_size(side: int) -> None:
    image = decode(render_board(Board(side, side, min(side, 5))))
    assert image.size == image_size(side, side)
    width, height = image.size
    assert width == height
    assert 300 <= width <= 800


def test_nineteen_by_nineteen_is_a_comfortable_size() -> None:
    assert 600 <= image_size(19, 19)[0] <= 800
    assert layout(19, 19).cell >= 30  # a stone stays ~20 px when Discord scales the image down


def test_rectangular_board_is_wider_than_tall() -> None:
    board = played(6, 20, 5, "T6", "A1")
    image = decode(render_board(board, last_move=False))
    width, height = image.size
    assert (width, height) == image_size(6, 20)
    assert width > 2 * height
    assert colour_at(image, centre(board, "A1")) == WOOD.o_ink
    assert colour_at(image, centre(board, "T6")) == WOOD.x_ink


def test_board_size_out_of_range_is_refused() -> None:
    with pytest.raises(RenderError, match="1x1 to 26x26"):
        image_size(27, 3)


# ---------------------------------------------------------------------------- content
def test_stones_are_drawn_in_their_colours() -> None:
    board = played(15, 15, 5, *MID_GAME, rule=Rule.CARO)
    image = decode(render_board(board, last_move=False))
    for index, name in enumerate(MID_GAME):
        expected = WOOD.x_ink if index % 2 == 0 else WOOD.o_ink
        assert colour_at(image, centre(board, name)) == expected, name
    for empty in ("A1", "O15", "H7", "K10"):
        assert colour_at(image, centre(board, empty)) == WOOD.background, empty


def test_paper_theme_draws_red_crosses_and_blue_rings() -> None:
    board = played(9, 9, 5, "E5", "D4")
    image = decode(render_board(board, theme="paper", last_move=False))
    # An X's strokes cross at the centre; an O is a ring with paper showing in the middle.
    assert colour_at(image, centre(board, "E5")) == PAPER.x_ink
    x, y = centre(board, "D4")
    assert colour_at(image, (x, y)) == PAPER.background
    ring = round(layout(9, 9).cell * 0.3)
    assert PAPER.o_ink in {colour_at(image, (x + dx, y)) for dx in range(ring - 3, ring + 3)}


def test_coordinates_are_written_on_all_four_sides() -> None:
    board = Board(15, 15, 5)
    image = decode(render_board(board))
    geometry = layout(15, 15)
    m, cell, lw = geometry.margin, geometry.cell, geometry.line_width
    far = m + 15 * cell + lw

    def inked(box: tuple[int, int, int, int]) -> bool:
        colours = image.crop(box).getcolors(maxcolors=256)
        return colours is None or any(colour != WOOD.background for _, colour in colours)

    for i in range(15):
        lo, hi = m + i * cell + lw + 1, m + (i + 1) * cell - 1
        assert inked((lo, 0, hi, m - 2)), f"column {i} top"
        assert inked((lo, far + 2, hi, image.height)), f"column {i} bottom"
        assert inked((0, lo, m - 2, hi)), f"row {i} left"
        assert inked((far + 2, lo, image.width, hi)), f"row {i} right"
    # and nothing outside the labels' slots: the corners stay blank
    assert not inked((0, 0, m - 2, m - 2))
    assert not inked((far + 2, far + 2, image.width, image.height))


def test_last_move_is_marked() -> None:
    board = played(15, 15, 5, *MID_GAME, rule=Rule.CARO)
    marked = decode(render_board(board))
    plain = decode(render_board(board, last_move=False))
    last = centre(board, "F8")
    assert colour_at(plain, last) == WOOD.o_ink
    assert colour_at(marked, last) == WOOD.last_dot
    # only around the last stone
    before = centre(board, "F10")
    assert colour_at(marked, before) == colour_at(plain, before) == WOOD.x_ink


def test_paper_theme_shades_the_last_cell() -> None:
    board = played(9, 9, 5, "E5", "D4")
    corner = layout(9, 9).inner_box(board.parse_move("D4"))[:2]
    other = layout(9, 9).inner_box(board.parse_move("E5"))[:2]
    image = decode(render_board(board, theme="paper"))
    assert colour_at(image, corner) == PAPER.last_fill
    assert colour_at(image, other) == PAPER.background


def test_winning_line_is_drawn_through_the_five() -> None:
    names = ("A1", "B1", "A2", "B2", "A3", "B3", "A4", "B4")
    going = played(9, 9, 5, *names)
    won = played(9, 9, 5, *names, "A5")
    assert won.outcome() is not None
    before = decode(render_board(going))
    after = decode(render_board(won))
    between = midpoint(centre(won, "A2"), centre(won, "A3"))  # on the grid line between stones
    assert colour_at(before, between) != WOOD.win_line
    assert colour_at(after, between) == WOOD.win_line
    assert colour_at(after, centre(won, "A1")) == WOOD.win_line
    # the losing stones are untouched
    assert colour_at(after, centre(won, "B2")) == WOOD.o_ink


def test_diagonal_winning_line_runs_corner_to_corner() -> None:
    board = played(15, 15, 5, "K1", "A1", "J2", "A2", "I3", "A3", "H4", "A4", "G5")
    outcome = board.outcome()
    assert outcome is not None and len(outcome.line) == 5
    image = decode(render_board(board))
    for a, b in (("K1", "J2"), ("J2", "I3"), ("H4", "G5")):
        assert colour_at(image, midpoint(centre(board, a), centre(board, b))) == WOOD.win_line


def test_window_is_outlined() -> None:
    board = played(19, 19, 5, "K10", "L11")
    window = Window(8, 8)
    geometry = layout(19, 19)
    with_window = decode(render_board(board, window=window))
    without = decode(render_board(board))
    x0, y0 = geometry.cell_origin((8, 8))
    x1, y1 = geometry.cell_origin((12, 13))  # one past the window's last row and column
    half = geometry.cell // 2
    # the middle of each side and each corner of the rectangle
    on_outline = [(x0 + half, y0), (x0 + half, y1), (x0, y0 + half), (x1, y0 + half)]
    on_outline += [(x0, y0), (x1, y1)]
    for xy in on_outline:
        assert colour_at(with_window, xy) == WOOD.window, xy
        assert colour_at(without, xy) == WOOD.line, xy
    # a grid line just outside the window is left alone
    assert colour_at(with_window, (x1 + geometry.cell, y0 + half)) == WOOD.line
    # and the cells inside show the same stones
    assert colour_at(with_window, centre(board, "K10")) == WOOD.x_ink


def test_highlighted_cells_are_shaded_under_their_stones() -> None:
    board = played(15, 15, 5, "H8", "I9")
    geometry = layout(15, 15)
    image = decode(render_board(board, highlight=[(7, 7), (3, 3)], last_move=False))
    assert colour_at(image, geometry.inner_box((3, 3))[:2]) == WOOD.highlight
    assert colour_at(image, geometry.centre((3, 3))) == WOOD.highlight
    assert colour_at(image, geometry.inner_box((7, 7))[:2]) == WOOD.highlight
    assert colour_at(image, geometry.centre((7, 7))) == WOOD.x_ink
    assert colour_at(image, geometry.inner_box((8, 8))[:2]) == WOOD.background


# ---------------------------------------------------------------------------- stability and errors
def test_same_input_gives_the_same_bytes() -> None:
    board = played(15, 15, 5, *MID_GAME, rule=Rule.CARO)
    window = Window(5, 5)
    first = render_board(board, window=window, highlight=[(0, 0)])
    clear_caches()
    again = render_board(Board.from_text(board.text()), window=window, highlight=[(0, 0)])
    assert first == again
    assert render_board(board) != first


def test_rendering_does_not_change_the_cached_empty_board() -> None:
    empty = render_board(Board(9, 9, 5))
    render_board(played(9, 9, 5, "E5", "D4"), window=Window(2, 2), highlight=[(0, 0)])
    assert render_board(Board(9, 9, 5)) == empty


def test_the_warm_up_draws_the_common_board_ahead_and_changes_no_picture() -> None:
    board = played(15, 15, 5, "H8", "H9")
    clear_caches()
    cold = render_board(board, players=("Alice", "Bob"))
    clear_caches()
    warm_up()
    # The 15x15 board of the default theme is ready before the first move asks for it.
    assert _empty_board.cache_info().currsize == 1
    assert render_board(board, players=("Alice", "Bob")) == cold
    assert _empty_board.cache_info().hits >= 1


def test_bad_requests_are_explained() -> None:
    board = Board(15, 15, 5)
    with pytest.raises(RenderError, match="unknown theme 'neon': choose one of wood, paper, "):
        render_board(board, theme="neon")
    with pytest.raises(RenderError, match="highlighted cell \\(15, 0\\) is not on a 15x15 board"):
        render_board(board, highlight=[(15, 0)])
    with pytest.raises(RenderError, match="window w12.0 goes past the edge of a 15x15 board"):
        render_board(board, window=Window(12, 0))
    assert issubclass(RenderError, ValueError)


# ---------------------------------------------------------------------------- replays and legend
def frames_of(gif: bytes) -> list[Image.Image]:
    image = Image.open(io.BytesIO(gif))
    assert image.format == "GIF"
    frames = []
    for index in range(image.n_frames):  # type: ignore[attr-defined]
        image.seek(index)
        frames.append(image.convert("RGB"))
    return frames


def test_a_replay_starts_on_its_final_position_then_plays_every_move_from_empty() -> None:
    board = played(15, 15, 5, *MID_GAME, rule=Rule.CARO)
    frames = frames_of(render_replay(board))
    assert len(frames) == len(MID_GAME) + 2
    # A client that shows only the first frame shows the position the replay's text names.
    assert frames[0].tobytes() == frames[-1].tobytes()
    frames = frames[1:]
    first, last = frames[0], frames[-1]
    for name in MID_GAME:
        assert colour_at(first, centre(board, name)) == WOOD.background
        assert colour_at(last, centre(board, name)) != WOOD.background
    # Frame n shows the first n stones and not the next one.
    for n, name in enumerate(MID_GAME, start=1):
        cell_box = layout(15, 15).inner_box(board.parse_move(name))
        assert frames[n - 1].crop(cell_box).getcolors(maxcolors=4096) != frames[n].crop(
            cell_box
        ).getcolors(maxcolors=4096), f"move {n} ({name}) does not appear on frame {n}"


def test_a_replay_shows_the_winning_line_on_its_last_frame_and_holds_it() -> None:
    board = played(15, 15, 5, "H8", "G8", "I8", "H9", "J8", "J9", "K8", "A1", "L8")
    gif = render_replay(board, frame_ms=500, last_frame_ms=2500)
    frames = frames_of(gif)
    between = midpoint(centre(board, "H8"), centre(board, "I8"))
    assert colour_at(frames[-1], between) == WOOD.win_line
    assert colour_at(frames[-2], between) != WOOD.win_line
    image = Image.open(io.BytesIO(gif))
    durations = []
    for index in range(image.n_frames):  # type: ignore[attr-defined]
        image.seek(index)
        durations.append(image.info["duration"])
    assert durations == [2500] + [500] * 10


def test_a_long_replay_plays_faster_and_stays_small() -> None:
    rng = random.Random(5)
    board = Board(19, 19, 5)
    while board.ply < 120:
        board.push(rng.choice(list(board.legal_moves)))
        if board.is_over():
            board.pop()
    gif = render_replay(board, players=("Alice", "Bob"))
    assert len(gif) < 1_000_000  # Discord takes 10 MiB; a replay should be a fraction of it
    image = Image.open(io.BytesIO(gif))
    assert image.n_frames == 122  # type: ignore[attr-defined]
    image.seek(2)
    assert 100 <= image.info["duration"] < 700


def test_the_stepper_picture_is_the_board_after_that_move_with_it_marked() -> None:
    board = played(15, 15, 5, *MID_GAME, rule=Rule.CARO)
    for ply in (0, 5, len(MID_GAME)):
        step = decode(render_step(board, ply))
        expected = decode(render_board(played(15, 15, 5, *MID_GAME[:ply], rule=Rule.CARO)))
        assert step.tobytes() == expected.tobytes()
    with pytest.raises(RenderError, match="ply must be from 0 to 14"):
        render_step(board, 15)


def test_the_legend_says_which_stones_are_whose_under_the_board() -> None:
    board = played(15, 15, 5, *MID_GAME, rule=Rule.CARO)
    plain = decode(render_board(board))
    with_legend = decode(render_board(board, players=("Nguyễn Văn An", "caro AI (hard)")))
    width, height = image_size(15, 15)
    assert plain.size == (width, height)
    assert with_legend.size == (width, height + legend_height(15, 15))
    # The board part is unchanged; the strip under it holds a black and a white stone and text.
    assert with_legend.crop((0, 0, width, height)).tobytes() == plain.tobytes()
    strip = with_legend.crop((0, height, width, with_legend.height))
    colours = {colour for _, colour in strip.getcolors(maxcolors=4096) or []}
    assert WOOD.x_ink in colours and WOOD.o_ink in colours and WOOD.label in colours
    # Different names draw different legends; the same names the same bytes.
    other = decode(render_board(board, players=("Bob", "Alice")))
    assert other.crop((0, height, width, other.height)).tobytes() != strip.tobytes()
    again = decode(render_board(board, players=("Nguyễn Văn An", "caro AI (hard)")))
    assert again.tobytes() == with_legend.tobytes()


def test_a_very_long_name_is_cut_to_fit_the_legend() -> None:
    board = Board(3, 3, 3)
    image = decode(render_board(board, players=("x" * 500, "o" * 500), theme="paper"))
    assert image.width == image_size(3, 3)[0]
    # Text stays inside the right margin.
    margin = layout(3, 3).margin
    right = image.crop((image.width - margin // 2, image_size(3, 3)[1], image.width, image.height))
    assert {colour for _, colour in right.getcolors(maxcolors=4096) or []} == {PAPER.background}


def test_players_must_be_two_names() -> None:
    with pytest.raises(RenderError, match="two names"):
        render_board(Board(9, 9, 5), players=("only one",))  # type: ignore[arg-type]


def test_a_turning_point_shows_the_move_played_and_shades_the_better_one() -> None:
    moves = ("H8", "G8", "I8", "H9", "J8", "J9", "K8", "A1", "L8")
    game = played(15, 15, 5, *moves)
    better = game.parse_move("L8")
    image = decode(render_turning_point(game, 8, better, players=("Alice", "Bob")))
    assert image.size == (image_size(15, 15)[0], image_size(15, 15)[1] + legend_height(15, 15))
    x, y, _, _ = layout(15, 15).inner_box(better)
    assert colour_at(image, (x + 1, y + 1)) == WOOD.highlight  # the better move's cell
    assert colour_at(image, centre(game, "A1")) == WOOD.last_dot  # the move played, marked
    assert colour_at(image, centre(game, "L8")) != WOOD.x_ink  # X's winning stone is not yet on
    with pytest.raises(RenderError, match="is the move played"):
        render_turning_point(game, 8, game.parse_move("A1"))


# ----------------------------------------------------------------------------- themes
# Machado, Oliveira and Fernandes (2009), full severity, on linear RGB: what a player with each
# common colour blindness sees.
COLOUR_BLINDNESS = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}


def linear(colour: RGB) -> tuple[float, float, float]:
    def one(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return one(colour[0]), one(colour[1]), one(colour[2])


def luminance(colour: RGB) -> float:
    r, g, b = linear(colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: RGB, b: RGB) -> float:
    """WCAG's contrast ratio, from 1 (the same) to 21 (black on white)."""
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def lab(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
    """CIELAB (D65) of a linear RGB colour."""
    r, g, b = (min(1.0, max(0.0, v)) for v in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def seen_apart(a: RGB, b: RGB, matrix: tuple[tuple[float, ...], ...] | None) -> float:
    """How far apart two colours look (CIE76 delta E) to normal eyes or through `matrix`."""
    def seen(colour: RGB) -> tuple[float, float, float]:
        c = linear(colour)
        if matrix is None:
            return lab(c)
        r, g, b = (sum(m * v for m, v in zip(row, c, strict=True)) for row in matrix)
        return lab((r, g, b))

    return float(sum((p - q) ** 2 for p, q in zip(seen(a), seen(b), strict=True)) ** 0.5)


def hue_and_saturation(colour: RGB) -> tuple[float, float]:
    import colorsys

    h, s, _ = colorsys.rgb_to_hsv(*(v / 255 for v in colour))
    return h * 360, s


def nearest_button(colour: RGB) -> ButtonColour:
    """The coloured button style (not grey) whose hue is closest to `colour`'s."""
    hue, _ = hue_and_saturation(colour)

    def apart(style: ButtonColour) -> float:
        d = abs(hue - hue_and_saturation(BUTTON_RGB[style])[0])
        return min(d, 360 - d)

    coloured = [s for s in ButtonColour if s is not ButtonColour.SECONDARY]
    return min(coloured, key=apart)


def chromatic(colour: RGB) -> bool:
    return hue_and_saturation(colour)[1] >= 0.12


def test_there_is_a_theme_for_every_board_style_a_member_may_pick_and_no_other() -> None:
    assert set(THEMES) == set(BoardStyle)
    assert sorted(THEMES) == sorted(style.value for style in BoardStyle)
    assert DEFAULT_THEME == DEFAULT_STYLE


def test_there_are_at_least_four_themes_and_one_is_high_contrast() -> None:
    assert len(THEMES) >= 4 and DEFAULT_THEME in THEMES
    assert all(name == look.name for name, look in THEMES.items())
    assert any(look.marked_button is None for look in THEMES.values())


@pytest.mark.parametrize("name", sorted(THEMES))
def test_each_theme_gives_a_colour_the_same_meaning_on_the_picture_and_on_the_buttons(
    name: str,
) -> None:
    look = THEMES[name]
    # What the picture draws in a colour, and the button style showing the same thing.
    meanings: list[tuple[RGB, ButtonColour | None, str]] = [
        (look.x_ink, look.x_button, "X"), (look.o_ink, look.o_button, "O")]
    meanings += [(look.last_mark, look.marked_button, "the last move"),
                 (look.win_line, look.marked_button, "the winning line")]
    for colour, button, what in meanings:
        if button is None:
            # Not shown by a colour on the buttons: not by one on the picture either.
            assert not chromatic(colour), f"{name}: {what} is coloured on the picture only"
        elif chromatic(colour):
            assert nearest_button(colour) is button, f"{name}: {what} {colour} is not {button}"
        else:
            # Black and white stones: buttons cannot be black or white, so only X and O may be
            # drawn so (the key names both); a mark in no colour would contradict its button.
            assert what in ("X", "O"), f"{name}: {what} is uncoloured but {button} on buttons"
    # The window's outline means no side: it is grey, not a colour a button uses.
    assert not chromatic(look.window), f"{name}: the window outline looks like a side's colour"
    assert len({look.x_button, look.o_button, look.marked_button}) == 3
    assert ButtonColour.SECONDARY not in (look.x_button, look.o_button, look.marked_button)


@pytest.mark.parametrize("name", sorted(THEMES))
def test_each_theme_draws_its_own_colours_and_marks_the_last_move(name: str) -> None:
    look = THEMES[name]
    board = played(9, 9, 5, "E5", "D4", "F6")
    image = decode(render_board(board, theme=name))
    colours = {colour for _, colour in image.getcolors(maxcolors=65536) or []}
    assert {look.background, look.line, look.label, look.x_ink, look.o_ink} <= colours
    assert look.last_mark in colours
    x0, y0, x1, _ = layout(9, 9).inner_box(board.parse_move("F6"))
    marked = {colour_at(image, (x, y0 + 1)) for x in range(x0, x1)}
    assert look.last_mark in marked or colour_at(image, centre(board, "F6")) == look.last_mark
    assert render_board(board, theme=name) != render_board(board, theme=DEFAULT_THEME) or (
        name == DEFAULT_THEME
    )


def test_the_high_contrast_theme_is_readable_and_safe_for_colour_blind_players() -> None:
    look = THEMES["contrast"]
    # Crosses and rings: the sides differ in shape, not only in colour.
    assert look.glyphs
    # Stones, marks and text stand out from the board as WCAG AA asks of text (4.5:1), the
    # grid as it asks of graphics (3:1).
    for what in ("x_ink", "o_ink", "label", "win_line", "last_mark"):
        assert contrast(getattr(look, what), look.background) >= 4.5, what
    assert contrast(look.line, look.background) >= 3
    # X and O stay far apart to normal eyes and in each common colour blindness (a delta E
    # over 40 is two plainly different colours).
    for kind, matrix in [("normal", None), *COLOUR_BLINDNESS.items()]:
        assert seen_apart(look.x_ink, look.o_ink, matrix) > 40, kind
    # Its buttons never put Discord's red next to its green, the pair most players with a
    # colour blindness confuse.
    used = {look.x_button, look.o_button, look.marked_button}
    assert not {ButtonColour.DANGER, ButtonColour.SUCCESS} <= used


def test_the_high_contrast_theme_frames_the_last_move() -> None:
    look = THEMES["contrast"]
    board = played(9, 9, 5, "E5", "D4")
    image = decode(render_board(board, theme="contrast"))
    x0, y0, x1, y1 = layout(9, 9).inner_box(board.parse_move("D4"))
    for xy in ((x0, y0), (x1, y1), ((x0 + x1) // 2, y0), (x0, (y0 + y1) // 2)):
        assert colour_at(image, xy) == look.last_frame, xy
    plain = decode(render_board(board, theme="contrast", last_move=False))
    assert colour_at(plain, (x0, y0)) == look.background


@pytest.mark.parametrize("name", sorted(THEMES))
def test_replays_and_reviews_are_drawn_in_the_theme_asked_for(name: str) -> None:
    look = THEMES[name]
    game = played(9, 9, 5, "E5", "D4", "E6", "D5", "E4", "D6", "E3", "A1", "E7")
    frames = frames_of(render_replay(game, theme=name, players=("a", "b")))
    # The final position, then the empty board.
    assert {look.x_ink, look.o_ink, look.win_line} <= {c for _, c in frames[0].getcolors(65536) or []}
    assert colour_at(frames[1], centre(game, "E5")) == look.background
    step = decode(render_step(game, 9, theme=name))
    assert colour_at(step, midpoint(centre(game, "E4"), centre(game, "E5"))) == look.win_line
    point = decode(render_turning_point(game, 2, game.parse_move("C3"), theme=name))
    assert colour_at(point, centre(game, "C3")) == look.highlight


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_a_line_of_play_is_numbered_in_its_order_and_nothing_else_is(theme: str) -> None:
    board = played(9, 9, 5, "E5", "D4", "F5", "G6", "C3")
    line = [board.parse_move(name) for name in ("F5", "G6", "C3")]
    plain = decode(render_board(board, theme=theme))
    numbered = decode(render_board(board, theme=theme, numbered=line))
    geometry = layout(9, 9)
    for cell in board.moves:
        box = geometry.inner_box(cell)
        changed = ImageChops.difference(plain.crop(box), numbered.crop(box)).getbbox()
        assert (changed is not None) == (cell in line), cell
    # The numbers are 1, 2, 3 in the line's order: swapping the line swaps the drawings.
    backwards = decode(render_board(board, theme=theme, numbered=line[::-1]))
    first = geometry.inner_box(line[0])
    assert numbered.crop(first).tobytes() != backwards.crop(first).tobytes()
    assert numbered.crop(first).tobytes() == decode(
        render_board(board, theme=theme, numbered=line[:1])
    ).crop(first).tobytes()
    with pytest.raises(RenderError):
        render_board(board, numbered=[board.parse_move("A1")])


def test_the_themes_page_names_each_themes_window_outline_colour() -> None:
    page = Path(__file__).parents[3] / "docs" / "playing" / "themes.md"
    rows = [line.split("|") for line in page.read_text().splitlines() if line.startswith("| `")]
    header = next(line for line in page.read_text().splitlines() if line.startswith("| Theme"))
    column = [cell.strip() for cell in header.split("|")].index("Window outline")

    def named(colour: RGB) -> str:
        brightest, darkest = max(colour), min(colour)
        assert brightest - darkest <= 20, f"{colour} is not black or grey"
        if brightest <= 40:
            return "black"
        return "dark grey" if brightest <= 120 else "light grey"

    said = {row[1].strip().split("`")[1]: row[column].strip() for row in rows}
    assert said == {name: named(look.window) for name, look in THEMES.items()}
