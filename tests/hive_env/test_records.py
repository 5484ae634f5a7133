"""Game records in five formats (``hive_env.records``): what each reader reads, that the same
game reads the same from every format, and what is refused, in one line.

The fixtures in ``tests/data/records/`` (their README says where each comes from) hold real-looking
records; the writers below (Mzinga's PGN, boardspace's SGF) turn seeded random games of every game
type into records, and are held to the fixtures and to the examples found in real records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hive_env import PASS, Game
from hive_env.board import POS, move_dest, move_piece
from hive_env.grid import qr_of
from hive_env.pieces import PIECE_COLOUR
from hive_env.records import FORMATS_READ, RecordError, read_game, read_games
from hive_env.records.sgf import _tile

from helpers import GAME_TYPES, ROOT, random_game

RECORDS = ROOT / "tests" / "data" / "records"
GAMESTRINGS = RECORDS / "games_0.txt"
JSONL = RECORDS / "games.jsonl"
PGN = RECORDS / "mzinga.pgn"
SGF_BASE = RECORDS / "HV-alice-bob-2019-01-01-1234.sgf"
SGF_MLP = RECORDS / "HV-Dumbot-guest-2023-05-06-0742.sgf"

MLP_GAME = ("Base+MLP;BlackWins;White[32];wP;bL wP/;wQ /wP;bS1 bL/;wG1 wQ-;bA1 \\bS1;wG2 wG1\\;bQ bS1-;"
            "wG3 wG2-;bA1 /wG2;wA1 \\wG3;bP /bQ;wA2 -wQ;bA2 \\bS1;wA2 bQ-;bB1 -bA1;wQ /bP;bA3 \\bQ;"
            "wS1 /wP;bL -wS1;wP \\wS1;bM -bB1;wL wA2-;bL -wP;wM /wL;bA2 \\bL;wA1 wL/;bA3 \\wA1;wM /bB1;"
            "bA3 -bM;wS2 \\wA1;bS2 \\bS1;wA3 wP/;bB2 \\bQ;wA3 bA2/;bA3 bA1\\;wA3 -wQ;bA3 /wP;wA3 -bA2;"
            "bA3 wG3/;wA3 /bS2;bA3 /wA2;wA3 /wL;bA2 wA1/;wA2 bA2/;bG1 -bS2;wB1 -wQ;bQ bB2-;wM /bA1;"
            "bG2 -bG1;bL \\wB1;bQ \\bA3;wM \\bB2;bM bB1;wB2 \\wG3;bM -bB1;wA2 -wP;bA2 wA3\\;wG3 /bS1;"
            "bG3 \\bG2;wA2 wA1/;bL /bA3")
"""A seeded random Base+MLP game (seed 166) with a climb, a climb down and pillbug throws."""

BASE_GAME = ("Base;InProgress;White[9];wA1;bB1 -wA1;wS1 wA1\\;bB2 \\bB1;wA2 wS1/;bA1 -bB2;wQ wS1\\;"
             "bQ /bB2;wA3 wQ-;bB2 bA1;wB1 wA2/;bG1 /bQ;wA3 \\bB1;bB2 \\wA3;wA3 wQ/;bG2 -bG1")
"""A seeded random Base game (seed 33): the beetle bB2 climbs onto bA1 and comes down."""

PASS_GAME = ("Base;InProgress;Black[33];wS1;bA1 -wS1;wA1 wS1-;bA2 \\bA1;wQ /wA1;bS1 /bA1;wQ /wS1;bQ \\bA2;"
             "wA1 \\bQ;bS2 -bS1;wA1 wQ-;bG1 /bS2;wB1 wA1-;bB1 /bA2;wA2 /wB1;bQ -bA2;wA2 -bS2;bA2 /bG1;"
             "wS1 bQ/;bS1 /wB1;wA3 wB1-;bA2 \\wA3;wA3 /bS1;bA2 \\bA1;wB1 bS1;bA2 wA3\\;wA2 /bA2;"
             "bA3 -bS2;wB2 wA2\\;bA3 bA2-;wB1 /wA1;bA3 \\wA1;wS1 bA3/;bG2 -bS2;wB1 /wQ;bB2 /bG1;"
             "wS2 /wB1;bG2 /bA1;wG1 wS1/;bA1 bB2\\;wS2 bA1-;bQ -bB1;wG2 wS1-;bQ \\bB1;wB1 /bG2;bG3 -bQ;"
             "wG3 /wA2;bS2 -bG3;wB2 wA2-;bS2 /bB1;wB1 bS2;bG3 bB1/;wB1 bG2;bG3 -bQ;wB1 /bG2;bS2 -bG3;"
             "wG3 bA2/;bS2 /bB1;wA3 bB1/;bS2 -bG3;wA2 \\bS2;pass;wA3 wG2-;pass;wA3 \\wA2")
"""A seeded random Base game in which Black must pass twice (plies 62 and 64)."""


# ----- writers (what MzingaViewer and boardspace write) ------------------------------------


def mzinga_pgn(game_string: str, white: str = "", black: str = "", date: str = "") -> str:
    """The PGN MzingaViewer saves (GameRecording.SavePGN): mandatory tags, a blank line, one
    numbered MoveString a line, and the result after a blank line once the game is over."""
    game = Game.from_string(game_string)
    tags = [("GameType", game.game_type), ("Date", date), ("Event", ""), ("Site", ""), ("Round", ""),
            ("White", white), ("Black", black), ("Result", game.state)]
    lines = [f'[{key} "{value}"]' for key, value in tags]
    if game.moves:
        lines += [""] + [f"{i}. {ms}" for i, ms in enumerate(game.move_strings, start=1)]
    if game.is_over:
        lines += ["", game.state]
    return "\n".join(lines) + "\n"


_SLOT = {"Q": 0, "A": 1, "G": 2, "B": 3, "S": 4, "M": 5, "L": 6, "P": 7}  # boardspace rack cells


def bs_name(uhp_name: str) -> str:
    """boardspace's name of a UHP tile: its single tiles but the queen carry a 1 (``wM1``)."""
    return uhp_name + "1" if uhp_name[1] in "MLP" else uhp_name


