"""One GameString rule: ``uhp.game_string_fields`` cuts every GameString (spaces, trailing ``;``)
and ``uhp.split_game_string`` names its parts (a bare game type; two parts refused); ``Game.from_string``,
the records' GameString and JSONL readers and ``read_record`` agree on what they read and keep their
own messages; one line rule (``records.record_lines``) for every record file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hive_env import Game, GameStringError, HiveError, NotationError
from hive_env.records import RecordError, read_game, read_record, record_lines
from hive_env.uhp import GameStringParts, game_string_fields, split_game_string

GAME = "Base;InProgress;White[2];wS1;bG1 wS1-"
KINDS = (RecordError, GameStringError, NotationError)
SHAPE = "is not a GameString (expected GameType;GameState;Turn[;Move]...)"


@pytest.mark.parametrize(("text", "parts"), [
    ("Base+MLP", ("Base+MLP", None, None, ())),
    ("  Base \n", ("Base", None, None, ())),
    (GAME, ("Base", "InProgress", "White[2]", ("wS1", "bG1 wS1-"))),
    (GAME + ";", ("Base", "InProgress", "White[2]", ("wS1", "bG1 wS1-"))),
    (" Base ; InProgress ; White[2] ; wS1 ; bG1 wS1- ; ; ",
     ("Base", "InProgress", "White[2]", ("wS1", "bG1 wS1-"))),
    ("Base;NotStarted;White[1];;;", ("Base", "NotStarted", "White[1]", ())),
    ("Base;;", ("Base", "", "", ())),  # three parts: the header is there, empty (parsing refuses it)
    ("Base;InProgress;White[2];wS1;;bG1 wS1-", ("Base", "InProgress", "White[2]", ("wS1", "", "bG1 wS1-"))),
    ("Foo;bar;baz;x;y;", ("Foo", "bar", "baz", ("x", "y"))),  # nothing parsed: moves can be counted
])
def test_the_splitter_strips_parts_and_drops_trailing_empty_ones(text, parts):
    assert split_game_string(text) == GameStringParts(*parts)


@pytest.mark.parametrize(("text", "game_type"), [("Base;InProgress", "Base"), ("Base;", "Base"),
                                                  (" Foo ; x ", "Foo"), (";", "")])
def test_two_parts_are_refused_and_their_fields_still_read(text, game_type):
    with pytest.raises(GameStringError) as caught:
        split_game_string(text)
    assert str(caught.value) == f"{text!r} {SHAPE}"
    assert game_string_fields(text)[0] == game_type and len(game_string_fields(text)) == 2


@pytest.mark.parametrize(("text", "moves"), [("Base", 0), ("Base;InProgress", 0), (GAME, 2),
                                             (GAME + "; ;", 2), ("Base;NotStarted;White[1];;", 0),
                                             ("x;y;z;a;;b;", 3)])
def test_moves_are_counted_from_the_fields_without_parsing(text, moves):
    assert max(len(game_string_fields(text)) - 3, 0) == moves


def _read_all(text: str, tmp_path: Path) -> list[str]:
    """The game (as its GameString) or the kind of error, from each reader of GameStrings."""
    path = tmp_path / "game.txt"
    path.write_text(f"# a record\n\n  {text}  \n", encoding="utf-8")
    readers = [lambda: Game.from_string(text), lambda: read_game(text).game, lambda: read_record(text),
               lambda: read_game(json.dumps({"game_string": text}) + "\n").game,
               lambda: read_game(path).game, lambda: read_record(str(path))]
    out = []
    for read in readers:
        try:
            out.append(read().game_string())
        except HiveError as e:
            out.append(next(k.__name__ for k in KINDS if isinstance(e, k)))
    return out


@pytest.mark.parametrize("text", [
    "Base", " Base+MLP ", GAME, GAME + ";", GAME + ";;", GAME + "; ; ",
    " Base ; InProgress ; White[2] ; wS1 ; bG1 wS1- ",
    "base;inprogress;white[2];WS1;bg1 WS1-", "Base;NotStarted;White[1];", "Base;NotStarted;White[1];;;",
])
def test_every_reader_reads_the_same_game(text, tmp_path):
    assert set(_read_all(text, tmp_path)) == {Game.from_string(text).game_string()}


@pytest.mark.parametrize("text", [
    "Base;InProgress", "Base;", "Base;;", "Base;InProgress;Red[1]", "Base;InProgress;White[3];wS1",
    GAME + ";;wQ", "Base;InProgress;White[2];wS1;;bG1 wS1-", "Foo;InProgress;White[1]", "Foo;x",
])
def test_every_reader_refuses_the_same_game_strings(text, tmp_path):
    got = _read_all(text, tmp_path)
    assert got[1] == got[3] == got[4] == "RecordError" and got[0] == got[2] == got[5] != "RecordError", got


STATES = "(expected one of NotStarted, InProgress, Draw, WhiteWins, BlackWins)"
TURN = "(expected White[n] or Black[n], n >= 1)"
# The messages each reader gave before the readers shared the splitter (the records' name the line).
MESSAGES = [
    ("Base;InProgress", GameStringError, f"'Base;InProgress' {SHAPE}",
     "<text>:1: not a GameString (GameType;GameState;Turn;moves...): 'Base;InProgress'"),
    ("Base;;", NotationError, f"'' is not a GameState {STATES}", f"<text>:1: '' is not a GameState {STATES}"),
    ("Base;InProgress;Red[1]", NotationError, f"'Red[1]' is not a Turn {TURN}",
     f"<text>:1: 'Red[1]' is not a Turn {TURN}"),
    (" Base ; InProgress ; White[3] ; wS1 ; bG1 wS1- ; ", GameStringError,
     "Turn White[3] disagrees with the moves, which give White[2]",
     "<text>:1: Turn White[3] disagrees with the moves, which give White[2]"),
    ("Base;WhiteWins;Black[1];wS1", GameStringError,
     "GameState WhiteWins disagrees with the moves, which give InProgress",
     "<text>:1: GameState WhiteWins disagrees with the moves, which give InProgress"),
    ("Base;InProgress;White[3];wS1;bG1 wS1-;wQ bG1-", GameStringError,
     "move 3 'wQ bG1-': wQ bG1-: wQ cannot be placed there: a placed tile may not touch an opponent's tile "
     "(after each side's first placement)",
     "<text>:1: ply 3 'wQ bG1-': wQ cannot be placed there: a placed tile may not touch an opponent's tile "
     "(after each side's first placement)"),
]


@pytest.mark.parametrize(("text", "kind", "message", "record_message"), MESSAGES, ids=lambda v: str(v)[:20])
def test_each_reader_keeps_its_messages(text, kind, message, record_message):
    with pytest.raises(kind) as caught:
        Game.from_string(text)
    assert str(caught.value) == message
    with pytest.raises(kind) as caught:
        read_record(text)
    assert str(caught.value) == message
    for record in (text, json.dumps({"game_string": text}) + "\n"):
        with pytest.raises(RecordError) as caught:
            read_game(record)
        assert str(caught.value) == record_message


def test_a_bad_game_type_is_named_before_a_missing_turn_in_records():
    """``Foo;x``: ``Game.from_string`` says it is not a GameString; a record names the game type."""
    with pytest.raises(GameStringError, match="'Foo;x' is not a GameString"):
        Game.from_string("Foo;x")
    with pytest.raises(RecordError) as caught:
        read_game(json.dumps({"game_string": "Foo;x"}) + "\n")
    assert str(caught.value) == "<text>:1: unknown game type 'Foo' (expected Base or Base+[M][L][P])"


def test_one_line_rule_for_every_record_file(tmp_path):
    text = "# games\r\n\r\n  \t\n\t# indented comment\n  Base;InProgress;Black[1];wS1 \r\nBase+M\n#\n"
    assert record_lines(text) == [(5, "Base;InProgress;Black[1];wS1"), (6, "Base+M")]
    path = tmp_path / "games.txt"
    path.write_bytes(text.encode())
    assert read_record(str(path)).game_string() == read_game(path).game.game_string() == \
        "Base;InProgress;Black[1];wS1"
    assert read_game(path, 1).source == f"{path}:6"
