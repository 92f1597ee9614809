"""A fault in one part of a run is recorded, never lets the rest of the clean-up be skipped."""

from types import SimpleNamespace

from klinkctl.run import bench, from_input
from klinkctl.run.collectors import RecordingThread


class Exploding(RecordingThread):
    def _loop(self) -> None:
        raise OSError(28, "No space left on device")


def test_a_dying_collector_thread_keeps_its_reason():
    thread = Exploding(name="metrics-collector", daemon=True)
    thread.start()
    thread.join(5)
    assert thread.error == "OSError: [Errno 28] No space left on device"


def test_teardown_tries_every_step_and_reports_what_failed(monkeypatch, tmp_path):
    stopped = []

    def broken(*_):
        raise ConnectionRefusedError("the JobManager is gone")

    monkeypatch.setattr(bench.scheduler_control, "deactivate", broken)
    monkeypatch.setattr(bench.flink_jobs, "request_cancel", broken)
    monkeypatch.setattr(bench.flink_jobs, "await_ended", broken)
    monkeypatch.setattr(from_input, "write_ingestion_delays", lambda *_: None)
    monkeypatch.setattr(bench.kafka_io, "delete_topics", lambda *_: stopped.append("topics"))
    generator = SimpleNamespace(stop=lambda: stopped.append("generator"))
    collector = SimpleNamespace(stop=lambda: stopped.append("collector"))
    config = SimpleNamespace(measures_accuracy=False)
    plan = SimpleNamespace(all_topics=["t"], feedback_topic=None)
    spec = SimpleNamespace(bootstrap_servers="127.0.0.1:1", state_dir=tmp_path)
    problems = bench._teardown(spec, config, plan, None, tmp_path, "job", generator, collector, None)
    assert stopped == ["generator", "collector", "topics"]
    assert problems == ["switching the scheduler off: ConnectionRefusedError: the JobManager is gone",
                        "cancelling the job: ConnectionRefusedError: the JobManager is gone",
                        "waiting for the job to end: ConnectionRefusedError: the JobManager is gone"]


def test_one_line_flattens_and_names_the_error():
    assert bench.one_line(ValueError("a\n  b")) == "ValueError: a b"
    assert bench.one_line(RuntimeError()) == "RuntimeError: no message"


def test_only_bench_jobs_count_as_leftovers(monkeypatch):
    from klinkctl import flink_jobs
    jobs = [{"jid": "a", "name": "ysb-klink-20261124-001227", "state": "RUNNING"},
            {"jid": "b", "name": "ysb-default-20261124-001227-2", "state": "RUNNING"},
            {"jid": "c", "name": "ysb-default-20261124-001100", "state": "CANCELED"},
            {"jid": "d", "name": "my own job", "state": "RUNNING"},
            {"jid": "e", "name": "insert-into_default_catalog.default_database.sink", "state": "RUNNING"}]
    cancelled = []
    monkeypatch.setattr(flink_jobs.flink, "rest_get", lambda spec, path: {"jobs": jobs})
    monkeypatch.setattr(flink_jobs, "cancel", lambda spec, jid: cancelled.append(jid))
    assert flink_jobs.cancel_leftover_runs(None) == ["ysb-klink-20261124-001227", "ysb-default-20261124-001227-2"]
    assert cancelled == ["a", "b"]


def test_a_generator_left_by_a_killed_run_is_stopped_and_only_it(tmp_path):
    from klinkctl import generator
    from klinkctl.stack.processes import is_running, launch, stop
    popen, managed = launch("generator", ["sleep", "30"], {}, tmp_path / "g.log")
    generator.record_running(tmp_path, SimpleNamespace(managed=managed))
    assert generator.stop_leftover(tmp_path)
    popen.wait(5)
    assert not is_running(managed) and not (tmp_path / generator.RUNNING_FILE).exists()

    popen, managed = launch("generator", ["sleep", "30"], {}, tmp_path / "g.log")
    reused = SimpleNamespace(managed=type(managed)(managed.name, managed.pid, managed.create_time - 100,
                                                   managed.log_file))
    generator.record_running(tmp_path, reused)  # same pid, another start time: not ours
    assert not generator.stop_leftover(tmp_path)
    assert is_running(managed)
    stop(managed, grace_s=1)
