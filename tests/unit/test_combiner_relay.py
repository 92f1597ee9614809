"""klinkctl.run.combiner_relay: λ from a query's controller to the instances that wait for it (the requests over
real HTTP: tests/unit/test_control_channel.py; the Java side: CombinerChannelTest, ControllerLoopTest)."""

from __future__ import annotations

import json
import threading
import time

import pytest

from klinkctl.run.combiner_relay import Intervals, parse_interval


def _interval(period: int, interval_ms: int = 100) -> str:
    return json.dumps({"period": period, "intervalMs": interval_ms, "fromMs": 1000 * period})


def test_an_instance_gets_the_latest_interval_it_has_not_seen_and_nothing_else() -> None:
    intervals = Intervals()
    intervals.publish("q00", _interval(1))
    intervals.publish("q00", _interval(2, 300))
    assert json.loads(intervals.await_change("q00", seen=0, wait_s=0)) == json.loads(_interval(2, 300))
    assert intervals.await_change("q00", seen=2, wait_s=0) == ""
    assert intervals.await_change("q01", seen=0, wait_s=0) == ""  # each query has its own controller


def test_a_waiting_instance_is_answered_as_soon_as_its_controller_decides() -> None:
    intervals = Intervals()
    answers: list[str] = []
    waiting = threading.Thread(target=lambda: answers.append(intervals.await_change("q00", seen=0, wait_s=10)))
    waiting.start()
    time.sleep(0.1)
    started = time.monotonic()
    intervals.publish("q00", _interval(1))
    waiting.join(5)
    assert time.monotonic() - started < 1 and json.loads(answers[0])["period"] == 1


def test_a_restarted_controller_counting_from_one_again_is_followed() -> None:
    intervals = Intervals()
    intervals.publish("q00", _interval(1, 40))
    assert json.loads(intervals.await_change("q00", seen=57, wait_s=0))["intervalMs"] == 40


@pytest.mark.parametrize("body, reason", [
    ("", "an interval is JSON"),
    ("[1, 2]", "exactly the keys"),
    ('{"period": 1, "intervalMs": 5}', "exactly the keys"),
    ('{"period": 1, "intervalMs": 5, "fromMs": 0, "x": 1}', "exactly the keys"),
    ('{"period": 1, "intervalMs": 5.5, "fromMs": 0}', "whole numbers"),
    ('{"period": true, "intervalMs": 5, "fromMs": 0}', "whole numbers"),
    ('{"period": 0, "intervalMs": 5, "fromMs": 0}', "at least 1"),
    ('{"period": 1, "intervalMs": 0, "fromMs": 0}', "at least 1"),
])
def test_a_malformed_interval_is_refused_in_one_line(body: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason) as refused:
        Intervals().publish("q00", body)
    assert "\n" not in str(refused.value)


def test_only_the_intervals_keys_are_relayed() -> None:
    assert parse_interval(' {"fromMs": 3, "period": 2, "intervalMs": 1}') == (
        2, '{"period": 2, "intervalMs": 1, "fromMs": 3}')


def test_the_longest_latest_interval_is_what_a_drain_waits_for() -> None:
    intervals = Intervals()
    assert intervals.longest_ms() == 0
    intervals.publish("q00", _interval(1, 9000))
    intervals.publish("q00", _interval(2, 400))  # only each query's latest counts
    intervals.publish("q01", _interval(1, 2500))
    assert intervals.longest_ms() == 2500


def test_a_run_waits_for_what_its_combiner_may_still_hold() -> None:
    from klinkctl.run.bench import combiner_hold_ms
    from klinkctl.run.config import resolve

    class Channel:  # the run's control channel, with the λ a controller set last (none: 0)
        def __init__(self, latest_ms: int) -> None:
            self.latest_ms = latest_ms

        def combiner_hold_ms(self) -> int:
            return self.latest_ms

    def hold(latest_ms: int = 0, **options: str) -> int:
        return combiner_hold_ms(resolve(None, options), Channel(latest_ms))

    assert hold(workload="ysb") == 0
    assert hold(workload="rides", combiner="none") == 0
    assert hold(workload="rides", combiner="local-global", combiner_interval="3s") == 3000
    assert hold(7000, workload="rides", combiner="adcom") == 7000  # λ grew past its initial 500 ms
    assert hold(0, workload="rides", combiner="adcom") == 500
