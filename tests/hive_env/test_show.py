"""``print(game)``, the steady text view, game records and ``hive-show`` (text and PNG)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hive_env import Game, HiveError
from hive_env.board import POS
from hive_env.display.plot import MARK, draw_board, hex_xy
from hive_env.display.text import View, render_board
from hive_env.grid import unwrap
from hive_env.records import at_ply, last_move_hexes, read_record

from helpers import MIDGAME, ROOT, WIN_IN_ONE, WIN_IN_ONE_MOVE

SHOW = [sys.executable, "-m", "scripts.show"]
RECORD = "Base;InProgress;White[5];wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wA1 \\wQ;bB1 bQ\\;wA1 bQ/;bB1 bQ"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def show(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SHOW, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_print_game_shows_the_board_and_repr_stays_short():
    game = Game.from_string(RECORD)
    text = str(game)
    assert text.splitlines()[-1] == "Base, InProgress, White[5] to move, ply 8"
    assert "wQ   wS1   bS1  bB1^2" in text and "stacks (bottom < top): bQ < bB1" in text
    assert repr(game) == "<Game Base InProgress White[5]>"
    assert str(Game("Base+M")) == "(empty board)\nBase+M, NotStarted, White[1] to move, ply 0"
    won = Game.from_string(WIN_IN_ONE)
    won.play(WIN_IN_ONE_MOVE)
    assert str(won).splitlines()[-1] == "Base, WhiteWins, ply 13"


@pytest.mark.parametrize(("game_string", "move", "reason"), [
    ("Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-", "wA1 bQ-",
     "a placed tile may not touch an opponent's tile (after each side's first placement)"),
    ("Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-", "wA1 wQ",
     "a tile is placed on an empty cell"),
    ("Base;InProgress;Black[1];wS1", "bS1 wS1", "a tile is placed on an empty cell"),
    ("Base;InProgress;White[4];wS1;bS1 wS1-;wG1 -wS1;bG1 bS1-;wA1 -wG1;bA1 bG1-", "wB1 -wA1",
     "the Queen must be placed by your fourth turn"),
])
def test_placement_errors_name_the_rule(game_string, move, reason):
    game = Game.from_string(game_string)
    with pytest.raises(HiveError) as refused:
        game.play(move)
    assert reason in str(refused.value)


def test_a_view_keeps_tiles_in_place_until_the_hive_grows_past_it():
    game = Game.from_string("Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-")
    view = View()
    before = render_board(game.board, view=view).splitlines()
    game.play("wA1 \\wQ")  # grows up and left: the frame moves once
    grown = render_board(game.board, view=view).splitlines()
    game.play("bA1 bQ-")  # grows right only: wS1 stays where it was
    right = render_board(game.board, view=view).splitlines()
    assert grown[2].index("wS1") == right[2].index("wS1")
    assert before[1].index("wS1") + 3 == grown[2].index("wS1")  # the frame grew by one column
    game.play("wA1 bQ/")  # the ant leaves the top-left: no re-centring
    moved = render_board(game.board, view=view).splitlines()
    assert moved[2].index("wS1") == right[2].index("wS1") and moved[0].strip() != ""
    unsteady = render_board(game.board).splitlines()
    assert unsteady[2].index("wS1") != moved[2].index("wS1")  # without a view it would jump


def test_read_record_from_a_string_or_file(tmp_path):
    path = tmp_path / "game.txt"
    path.write_text("# a comment\n\n" + RECORD + "\n")
    assert read_record(str(path)).game_string() == RECORD == read_record(RECORD).game_string()
    assert read_record("Base+L").game_type == "Base+L"
    assert at_ply(read_record(RECORD), 2).move_strings == ["wS1", "bS1 wS1-"]
    assert at_ply(read_record(RECORD), -1).ply == 7
    with pytest.raises(HiveError, match="neither a file nor a GameString"):
        read_record(str(tmp_path / "missing.txt"))
    (tmp_path / "bad.txt").write_text("Base;InProgress;White[2];wS1;bQ wS1-\n")
    with pytest.raises(HiveError, match="bad.txt: move 2"):
        read_record(str(tmp_path / "bad.txt"))
    with pytest.raises(HiveError, match="outside the game, which has 8 plies"):
        at_ply(read_record(RECORD), 9)


def test_hive_show_text_and_png(tmp_path):
    record = tmp_path / "game.txt"
    record.write_text(RECORD + "\n")
    png = tmp_path / "board.png"
    done = show(str(record), "--png", str(png))
    assert done.returncode == 0, done.stderr
    assert "bB1^2" in done.stdout
    assert "Base, InProgress, ply 8; last move bB1 bQ, White[5] to move" in done.stdout
    assert f"board drawn to {png}" in done.stdout and "\x1b[" not in done.stdout
    assert png.read_bytes().startswith(PNG_MAGIC)
    early = show(RECORD, "--ply", "2")
    assert early.returncode == 0 and "wS1   bS1" in early.stdout and "bQ" not in early.stdout
    assert "ply 2; last move bS1 wS1-" in early.stdout
    for args, message in [((str(record), "--ply", "20"), "ply 20 is outside the game"),
                          ((str(tmp_path / "none.txt"),), "neither a file nor a game record")]:
        bad = show(*args)
        assert bad.returncode == 2 and bad.stderr.startswith("hive-show: error: ") and message in bad.stderr
        assert bad.stderr.count("\n") == 1


def _mark_pixels(rgb: np.ndarray) -> np.ndarray:
    """[n, 2] (row, column) of the pixels drawn in the last-move colour."""
    mark = np.array([int(MARK[i:i + 2], 16) for i in (1, 3, 5)])
    return np.argwhere(np.abs(rgb[..., :3].astype(int) - mark).max(axis=-1) <= 12)


def _midgame_after_a_movement() -> Game:
    game = Game.from_string(MIDGAME)
    game.play(next(int(m) for m in game.legal_moves() if game.board[POS + (int(m) >> 10)] >= 0))
    return game


def test_draw_board_marks_the_last_move_at_its_cells():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    game = Game.from_string(RECORD)  # the last move: bB1 from beside bQ onto it
    origin, dest = last_move_hexes(game)
    assert game.board[POS + 3 + 14] == dest != origin >= 0  # bB1 sits on the destination
    ax = draw_board(game.board, last_move=(origin, dest))
    ax.figure.canvas.draw()
    rgb = np.asarray(ax.figure.canvas.buffer_rgba())
    height = rgb.shape[0]
    placed = sorted({int(h) for h in game.board[POS:POS + 28] if h >= 0} | {origin})
    centres = {h: hex_xy(*qr) for h, qr in unwrap(placed).items()}
    to_data = ax.transData.inverted()
    marked = _mark_pixels(rgb)
    assert len(marked) > 200
    xy = to_data.transform(np.column_stack([marked[:, 1] + 0.5, height - marked[:, 0] - 0.5]))
    near = {h: np.hypot(*(xy - np.array(c)).T) <= 1.0 for h, c in centres.items()}
    assert near[dest].sum() > 100 and near[origin].sum() > 20  # the outline, the dashed hexagon
    assert (near[dest] | near[origin]).all()  # nowhere else
    x, y = centres[origin]
    col, row = ax.transData.transform((x, y))
    faint = rgb[int(height - row), int(col), :3].astype(int)
    assert faint[0] > faint[1] > faint[2] and faint.min() > 150  # a light orange tint, not a tile
    plt.close(ax.figure)
    assert last_move_hexes(Game.from_string("Base;InProgress;Black[1];wS1"))[0] == -1  # a placement
    assert last_move_hexes(Game()) is None


def _three_games(tmp_path) -> tuple[Path, Game]:
    """A file of three games, and its second (a middle game whose last move is a movement)."""
    records = tmp_path / "games.txt"
    middle = _midgame_after_a_movement()
    records.write_text("\n".join(["Base;InProgress;White[2];wS1;bS1 wS1-", middle.game_string(), RECORD]))
    return records, middle


def test_hive_show_picks_a_game_of_a_file_and_draws_it_large_with_the_last_move(tmp_path):
    import matplotlib.image

    records, middle = _three_games(tmp_path)
    png = tmp_path / "second.png"
    done = show(str(records), "--game", "2", "--png", str(png))
    assert done.returncode == 0, done.stderr
    assert f"ply {middle.ply}; last move {middle.move_strings[-1]}" in done.stdout
    image = matplotlib.image.imread(png)
    assert image.shape[1] >= 800  # readable: a hex about 100 pixels wide
    assert len(_mark_pixels((image[..., :3] * 255).round())) > 200


def test_hive_show_refuses_a_game_the_file_does_not_hold(tmp_path):
    records, _ = _three_games(tmp_path)
    for args, message in [(("--game", "4"), f"{records}: there is no game 4: it holds 3 games (1..3)"),
                          (("--game", "0"), "--game counts from 1, not 0")]:
        bad = show(str(records), *args)
        assert bad.returncode == 2 and bad.stderr == f"hive-show: error: {message}\n"
