"""The clock rules (services.turns.clock), alone: banks, timeouts in a row, deadlines."""

from __future__ import annotations

from games import get_game
from services.kinds import SeatKind
from services.turns import clock, steps

SEATS = [{"kind": SeatKind.HUMAN, "level": "", "name": ""}] * 2


def timed(bank: float = 10.0, max_timeouts: int = 2) -> tuple[dict, object]:
    state = get_game("cite").new_game(2, 1, get_game("cite").parse_options({}))
    steps.resolve_chance(state, 1, 0, [])  # the deal: a seat is to move after it
    meta = clock.start({"seats": SEATS}, clock.Timer(5.0, bank, "random", max_timeouts))
    return clock.restart(meta, state, 0, 100.0, moved=True), state


def test_the_deadline_is_the_move_time_plus_the_bank():
    meta, state = timed()
    seat = state.current_player()
    assert clock.running(meta, 0) == {"seat": seat, "deadline": 115.0, "bank": 10.0}
    assert clock.seconds_left(meta, 0, 110.0) == 5.0
    assert clock.running(meta, 1) is None  # the clock belongs to version 0


def test_a_slow_move_draws_on_the_bank_and_a_quick_one_does_not():
    meta, state = timed()
    seat = state.current_player()
    slow = clock.charge(meta, seat, 108.0, timed_out=False)  # 8 s: 3 over
    assert slow["clock"]["banks"][seat] == 7.0
    quick = clock.charge(meta, seat, 102.0, timed_out=False)
    assert quick["clock"]["banks"][seat] == 10.0


def test_timeouts_in_a_row_count_and_a_move_of_ones_own_ends_the_row():
    meta, state = timed()
    seat = state.current_player()
    once = clock.charge(meta, seat, 116.0, timed_out=True)
    assert once["clock"]["strikes"][seat] == 1 and once["clock"]["banks"][seat] == 0.0
    assert not clock.out_of_chances(once, seat)
    twice = clock.charge(once, seat, 130.0, timed_out=True)
    assert clock.out_of_chances(twice, seat)
    forgiven = clock.charge(once, seat, 117.0, timed_out=False)
    assert forgiven["clock"]["strikes"][seat] == 0


def test_a_seat_change_elsewhere_does_not_restart_the_running_clock():
    meta, state = timed()
    later = clock.restart(meta, state, 1, 112.0, moved=False)
    assert clock.running(later, 1)["deadline"] == 115.0
    moved = clock.restart(meta, state, 1, 112.0, moved=True)
    assert clock.running(moved, 1)["deadline"] == 112.0 + 5.0 + 10.0


def test_bad_timer_settings_are_named():
    assert "move_seconds" in clock.timer_problem(clock.Timer(0.0))
    assert "move_seconds" in clock.timer_problem(clock.Timer(float("nan")))
    assert "bank_seconds" in clock.timer_problem(clock.Timer(1.0, -1.0))
    assert "max_timeouts" in clock.timer_problem(clock.Timer(1.0, 0.0, "random", -1))
    assert clock.timer_problem(clock.Timer(1.0)) is None