def bs_cell(h: int) -> str:
    """boardspace's cell of an engine hex, the first tile being at N 13: the next letter is east,
    the next number north-west (so a hex's axial q adds letters and r takes numbers away)."""
    q, r = ((c + 16) % 32 - 16 for c in qr_of(h))
    return f"{chr(ord('N') + q)} {13 - r}"


def bs_ref(move_string: str, climb: str) -> str:
    """boardspace's reference of a MoveString: the UHP one with boardspace names (backslashes
    doubled, as SGF escapes them); a climb is ``.`` or the tile and a dot (``climb``)."""
    if " " not in move_string:
        return "."
    ref = move_string.split(" ", 1)[1]
    name = ref.strip("-/\\")
    if name == ref:
        return "." if climb == "." else bs_name(name) + "."
    return ref.replace(name, bs_name(name)).replace("\\", "\\\\")


def boardspace_sgf(game_string: str, players: tuple[str, str] = ("alice", "bob"), robot: bool = False,
                   variant: str = "", passes: str = "pass") -> str:
    """A boardspace SGF of a game: P0 plays White. A turn is ``pick``/``pickb`` then
    ``dropb``/``pdropb`` and ``done`` (a player at the board), or ``Move``/``Pmove`` and ``Done``
    (``robot``: capitalised, as recent records are, and climbs written ``wQ.``). ``passes``:
    ``pass`` (pass, done), ``done`` (a done alone) or ``omit`` (nothing, as recent boardspace
    clients write a forced pass)."""
    game = Game.from_string(game_string)
    replay = Game(game.game_type)
    letters = game.game_type.partition("+")[2].lower()
    su = variant or ("hive-" + "".join(c for c in "plm" if c in letters) if letters else "hive")
    lines = ["(;", "GM[27]VV[1]", f"SU[{su}]", f'P0[id "{players[0]}"]', f'P1[id "{players[1]}"]',
             "; P0[0 Start P0]"]
    for move in game.moves:
        for action in _bs_turn(replay, int(move), robot, passes):
            lines.append(f"; P{replay.side_to_move}[{len(lines) - 5} {action}]")
        replay.play(int(move))
    return "\n".join(lines + [")"]) + "\n"


def _bs_turn(game: Game, move: int, robot: bool, passes: str) -> list[str]:
    actions = _bs_actions(game, move, robot, passes)
    return [a[0].upper() + a[1:] for a in actions] if robot else actions


