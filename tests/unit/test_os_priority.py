"""Policy os-priority's pure logic: backlog metrics, ranking to nice values, task threads by comm, its settings."""

import pytest

from klinkctl import privileges
from klinkctl.errors import KlinkError
from klinkctl.run import bench, os_priority, outcome_checks, stack_checks
from klinkctl.run.config import RunSpec, resolve
from klinkctl.run.os_priority import (INPUT_QUEUE_METRIC, backlog_metric, check_usable, comm_of_task, map_threads,
                                      nice_by_score, scores)

SOURCE = "Source: q00/source -> q00/markers -> q00/filter -> q00/join"
WINDOW = "q00/window -> q00/output -> q00/metrics-sink: Writer -> q00/metrics-sink: Committer"
SOURCE_1 = "Source: q01/source -> q01/markers -> q01/filter -> q01/join"
WINDOW_1 = "q01/window -> q01/output -> q01/metrics-sink: Writer -> q01/metrics-sink: Committer"


def test_a_source_is_ranked_by_its_unread_kafka_records_any_other_task_by_its_input_queue():
    assert backlog_metric(SOURCE) == "Source__q00/source.pendingRecords"
    assert backlog_metric(WINDOW) == INPUT_QUEUE_METRIC


def test_each_metric_kind_is_scaled_to_its_own_largest_value():
    backlogs = {SOURCE: ("Source__q00/source.pendingRecords", 500.0),
                SOURCE_1: ("Source__q01/source.pendingRecords", 250.0),
                WINDOW: (INPUT_QUEUE_METRIC, 4.0), WINDOW_1: (INPUT_QUEUE_METRIC, 0.0)}
    assert scores(backlogs) == {SOURCE: 1.0, SOURCE_1: 0.5, WINDOW: 1.0, WINDOW_1: 0.0}
    assert scores({WINDOW: (INPUT_QUEUE_METRIC, 0.0)}) == {WINDOW: 0.0}  # nothing queued: no division by 0


def test_the_most_backlogged_vertex_gets_the_best_nice_an_empty_queue_the_worst_the_rest_in_proportion():
    assert nice_by_score({"a": 1.0, "b": 0.0, "c": 0.5}) == {"a": 0, "b": 19, "c": 10}
    assert nice_by_score({"a": 1.0, "b": 1.0, "c": 0.0}) == {"a": 0, "b": 0, "c": 19}  # ties share a value
    assert nice_by_score({"a": 1.0, "b": 0.5, "c": 0.0}, best=5, worst=11) == {"a": 5, "b": 8, "c": 11}


def test_nearly_equal_backlogs_get_nearly_equal_nice_values():
    backlogs = {"src0": ("Source__q00/source.pendingRecords", 1182.0),
                "src1": ("Source__q01/source.pendingRecords", 1185.0),
                "win0": (INPUT_QUEUE_METRIC, 1.0), "win1": (INPUT_QUEUE_METRIC, 1.0)}
    assert nice_by_score(scores(backlogs)) == {"src0": 0, "src1": 0, "win0": 0, "win1": 0}


def test_without_any_backlog_every_vertex_runs_at_the_best_nice_as_in_plain_flink():
    assert nice_by_score({"a": 0.0, "b": 0.0}) == {"a": 0, "b": 0}
    assert nice_by_score({}) == {}


def test_a_task_thread_shows_the_first_15_characters_of_its_name():
    assert comm_of_task(SOURCE) == "Source: q00/sou"
    assert comm_of_task(WINDOW) == "q00/window -> q"
    assert comm_of_task("q0/w") == "q0/w ("  # a short name keeps its ' (1/1)#0' tail in comm


def test_threads_are_mapped_to_vertices_by_comm_and_other_threads_are_left_alone():
    threads = {8184: "Source: q00/sou", 8187: "q00/window -> q", 8188: "Source: q01/sou", 8189: "q01/window -> q",
               8212: "Source Data Fet", 8197: "Time Trigger fo", 8192: "OutputFlusher f", 7253: "klink-scheduler",
               9001: "q02/w (1/2)#0", 9002: "q02/w (2/2)#0", 9003: "q02/wx (1/1)#0"}
    mapped = map_threads([SOURCE, WINDOW, SOURCE_1, WINDOW_1, "q02/w", "q03/source"], threads)
    assert mapped == {SOURCE: [8184], WINDOW: [8187], SOURCE_1: [8188], WINDOW_1: [8189], "q02/w": [9001, 9002]}


