"""Game clocks and the time manager (players.clock)."""

import re

import pytest

import players.clock as pc
from players.clock import MAX_FRACTION, RESERVE_S, ClockControl, ClockError, GameClock, move_share


@pytest.mark.parametrize(("text", "base", "inc"), [("60+1", 60, 1), ("300", 300, 0), ("0.5+0.1", 0.5, 0.1),
                                                   (" 10 + 2 ", 10, 2), (".5", 0.5, 0)])
def test_a_control_parses_base_and_increment(text, base, inc):
    control = ClockControl.parse(text)
    assert (control.base_s, control.increment_s) == (base, inc)
    assert ClockControl.parse(str(control)) == control


@pytest.mark.parametrize("text", ["", "60+", "+1", "0+1", "-5+1", "60+1+2", "1m", "60+-1", "inf"])
def test_a_bad_control_is_one_line_error(text):
    with pytest.raises(ClockError) as e:
        ClockControl.parse(text)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("base,inc,why", [(0.0, 1.0, "base must be in (0, inf), got 0.0"),
                                          (60.0, -1.0, "increment must be in [0, inf), got -1.0"),
                                          (float("inf"), 0.0, "base must be in (0, inf), got inf"),
                                          (60.0, float("nan"), "increment must be in [0, inf), got nan")])
def test_a_control_out_of_range_names_the_side(base, inc, why):
    with pytest.raises(ClockError, match=re.escape(why)):
        ClockControl(base, inc)


def test_the_share_is_a_part_of_the_time_left_plus_the_increment():
    assert move_share(60, 1) == pytest.approx((60 - RESERVE_S) / 25 + 1)
    assert move_share(0, 1) == 0.0
    for left in (0.001, 0.02, 0.3, 1, 5, 60, 600):
        for inc in (0, 0.5, 1, 30):
            share = move_share(left, inc)
            assert 0 < share < left, (left, inc)
            assert share <= max(MAX_FRACTION * (left - RESERVE_S), 0.5 * left) + 1e-12


def test_a_side_spending_its_whole_share_never_flags_and_a_side_overspending_does():
    clock = GameClock(ClockControl.parse("5+0.1"))
    for _ in range(400):  # 400 moves each, every one taking its whole share
        for side in (0, 1):
            assert not clock.charge(side, clock.share(side))
    assert min(clock.remaining) > 0 and clock.flagged is None
    left = clock.remaining[1]
    assert clock.charge(1, left + 0.01)
    assert clock.flagged == 1 and clock.remaining[1] < 0


def test_the_increment_is_added_after_each_move():
    clock = GameClock(ClockControl(10, 2))
    clock.charge(0, 3)
    assert clock.remaining == [9, 10]


def test_a_hard_moves_allowance_is_some_shares_within_the_cap():
    assert pc.move_allowance(60, 1) == pytest.approx(pc.HARD_FACTOR * move_share(60, 1))
    assert pc.move_allowance(0, 1) == 0.0
    for left in (0.001, 0.02, 0.3, 1, 5, 60, 600):
        for inc in (0, 0.5, 1, 30):
            share, allowance = move_share(left, inc), pc.move_allowance(left, inc)
            assert share <= allowance <= pc.HARD_FACTOR * share + 1e-12, (left, inc)
            assert allowance <= max(MAX_FRACTION * (left - RESERVE_S), share) + 1e-12, (left, inc)


def test_a_side_spending_its_whole_allowance_on_every_move_never_flags():
    clock = GameClock(ClockControl.parse("5+0.1"))
    for _ in range(400):  # the worst case: every move hard, each taking all it may
        for side in (0, 1):
            assert not clock.charge(side, clock.allowance(side))
    assert min(clock.remaining) > 0 and clock.flagged is None