def _bs_actions(game: Game, move: int, robot: bool, passes: str) -> list[str]:
    done = "done"
    if move == PASS:
        return {"pass": ["pass", done], "done": [done], "omit": []}[passes]
    piece, dest = move_piece(move), move_dest(move)
    ms = game.move_string(move)
    name, colour = bs_name(ms.split()[0]), "WB"[int(PIECE_COLOUR[piece])]
    ref, cell = bs_ref(ms, "X." if robot else "."), bs_cell(dest)
    where = int(game.board[POS + piece])
    thrown = "p" if PIECE_COLOUR[piece] != game.side_to_move else ""
    if robot and where >= 0:
        return [f"{thrown}move {colour} {name} {cell} {ref}", done]
    pick = f"pickb {bs_cell(where)} {name}" if where >= 0 else f"pick {colour} {_SLOT[name[1]]} {name}"
    return [pick, f"{thrown}dropb {name} {cell} {ref}", done]


def refused(source: str | Path, *fragments: str) -> str:
    """The one-line message of the RecordError that reading ``source`` raises, holding ``fragments``."""
    with pytest.raises(RecordError) as caught:
        read_games(source)
    message = str(caught.value)
    assert "\n" not in message, message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    return message


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def sgf(variant: str, *actions: str) -> str:
    """A small boardspace SGF, one action a line (``P0 dropb wL N 13 .``), numbered in order."""
    body = [f"; {a.split(' ', 1)[0]}[{n} {a.split(' ', 1)[1]}]" for n, a in enumerate(actions, start=1)]
    head = ["(;", "GM[27]VV[1]", f"SU[{variant}]", 'P0[id "ann"]', 'P1[id "bob"]']
    return "\n".join([*head, *body, ")"]) + "\n"


# ----- each format -----------------------------------------------------------------------


def test_a_gamestring_file_gives_each_game_from_its_line():
    records = read_games(GAMESTRINGS)
    assert [r.game.game_string() for r in records] == [BASE_GAME, MLP_GAME, PASS_GAME]
    assert [r.source for r in records] == [f"{GAMESTRINGS}:2", f"{GAMESTRINGS}:3", f"{GAMESTRINGS}:5"]
    assert [(r.format, r.meta) for r in records] == [("gamestring", {})] * 3
    assert records[1].game.game_type == "Base+MLP" and records[1].game.state == "BlackWins"


def test_a_gamestring_can_be_passed_as_text_and_a_file_by_its_name():
    record = read_game(MLP_GAME)
    assert (record.game.game_string(), record.source, record.format) == (MLP_GAME, "<text>:1", "gamestring")
    assert read_game(str(GAMESTRINGS), 2).game.game_string() == PASS_GAME
    assert read_game("Base+MLP").game.game_string() == "Base+MLP;NotStarted;White[1]"


def test_the_arena_jsonl_gives_each_game_string_and_its_players():
    records = read_games(JSONL)
    assert [r.game.game_string() for r in records] == [MLP_GAME, BASE_GAME]
    assert [r.source for r in records] == [f"{JSONL}:1", f"{JSONL}:2"]
    assert records[0].format == "hive-zero-jsonl"
    assert records[0].meta == {"White": "alphabeta:depth=2", "Black": "random", "Result": "0-1",
                               "Termination": "BlackWins", "Id": "r0-g0"}


def test_mzinga_pgn_gives_its_tags_moves_passes_and_comments_aside():
    records = read_games(PGN)
    assert [r.game.game_string() for r in records] == [MLP_GAME, PASS_GAME]
    second = PGN.read_text().split("\n").index('[GameType "Base"]') + 1
    assert [r.source for r in records] == [f"{PGN}:1", f"{PGN}:{second}"]
    assert records[0].meta == {"GameType": "Base+MLP", "Date": "2023.05.06", "Event": "", "Site": "",
                               "Round": "", "White": "Dumbot", "Black": "guest", "Result": "BlackWins"}
    assert records[1].meta["Event"] == "Club night" and records[1].meta["Site"] == "Hive club"
    assert records[1].game.move_strings[61] == records[1].game.move_strings[63] == "pass"
    assert records[0].format == "pgn"


