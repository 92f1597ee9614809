"""Which Flink counter says how many events a task read; CPU and memory of TaskManagers this machine cannot see."""

import os

from klinkctl.run import collectors
from klinkctl.run.collectors import source_events_metric
from klinkctl.stack.spec import StackSpec


def test_a_source_task_reads_the_events_its_source_operator_emitted_not_the_kafka_records():
    assert (source_events_metric("Source: q07/source -> q07/markers -> q07/filter -> q07/join")
            == "Source__q07/source.numRecordsOut")


def test_other_tasks_use_their_own_records_in():
    assert source_events_metric("q07/window -> q07/output -> q07/metrics") is None


# --- TaskManagers of an attached cluster: CPU and memory from Flink's REST metrics ---------------------------


def _serve(monkeypatch, answers: list[dict[str, float]]):
    """Flink's REST API with one TaskManager whose metrics take the given values, one dict per sample."""
    samples = iter(answers)

    def rest_get(spec, path, timeout=2.0):
        if path == "/taskmanagers":
            return {"taskmanagers": [{"id": "10.0.0.7:6122-ab12"}]}
        assert path.startswith("/taskmanagers/10.0.0.7:6122-ab12/metrics?get=Status.JVM.CPU.Time,")
        return [{"id": name, "value": str(value)} for name, value in next(samples).items()]

    monkeypatch.setattr(collectors.flink, "rest_get", rest_get)


def test_cpu_comes_from_the_change_of_cpu_time_and_memory_from_the_jvm_in_use(tmp_path, monkeypatch):
    memory = {"Status.JVM.Memory.Heap.Used": 100, "Status.JVM.Memory.NonHeap.Used": 20,
              "Status.JVM.Memory.Direct.MemoryUsed": 3}
    _serve(monkeypatch, [{"Status.JVM.CPU.Time": 1e9, **memory}, {"Status.JVM.CPU.Time": 1.5e9, **memory}])
    sampler = collectors.RestTaskManagers(StackSpec(state_dir=tmp_path))
    assert sampler.sample(1_000) == []  # one value is no rate yet
    assert sampler.sample(2_000) == [{"time": 2_000, "component": "taskmanager 10.0.0.7:6122-ab12", "pid": "",
                                      "cpu_percent": 50.0, "rss_bytes": 123, "source": "flink-rest"}]


def test_a_value_the_rest_api_did_not_refresh_makes_no_row_and_the_next_new_one_spans_the_whole_gap(
        tmp_path, monkeypatch):
    _serve(monkeypatch, [{"Status.JVM.CPU.Time": 0.0}, {"Status.JVM.CPU.Time": 0.0}, {"Status.JVM.CPU.Time": 2e9}])
    sampler = collectors.RestTaskManagers(StackSpec(state_dir=tmp_path))
    sampler.sample(0)
    assert sampler.sample(1_000) == []  # the same value again: Flink's fetcher has not refreshed it
    [row] = sampler.sample(4_000)
    assert row["cpu_percent"] == 50.0  # 2 s of CPU over the 4 s since the value last changed


def test_the_sampler_reads_rest_only_when_this_machine_has_no_taskmanager_process(tmp_path):
    spec = StackSpec(state_dir=tmp_path)
    attached = collectors.ResourceSampler(spec, "job", {}, tmp_path, "run", "default")
    local = collectors.ResourceSampler(spec, "job", {"taskmanager-1": os.getpid()}, tmp_path, "run", "default")
    assert isinstance(attached.rest_taskmanagers, collectors.RestTaskManagers)
    assert local.rest_taskmanagers is None
    attached.resources.close(), attached.throughput.close(), local.resources.close(), local.throughput.close()
