"""klinkctl.run.container_stats: CPU and memory from the Docker engine's stats samples (the engine itself, with a
compose stack: tests/integration/test_compose_backend.py)."""

from __future__ import annotations

import time

import pytest

from klinkctl.run.container_stats import DOCKER, ContainerStats, cpu_and_memory


def _sample(read: str, cpu_ns: int, usage: int, inactive_file: int = 0) -> dict:
    return {"read": read, "cpu_stats": {"cpu_usage": {"total_usage": cpu_ns}},
            "memory_stats": {"usage": usage, "stats": {"inactive_file": inactive_file}}}


def test_cpu_is_the_cgroups_cpu_time_over_the_time_between_samples_and_memory_leaves_out_file_cache():
    before = _sample("2026-11-27T02:20:01.000000000Z", 10_000_000_000, 0)
    after = _sample("2026-11-27T02:20:02.000500000Z", 10_250_000_000, 600 * 2**20, inactive_file=100 * 2**20)
    cpu, memory = cpu_and_memory(before, after)
    assert cpu == pytest.approx(25.0, rel=1e-3)  # a quarter of a core for a second
    assert memory == 500 * 2**20


def test_samples_that_cannot_tell_give_nothing():
    good = _sample("2026-11-27T02:20:01.5Z", 1, 1)
    assert cpu_and_memory(good, good) is None  # no time between them
    assert cpu_and_memory({"read": "0001-01-01T00:00:00Z", "cpu_stats": {}, "memory_stats": {}}, good) is None


class _Container:
    def __init__(self, samples: list[dict]) -> None:
        self.attrs, self.samples = {"State": {"Pid": 4242}}, samples

    def stats(self, stream: bool, decode: bool):
        assert stream and decode
        yield from self.samples


class _Client:
    def __init__(self, containers: dict) -> None:
        self.containers, self.closed = self, False
        self._by_id = containers

    def get(self, container_id: str) -> _Container:
        return self._by_id[container_id]

    def close(self) -> None:
        self.closed = True


def test_each_containers_latest_sample_becomes_a_docker_row_and_a_gone_container_none():
    samples = [_sample(f"2026-11-27T02:20:0{i}Z", i * 500_000_000, 200 * 2**20) for i in range(1, 4)]
    client = _Client({"c1": _Container(samples)})
    stats = ContainerStats(client, {"taskmanager-1": "c1", "kafka": "gone"})
    deadline = time.monotonic() + 5
    while not stats.rows(0) and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.05)
    assert stats.rows(7) == [{"time": 7, "component": "taskmanager-1", "pid": 4242, "cpu_percent": pytest.approx(50.0),
                              "rss_bytes": 200 * 2**20, "source": DOCKER}]
    assert stats.components == {"taskmanager-1", "kafka"}
    stats.stop()
    assert client.closed
