from klinkctl.smoke import expected_windows, smoke_events


def test_expected_windows_count_and_sum_per_key_and_window_end():
    events = [
        {"key": "a", "value": 1, "event_time": 0},
        {"key": "a", "value": 2, "event_time": 1999},
        {"key": "a", "value": 4, "event_time": 2000},
        {"key": "b", "value": 8, "event_time": 500},
    ]
    assert expected_windows(events, 2000) == {("a", 2000): (2, 3), ("a", 4000): (1, 4), ("b", 2000): (1, 8)}


def test_smoke_events_are_reproducible_and_out_of_order_only_within_the_bound():
    events = smoke_events(seed=3, start_ms=10_000, count=300, out_of_order_ms=250)
    assert events == smoke_events(seed=3, start_ms=10_000, count=300, out_of_order_ms=250)
    assert sorted(e["event_time"] for e in events) == [10_000 + 10 * i for i in range(300)]
    times = [e["event_time"] for e in events]
    assert times != sorted(times)  # really shuffled
    max_seen = 0
    for t in times:
        assert max_seen - t < 250  # never later than the watermark bound allows
        max_seen = max(max_seen, t)