def test_the_pgn_writer_writes_what_the_fixture_holds():
    """The fixture's first game is exactly what MzingaViewer's SavePGN writes (tags in its order,
    one numbered move a line, the result after a blank line), so the writer is held to it."""
    assert PGN.read_text().startswith(mzinga_pgn(MLP_GAME, "Dumbot", "guest", "2023.05.06") + "\n[GameType")


def test_a_boardspace_game_at_the_board_with_take_backs_and_a_resignation():
    record = read_game(SGF_BASE)
    assert record.game.game_string() == BASE_GAME
    assert (record.format, record.source) == ("sgf", f"{SGF_BASE}:1")
    assert record.meta == {"Result": "The winner is bob", "Date": "Tue Jan 01 12:34:56 2019",
                           "GameName": "alice-bob-2019-01-01-1234", "Variant": "hive", "P0": "alice",
                           "P1": "bob", "White": "alice", "Black": "bob", "Termination": "P0 resigned"}


def test_a_boardspace_robot_game_with_expansion_tiles():
    record = read_game(SGF_MLP)
    assert record.game.game_string() == MLP_GAME
    assert record.meta["Variant"] == "hive-plm 2 0 101" and record.meta["White"] == "Dumbot"
    text = SGF_MLP.read_text()
    assert "Pmove B bL1" in text and "Move B bM1 L 10 bB1." in text and "Dropb wP1 N 13 ." in text


def _actions(text: str) -> list[str]:
    return [line.split("[", 1)[1].split(" ", 1)[1].split("]")[0] for line in text.split("\n")
            if line.startswith("; P")]


def test_the_sgf_writer_agrees_with_the_hand_written_record():
    """Every action the writer writes for the Base game is in the hand-written record, in order;
    the record also holds what a player at the board adds (a tile dropped and picked up again, a
    tile taken from the rack and put back, a tile put back where it was, a draw offered and
    declined, time stamps, a resignation). The robot record is the writer's, byte for byte."""
    remaining = iter(_actions(SGF_BASE.read_text()))
    assert all(action in remaining for action in _actions(boardspace_sgf(BASE_GAME)))
    assert len(_actions(SGF_BASE.read_text())) > len(_actions(boardspace_sgf(BASE_GAME))) + 8
    assert SGF_MLP.read_text() == boardspace_sgf(MLP_GAME, ("Dumbot", "guest"), robot=True,
                                                 variant="hive-plm 2 0 101")


# ----- round trips -----------------------------------------------------------------------


@pytest.mark.parametrize("path", [GAMESTRINGS, JSONL, PGN, SGF_BASE, SGF_MLP], ids=lambda p: p.name)
def test_every_record_replays_the_same_from_its_game_string(path):
    for record in read_games(path):
        again = Game.from_string(record.game.game_string())
        assert again.game_string() == record.game.game_string()
        assert list(again.moves) == list(record.game.moves) and again.status == record.game.status


def test_the_same_game_reads_the_same_from_the_five_formats():
    records = [read_game(GAMESTRINGS, 1), read_game(MLP_GAME), read_game(JSONL, 0), read_game(PGN, 0),
               read_game(SGF_MLP)]
    assert [r.format for r in records] == ["gamestring", "gamestring", "hive-zero-jsonl", "pgn", "sgf"]
    assert {r.game.game_string() for r in records} == {MLP_GAME}
    assert {r.game.hash for r in records} == {Game.from_string(MLP_GAME).hash}


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_random_games_of_every_type_read_back_from_pgn_and_sgf(game_type):
    game_string = random_game(game_type, seed=len(game_type), plies=44).game_string()
    assert read_game(mzinga_pgn(game_string)).game.game_string() == game_string
    for robot in (False, True):
        record = read_game(boardspace_sgf(game_string, robot=robot))
        assert record.game.game_string() == game_string and record.game.game_type == game_type


@pytest.mark.parametrize("passes", ["pass", "done", "omit"])
def test_forced_passes_are_read_however_boardspace_writes_them(passes):
    """A pass written as such, as a done alone, or left out (recent clients): the same game."""
    text = boardspace_sgf(PASS_GAME, passes=passes)
    assert text.count(" pass]") == (2 if passes == "pass" else 0)
    assert read_game(text).game.game_string() == PASS_GAME