def test_a_thread_whose_comm_fits_two_vertices_goes_to_neither():
    alike = ["q00/window -> q00/output", "q00/window -> q00/other"]
    assert map_threads(alike, {10: "q00/window -> q"}) == {}


def test_the_agent_stays_on_default_while_os_priority_runs_from_outside():
    config = resolve(None, {"policy": "os-priority", "os_priority_period": "500ms"})
    assert config.agent_policy == "default" and config.os_priority_period_ms == 500
    assert resolve(None, {"policy": "klink"}).agent_policy == "klink"
    assert outcome_checks.scheduler_ran(config, run_dir=None)  # no scheduler.csv is expected of the agent


def test_os_priority_settings_are_checked_up_front(monkeypatch):
    with pytest.raises(KlinkError, match="--os-priority-period must be at least 100, got 50"):
        resolve(None, {"policy": "os-priority", "os_priority_period": "50ms"})
    with pytest.raises(KlinkError, match="--os-priority-period must be a duration"):
        resolve(None, {"policy": "os-priority", "os_priority_period": "often"})
    monkeypatch.setattr(privileges, "children_get", lambda capability: False)
    with pytest.raises(KlinkError, match=r"^--policy os-priority lowers .* needs CAP_SYS_NICE .*\"Privileges\"\)$"):
        RunSpec(policy="os-priority")


def test_os_priority_needs_taskmanager_processes_of_this_machine():
    with pytest.raises(KlinkError, match="^--policy os-priority sets nice values .* local or compose backend, not remote$"):
        check_usable("remote", {"taskmanager-1": 42})
    check_usable("compose", {"taskmanager-1": 42})  # its containers share the host's pid namespace
    with pytest.raises(KlinkError, match="no running TaskManager process"):
        check_usable("local", {"kafka": 1, "jobmanager": 2})
    check_usable("local", {"kafka": 1, "taskmanager-1": 3})
    assert os_priority.taskmanager_pids({"kafka": 1, "taskmanager-1": 3, "taskmanager-2": 4}) == [3, 4]


@pytest.mark.skipif(not privileges.children_get("CAP_SYS_NICE"), reason="restoring a nice value needs CAP_SYS_NICE")
def test_only_threads_it_changed_are_restored_to_their_own_nice_value(tmp_path):
    import os
    import threading

    ready, done = threading.Event(), threading.Event()
    worker = threading.Thread(target=lambda: (ready.set(), done.wait(10)))
    worker.start()
    ready.wait()
    tid = worker.native_id
    try:
        os.setpriority(os.PRIO_PROCESS, tid, 3)
        prioritiser = os_priority.OsPriority(None, "job", [os.getpid()], tmp_path)
        prioritiser._set_nice(tid, os_priority.thread_comm(tid), 3)  # already there: not touched
        assert prioritiser.tally.touched == {}
        prioritiser._set_nice(tid, os_priority.thread_comm(tid), 17)
        assert os.getpriority(os.PRIO_PROCESS, tid) == 17
        prioritiser._set_nice(tid, os_priority.thread_comm(tid), 0)
        prioritiser._restore()
        assert os.getpriority(os.PRIO_PROCESS, tid) == 3  # the value before the run, not the one set first
        assert prioritiser.summary()["threads_touched"] == prioritiser.summary()["threads_restored"] == 1
    finally:
        done.set()
        worker.join()


def test_a_run_on_another_backend_is_refused_before_its_run_directory_exists(monkeypatch, tmp_path):
    class Remote:
        name = "remote"

    monkeypatch.setattr(stack_checks.backends, "detect", lambda state_dir: Remote())
    spec = type("Spec", (), {"state_dir": tmp_path / "state"})()
    with pytest.raises(KlinkError, match="needs the local or compose backend, not remote"):
        bench.run_bench(spec, RunSpec(policy="os-priority"), tmp_path / "results", {"taskmanager-1": 1})
    assert not (tmp_path / "results").exists()
