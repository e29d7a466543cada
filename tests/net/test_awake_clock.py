"""`AwakeClock`: the table's deadlines do not count the time the host process was not
running (chaos, private tables: a host stopped past a player's deadline voided the
round naming that player, who had sent everything it owed)."""

from __future__ import annotations

from pytest import approx

from rami_lan.net.awake_clock import BEAT, GRACE, STALL, AwakeClock


class Fake:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_running_time_is_the_loops_and_a_pause_counts_one_beat() -> None:
    real = Fake()
    clock = AwakeClock(real)
    start = clock.now()
    for _ in range(8):  # the heartbeat's readings: nothing is taken out
        real.t += BEAT
        clock.now()
    assert clock.now() - start == approx(8 * BEAT) and clock.stalls == 0
    real.t += 10.0  # SIGSTOP for 10 s, then SIGCONT
    after = clock.now()
    assert after - start == approx(9 * BEAT)  # the pause counts one beat, not 10 s
    assert clock.stalls == 1 and clock.since_stall() == 0.0
    real.t += 0.1
    assert clock.now() - after == approx(0.1) and clock.since_stall() < GRACE
    assert clock.real_at(clock.now()) == approx(real.t)  # a deadline is set in loop time


def test_the_tables_clock_never_goes_back_and_small_lags_count() -> None:
    real = Fake()
    clock = AwakeClock(real)
    readings = []
    for step in (0.1, STALL * 0.9, 0.0, 5.0, 0.2, STALL + 0.5):
        real.t += step
        readings.append(clock.now())
    assert readings == sorted(readings)
    assert readings[1] - readings[0] == approx(STALL * 0.9)  # a lag under STALL is real time
    assert clock.stalls == 2