# ----- boardspace's notation, as real records write it ------------------------------------


@pytest.mark.parametrize(("token", "colour", "want"), [
    ("wG1", None, (0, 3, 1)),  # Dropb wG1 O 15 wL/
    ("B1", 1, (1, 2, 1)),  # dropb B1 N 12 bG1 (old records: no colour)
    ("bq", None, (1, 0, 1)),  # pdropb bq L 14 -bL1
    ("L1", 0, (0, 6, 1)),  # move W L1 N 12 wG1\\
    ("M1", 1, (1, 5, 1)),  # pmove B M1 O 10 bM1-
    ("P", 0, (0, 7, 1)),  # move W P O 11 wQ-
    ("wQ", None, (0, 0, 1)), ("bA3", None, (1, 4, 3)), ("wM1", None, (0, 5, 1)), ("bL", None, (1, 6, 1)),
])
def test_boardspace_tile_names_of_real_records(token, colour, want):
    assert _tile(token, colour, "x") == want


@pytest.mark.parametrize("token", ["wA", "bA4", "wQ2", "wX1", "S1"])
def test_tile_names_that_are_not_one_tile_are_refused(token):
    with pytest.raises(RecordError, match="tile"):
        _tile(token, None, "x")


# Real records: "bA1 in M 12 next to wL in N 13 is /wL"; a BGA-to-boardspace converter's offsets
# give the other directions (/X: one letter and one number less; \X: one number more; -X: one
# letter less; X/: one letter and one number more; X\: one number less; X-: one letter more).
GRID = [("/wL", "M 12"), ("\\wL", "N 14"), ("-wL", "M 13"), ("wL/", "O 14"), ("wL\\", "N 12"),
        ("wL-", "O 13")]


@pytest.mark.parametrize(("ref", "cell"), GRID)
def test_the_grid_is_the_one_of_real_records(ref, cell):
    sgf_ref = ref.replace("\\", "\\\\")  # SGF escapes a backslash
    text = sgf("hive-l", "P0 dropb wL N 13 .", "P0 done", f"P1 dropb bA1 {cell} {sgf_ref}", "P1 done")
    assert read_game(text).game.game_string() == f"Base+L;InProgress;White[2];wL;bA1 {ref}"
    for _, other in GRID:
        if other != cell:
            bad = sgf("hive-l", "P0 dropb wL N 13 .", "P0 done", f"P1 dropb bA1 {other} {sgf_ref}", "P1 done")
            refused(bad, "<text>:8", f"reference {ref!r} names another cell than {other}")


def test_old_records_without_colours_lower_case_and_robot_moves():
    """Tiles named without a colour take it from the W or B of a move, from the tile in hand,
    or else (not thrown by a pillbug) from the player; a climb names the tile alone."""
    text = sgf("hive", "P0 pick W 4 S1", "P0 dropb S1 N 13 .", "P0 done",
               "P1 dropb B1 M 13 -wS1", "P1 done",
               "P0 move W Q N 12 wS1\\\\", "P0 done",
               "P1 pick B 0 Q", "P1 Dropb Q L 13 -bB1", "P1 Done",
               "P0 move B1 O 12 wQ-", "P0 done",
               "P1 pick B 2 G1", "P1 dropb G1 K 13 -bQ", "P1 done",
               "P0 pickb O 12 B1", "P0 dropb B1 N 12 wQ", "P0 done")
    assert read_game(text).game.game_string() == ("Base;InProgress;Black[4];wS1;bB1 -wS1;wQ wS1\\;bQ -bB1;"
                                                  "wB1 wQ-;bG1 -bQ;wB1 wQ")


def test_resignations_and_agreed_draws_end_the_game():
    opening = ("P0 dropb wS1 N 13 .", "P0 done")
    record = read_game(sgf("hive", *opening, "P1 resign", "P1 resign", "P1 dropb bS1 M 13 -wS1", "P1 done"))
    assert record.game.ply == 2 and "Termination" not in record.meta  # a second resign takes it back
    record = read_game(sgf("hive", *opening, "P1 OfferDraw", "P1 Done", "P0 AcceptDraw", "P0 Done"))
    assert (record.game.ply, record.meta["Termination"]) == (1, "draw agreed")
    assert read_game(sgf("hive", *opening, "P1 Resign")).meta["Termination"] == "P1 resigned"


def test_a_move_left_without_its_done_is_not_played():
    text = boardspace_sgf(BASE_GAME)
    cut = text[:text.rindex("; P1[")] + ")\n"
    record = read_game(cut)
    assert record.game.game_string() == Game.from_string(BASE_GAME).game_string().rsplit(";", 1)[0] \
        .replace("InProgress;White[9]", "InProgress;Black[8]")
    assert record.meta["Unconfirmed"] == "dropb bG2 J 12 -bG1 (no done: not played)"


# ----- refusals: one line, naming the place ------------------------------------------------


def test_an_illegal_move_names_file_line_ply_and_move(tmp_path):
    bad = "Base;InProgress;White[3];wS1;bG1 wS1-;wQ bG1-"
    path = write(tmp_path, "games_1.txt", f"# worker 1\n{BASE_GAME}\n{bad}\n")
    refused(path, f"{path}:3: ply 3 'wQ bG1-':")
    assert read_game(path, 0).game.game_string() == BASE_GAME  # the other games are not replayed
    path = write(tmp_path, "games.jsonl", json.dumps({"game_string": bad}) + "\n")
    refused(path, f"{path}:1: ply 3 'wQ bG1-':")
    path = write(tmp_path, "g.pgn", '[GameType "Base"]\n\n1. wS1\n2. bG1 wS1-\n3. wQ bG1-\n')
    refused(path, f"{path}:5: ply 3 'wQ bG1-':")
    path = write(tmp_path, "HV-a-b.sgf", sgf("hive", "P0 dropb wS1 N 13 .", "P0 done",
                                             "P1 dropb bG1 P 15 .", "P1 done"))
    refused(path, f"{path}:8: ply 2 'dropb bG1 P 15 .", "bG1")


def test_an_unknown_sgf_action_is_refused_with_its_line():
    text = sgf("hive", "P0 dropb wS1 N 13 .", "P0 done", "P1 teleport bG1 A 1")
    refused(text, "<text>:8: SGF action 'teleport bG1 A 1' is not understood")


@pytest.mark.parametrize(("text", "fragment"), [
    ("(;GM[27]SU[hive](;P0[1 done]))", "<text>:1: SGF variations are not read"),
    ("(;GM[1]SU[hive])", "GM[1] is not Hive"),
    ("(;GM[27]SU[hive-ultimate])", "SU[hive-ultimate] is not a variant read here"),
    ("(;GM[27]P0[id \"a\"])", "no SU[] variant"),
    ("(;GM[27]SU[hive]\n; P0[1 done]", "<text>:1: the SGF game tree has no closing ')'"),
    ("(;GM[27]SU[hive] XX)", "SGF property XX has no [value]"),
    (sgf("hive-l", "P0 dropb wL N 13 .", "P0 done", "P1 dropb bA1 M 12 /wQ", "P1 done"),
     "reference tile wQ is not in play"),
    (sgf("hive", "P0 dropb wS1 N 13 .", "P0 done", "P0 dropb wA1 O 13 wS1-", "P0 done"),
     "<text>:8: ply 2 'dropb wA1 O 13 wS1-': P0 moves, but it is P1's turn"),
    (sgf("hive", "P0 dropb wS1 N 13 .", "P0 done", "P1 resign", "P1 done", "P1 dropb bA1 O 13 wS1-"),
     "<text>:10: 'dropb bA1 O 13 wS1-' after the game ended (P1 resigned)"),
    (sgf("hive", "P0 dropb wS1 N 13 .", "P0 done", "P1 edit"), "changes the position during the game"),
    (sgf("hive", "P0 edit", "P0 dropb wS1 N 13 ."), "a position set up with 'edit' is not read"),
    (sgf("hive", "P0 dropb S1 N 13 .", "P0 done", "P1 pdropb A1 M 13 -wS1"), "has no colour"),
    (sgf("hive", "P0 dropb wS1 N 13 .", "P0 done", "P1 pickb C 3"), "no tile at C 3"),
    (sgf("hive", "P0 dropb wS1 N 13 .", "P0 done", "P1 dropb bM1 O 13 wS1-", "P1 done"), "no M tile in Base"),
    (sgf("hive", "P0 dropb wS1 N 13 .", "P0 done", "P1 dropb bS1 M 13 -wS1 x"), "is not understood (dropb"),
    ("(;GM[27]SU[hive]\n; P0[12])", "<text>:2: SGF action '12' is not understood"),
])
def test_what_an_sgf_reader_cannot_map_is_refused(text, fragment):
    refused(text, fragment)


def test_a_pgn_without_game_type_is_base():
    """As in Mzinga: no GameType tag reads as Base, and a tile of an expansion stops the game."""
    record = read_game("1. wS1\n2. bG1 wS1-\n")
    assert (record.game.game_string(), record.meta) == ("Base;InProgress;White[2];wS1;bG1 wS1-", {})
    refused("1. wS1\n2. bG1 wS1-\n3. wM -wS1\n", "<text>:3: ply 3 'wM -wS1':", "not part of game type Base")


@pytest.mark.parametrize(("text", "fragment"), [
    ('[GameType "Base+X"]\n\n1. wS1\n', "<text>:1: GameType: unknown game type 'Base+X'"),
    ('[GameType "Base"]\n\n1. wS1\n3. bG1 wS1-\n', "<text>:4: move number 3, but this is ply 2"),
    ('[GameType "Base"]\n\n1. wS1\n\nWhiteWins\n2. bG1 wS1-\n',
     "<text>:6: '2. bG1 wS1-' after the result line"),
    ('[GameType "Base"]\n{a comment\n\n1. wS1\n', "<text>:2: a PGN comment brace '{' without its pair"),
    ('[GameType Base]\n\n1. wS1\n', "<text>:1: not a PGN tag"),
    ('[GameType "Base"]\n\n1.\n', "<text>:3: move number 1 without a move"),
])
def test_what_a_pgn_reader_cannot_read_is_refused(text, fragment):
    refused(text, fragment)


@pytest.mark.parametrize(("line", "fragment"), [
    ('{"white": "a"}', 'a games.jsonl line is an object with a "game_string" text'),
    ('{"game_string": "Base;InProgress;White[2];wS1", ', "not a JSON object"),
    (json.dumps({"game_string": BASE_GAME, "plies": 15}),
     "plies 15 disagrees with the game_string, which has 16"),
])
def test_what_a_jsonl_reader_cannot_read_is_refused(line, fragment):
    refused(line + "\n", "<text>:1: " + fragment)


@pytest.mark.parametrize(("line", "fragment"), [
    ("Base;InProgress;White[3];wS1", "Turn White[3] disagrees with the moves, which give Black[1]"),
    ("Base;WhiteWins;Black[1];wS1", "GameState WhiteWins disagrees with the moves, which give InProgress"),
    ("Base;Started;Black[1];wS1", "'Started' is not a GameState"),
    ("Base;InProgress", "not a GameString"),
])
def test_a_gamestring_whose_header_disagrees_is_refused(line, fragment):
    refused(line, "<text>:1: " + fragment)


def test_an_empty_file_is_refused(tmp_path):
    refused(write(tmp_path, "empty.txt", ""), "empty.txt: empty: it holds no game record")
    refused(write(tmp_path, "blank.pgn", "\n  \n# nothing yet\n"), "blank.pgn: empty")


def test_a_file_that_is_not_a_record_names_the_formats_read(tmp_path):
    path = write(tmp_path, "notes.txt", "\nshopping list: milk\n")
    message = refused(path, f"{path}:2: not a game record ('shopping list: milk'); formats read: ")
    assert message.endswith(FORMATS_READ)
    refused("no/such/game.sgf", "<text>: neither a file nor a game record; formats read:")
    refused(tmp_path / "missing.pgn", "missing.pgn: no such file")
    (tmp_path / "b.sgf").write_bytes(b"\xff\xfe\x00(")
    refused(tmp_path / "b.sgf", "not a text file")


def test_asking_for_a_game_past_the_end_says_how_many_there_are():
    message = r"games\.jsonl: there is no game -?\d: it holds 2 games \(0\.\.1\)$"
    for index in (5, 2, -1):
        with pytest.raises(RecordError, match=message):
            read_game(JSONL, index)
    assert read_game(JSONL, 1).game.game_string() == BASE_GAME
