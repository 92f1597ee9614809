"""One benchmark run, start to end: fresh topics, the job, the generator, the collectors, the summary.

Whatever happens (generator crash, job failure, Ctrl-C, SIGTERM), the generator is stopped, the job
cancelled, every collected row flushed, and summary.json says completed / failed / interrupted and why.
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml

from klinkctl import FLINK_KAFKA_CONNECTOR_VERSION, FLINK_VERSION, KAFKA_VERSION, __version__
from klinkctl import flink_jobs, generator, kafka_io
from klinkctl.netem import control as netem
from klinkctl.run import from_input, late_state, os_priority, scheduler_control
from klinkctl.errors import KlinkError, RunNotCompleted, one_line
from klinkctl.paths import PROJECT_ROOT
from klinkctl.progress import Progress, no_progress
from klinkctl.results import accuracy, changelog, windows
from klinkctl.results.summary import build_summary, write_summary
from klinkctl.run.collectors import MetricsCollector, ResourceSampler
from klinkctl.run.outcome_checks import combiner_controlled, scheduler_ran
from klinkctl.run.config import RunSpec
from klinkctl.run.stack_checks import backend_name, check_stack
from klinkctl.stack import scheduler_thread
from klinkctl.stack.processes import pid_alive, taskmanagers_of
from klinkctl.stack.spec import StackSpec
from klinkctl import workloads
from klinkctl.workloads import common, exclamation
from klinkctl.files import write_json

#: The generator rehearses the run this long before the start, so its JIT has settled when the schedule
#: begins (a cold JVM on one core runs late for seconds); see java-udfs/klink-generator/README.md.
GENERATOR_WARMUP_MS = 5000
#: The generator starts before the job is submitted and rehearses while it deploys; events start this long after
#: the job runs (the generator notices the start within 0.5 s and needs 1.5 s to drop its warm-up topics) ...
START_LEAD_MS = 2500
#: ... and never sooner after the generator's launch than its JVM start, producer metadata and whole warm-up take.
GENERATOR_READY_MS = 3000 + GENERATOR_WARMUP_MS


class RunFailed(Exception):
    pass


@dataclass(frozen=True)
class RunOutcome:
    run_dir: Path
    summary: dict


def git_commit() -> str:
    try:
        head = subprocess.run(["git", "-C", str(PROJECT_ROOT), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(PROJECT_ROOT), "status", "--porcelain"], capture_output=True,
                               text=True, check=True).stdout.strip()
        return head + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def new_run_dir(results_root: Path, config: RunSpec, prefix: str = "") -> tuple[str, Path]:
    """results/<prefix><workload>-<policy>-<time>[-n]/, created; `prefix` marks simulated runs (``sim-``)."""
    base = f"{prefix}{config.workload}-{config.policy}-{time.strftime('%Y%m%d-%H%M%S')}"
    run_id, suffix = base, 1
    while (results_root / run_id).exists():
        suffix += 1
        run_id = f"{base}-{suffix}"
    (results_root / run_id).mkdir(parents=True)
    return run_id, results_root / run_id


def write_resolved_config(run_dir: Path, run_id: str, config: RunSpec, spec: StackSpec,
                          scheduler_nice: dict[str, int | None] | None = None) -> dict:
    resolved = {
        "run": run_id,
        "bench": config.to_dict(),
        # what --delay and --inter-event resolve to (presets expanded, gaps at this rate)
        "models": {"network_delay": config.network_delay.spec, "inter_event": config.gaps.spec,
                   "rate_schedule": config.rates.spec},
        "stack": spec.to_dict(),
        "backend": backend_name(spec),
        # the agent's scheduler thread per TaskManager (klinkctl.stack.scheduler_thread); none on other backends
        "scheduler_thread_nice": scheduler_nice or {},
        "versions": {"klinkctl": __version__, "flink": FLINK_VERSION, "kafka": KAFKA_VERSION,
                     "flink_kafka_connector": FLINK_KAFKA_CONNECTOR_VERSION},
        "git_commit": git_commit(),
        "netem": [entry.to_dict() for entry in netem.NetemState(spec.state_dir).load()],  # link-level delay, if any
    }
    (run_dir / "config.yaml").write_text(yaml.safe_dump(resolved, sort_keys=False))
    return resolved


@dataclass
class Interrupts:
    """What `signals_as_interrupt` saw: ``armed`` turns a signal into KeyboardInterrupt; disarmed (while a run
    tears down and writes its summary) a signal is only noted in ``received``."""
    armed: bool = True
    received: bool = False


@contextmanager
def signals_as_interrupt():
    """SIGINT (Ctrl-C) and SIGTERM end a run cleanly: rows kept, marked interrupted. SIGINT is set
    explicitly because a process started in the background by a non-interactive shell inherits it ignored,
    and Python then never raises KeyboardInterrupt. Disarm it around teardown so that a second signal
    cannot kill the process before summary.json is written."""
    interrupts = Interrupts()

    def on_signal(*_):
        interrupts.received = True
        if interrupts.armed:
            raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield interrupts
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def drain_ms(config: RunSpec) -> int:
    """How long after the last event the last fireable window needs to reach the output operator."""
    return int(config.network_delay.quantile_ms(0.999)) + config.watermark_bound_ms + config.watermark_interval_ms + 2000


def combiner_hold_ms(config: RunSpec, channel: scheduler_control.ControlChannel | None) -> int:
    """How long after its last input a rides combiner may still hold a partial (0 without one): local-global's
    fixed interval, or AdCom's latest λ, which a surge can push past the window's length (docs/combiner.md)."""
    if config.workload != "rides" or config.combiner == "none":
        return 0
    return max(config.combiner_interval_ms, channel.combiner_hold_ms() if channel is not None else 0)


def progress_after_end_ms(config: RunSpec) -> int:
    """Event time the generator's progress records cover after its last event: the watermark bound B moves the
    source's watermark past the end; the delay's tail covers a K-Slack sampler, whose slack is the largest delay."""
    return config.watermark_bound_ms + int(config.network_delay.quantile_ms(0.999))


def drain_cap_ms(config: RunSpec) -> int:
    """However large the backlog, a run waits at most this long after its end for its last windows."""
    return max(60_000, 2 * config.duration_ms)


def run_bench(spec: StackSpec, config: RunSpec, results_root: Path, stack_processes: dict[str, int],
              progress: Progress = no_progress, await_last_windows: bool = True) -> RunOutcome:
    """One run; ``await_last_windows=False`` (an unjudged warm-up run) cancels the job at the generator's end
    instead of waiting up to drain_cap_ms for the backlog's windows."""
    check_stack(spec, config, stack_processes)
    run_id, run_dir = new_run_dir(results_root, config)
    write_resolved_config(run_dir, run_id, config, spec,
                          scheduler_thread.prioritize(taskmanagers_of(stack_processes)))
    workload = workloads.get(config.workload)
    plan = common.plan(config, run_id, common.ControlAddress(spec.control_url, spec.stack_token))
    status, reason, warmup_until_ms = "completed", "", None
    job_id = gen = collector = sampler = prioritiser = late = channel = None
    with signals_as_interrupt() as interrupts:
        try:
            if generator.stop_leftover(spec.state_dir):
                progress("stopped a generator left running by a killed run")
            leftovers = flink_jobs.cancel_leftover_runs(spec)
            if leftovers:
                progress(f"cancelled {len(leftovers)} job(s) left running by a killed run: {', '.join(leftovers)}")
            progress("creating fresh topics")
            kafka_io.recreate_topics(spec.bootstrap_servers, plan.input_topics, config=kafka_io.APPEND_TIME)
            kafka_io.recreate_topics(spec.bootstrap_servers, plan.harness_topics)
            job_config = workload.write_job_config(plan, config, spec.bootstrap_servers, run_dir)
            gen = generator.start(spec.bootstrap_servers, plan.input_topics, config.rate, config.duration_ms / 1000,
                                  config.seed, config.network_delay.spec, config.gaps.generator_arg,
                                  workload.generator_args(config), GENERATOR_WARMUP_MS, run_dir,
                                  config.generator_cpus, netem.generator_namespace(spec.state_dir),
                                  config.pack_bytes, progress_after_end_ms(config), config.rates.spec)
            generator.record_running(spec.state_dir, gen)
            generator_ready_ms = int(time.time() * 1000) + GENERATOR_READY_MS
            progress(f"submitting {config.workload} ({workload.JAVA_BUILDER})")
            job_id = flink_jobs.submit_python_job(spec, common.JOB_SCRIPT, ["--config", str(job_config.resolve())])
            flink_jobs.wait_running(spec, job_id)
            # which TaskManager runs which task: what a slowed TaskManager (--tm-quota) slows
            pd.DataFrame(flink_jobs.placement(spec, job_id)).to_csv(run_dir / "placement.csv", index=False)
            # default too: the agent then pauses nothing but records every task's totals (tasks.csv)
            channel = scheduler_control.activate(spec, config.agent_policy, config.scheduler_params(spec.taskmanagers),
                                                 run_id, run_dir)
            if config.policy == os_priority.POLICY:
                prioritiser = os_priority.OsPriority(spec, job_id, os_priority.taskmanager_pids(stack_processes),
                                                     run_dir, config.os_priority_period_ms)
                prioritiser.start()
            start_at_ms = max(int(time.time() * 1000) + START_LEAD_MS, generator_ready_ms)
            warmup_until_ms = start_at_ms + config.warmup_ms
            collector = MetricsCollector(spec.bootstrap_servers, plan.metrics_topic, run_dir, run_id,
                                         config.policy, warmup_until_ms, results=config.measures_accuracy,
                                         sampling=config.sampler != "none")
            collector.start()
            sampler = ResourceSampler(spec, job_id, stack_processes, run_dir, run_id, config.policy)
            sampler.start()
            sampler.add_process("generator", gen.popen.pid)
            late = late_state.start(spec, config, run_dir, run_id, job_id)
            generator.signal_start(run_dir, start_at_ms)
            _follow(spec, config, job_id, gen, collector, start_at_ms, progress, stack_processes)
            span = (warmup_until_ms, start_at_ms + config.duration_ms)
            if await_last_windows:
                _await_last_windows(spec, config, job_id, plan, collector, sampler, span, run_dir, progress,
                                    lambda: combiner_hold_ms(config, channel))
            else:
                write_json(run_dir / "drain.json", {"waited_ms": 0, "stopped_by": "not awaited (warm-up run)"})
        except KeyboardInterrupt:
            status, reason = "interrupted", "interrupted (Ctrl-C or SIGTERM) before the run's end"
        except (RunFailed, KlinkError) as error:
            status, reason = "failed", str(error)
        except Exception as error:  # noqa: BLE001 - a REST, Kafka or disk fault ends the run, recorded
            status, reason = "failed", f"unexpected {one_line(error)}"
        finally:
            interrupts.armed = False
            progress("stopping generator, job and collectors")
            if late is not None:
                late.stop()  # before the job's cancellation: its last sample is the p-buckets' bytes at the end
            teardown_problems = _teardown(spec, config, plan, workload, run_dir, job_id, gen, collector, sampler,
                                          prioritiser, channel, broker_down=_broker_down(stack_processes))
            measured = (warmup_until_ms, warmup_until_ms - config.warmup_ms + config.duration_ms) \
                if warmup_until_ms else None
            teardown_problems += late_state.finish(late, config, run_dir, measured)
        if changelog.applies(config.to_dict()):  # a changelog's windows: latency.csv from their last updates
            changelog.write_tables(run_dir, config.window_ms, warmup_until_ms)
        if config.measures_accuracy:
            accuracy.write_error_table(run_dir, config.sampler, config.error, workload.window_errors)
        dead = [f"the {thread.name} died: {thread.error}" for thread in (collector, sampler, prioritiser)
                if thread is not None and thread.error]
        if status == "completed" and dead:
            status, reason = "failed", "; ".join(dead) + " (rows collected until then are kept)"
        if status == "completed" and interrupts.received:
            status, reason = "interrupted", "interrupted (Ctrl-C or SIGTERM) while the run was stopping"
        if status == "completed" and not scheduler_ran(config, run_dir):
            status, reason = "failed", (f"the runtime scheduler never ran policy {config.policy} (no rows in "
                                        "scheduler.csv): the measurement is plain Flink; see the TaskManagers' .err logs")
        if status == "completed" and not combiner_controlled(config, run_dir):
            status, reason = "failed", (f"the {config.combiner} combiner's controller logged no period (no rows in "
                                        "combiner.csv): it reads buffer use from the JobManager's REST API at the "
                                        "address in the TaskManagers' Flink config; check that they reach it")
        try:
            summary = build_summary(run_dir, run_id, config.to_dict(), status, reason, measured,
                                    generator.summary(run_dir))
        except Exception as error:  # noqa: BLE001 - the rows stay; summary.json says why there are no statistics
            summary = {"run": run_id, "workload": config.workload, "policy": config.policy, "status": "failed",
                       "reason": f"{reason + '; ' if reason else ''}summarising the run failed: {one_line(error)}; "
                                 f"every collected row is kept in {run_dir}"}
        summary["teardown_problems"] = teardown_problems
        try:
            write_summary(run_dir, summary)
        except OSError as error:  # a full or read-only disk: say so in one line, keep what was written
            raise RunNotCompleted(f"{run_dir}: could not write summary.json ({one_line(error)}); the run ended "
                             f"{summary['status']}{': ' + summary['reason'] if summary.get('reason') else ''}; "
                             "the rows written before are kept") from None
    return RunOutcome(run_dir, summary)


def _follow(spec: StackSpec, config: RunSpec, job_id: str, gen: generator.GeneratorProcess,
            collector: MetricsCollector, start_at_ms: int, progress: Progress,
            stack_processes: dict[str, int] | None = None) -> None:
    """Until the generator finished and the last windows had time to come out; fail fast on a crash."""
    end_ms = start_at_ms + config.duration_ms + drain_ms(config)
    total_s = (end_ms - start_at_ms) / 1000
    while True:
        dead = [f"{name} (pid {pid})" for name, pid in (stack_processes or {}).items() if not pid_alive(pid)]
        if dead:
            raise RunFailed(f"{', '.join(dead)} of the stack stopped during the run; check `klinkctl status` "
                            "and its log, then `klinkctl down` and `klinkctl up`")
        code = gen.exit_code()
        if code not in (None, 0):
            raise RunFailed(f"generator exited with code {code}: {gen.last_log_line()}")
        state = flink_jobs.job_state(spec, job_id)
        if state in flink_jobs.TERMINAL_STATES:
            raise RunFailed(f"job {job_id} ended as {state}: {flink_jobs.job_failure(spec, job_id)}")
        now = time.time() * 1000
        if code == 0:
            return
        elapsed = max(0.0, (now - start_at_ms) / 1000)
        last = collector.last_swm_latency_ms
        progress(f"{config.workload} {config.policy}: {min(elapsed, total_s):.0f}/{total_s:.0f} s, "
                 f"{collector.firings} windows fired"
                 + (f", last SWM latency {last} ms" if last is not None else ""))
        time.sleep(0.5)


#: The last windows are given up on when neither the sources read more events nor a window fired for this long.
STALL_MS = 10_000


def _await_last_windows(spec: StackSpec, config: RunSpec, job_id: str, plan: common.Plan,
                        collector: MetricsCollector, sampler: ResourceSampler, span: tuple[int, int], run_dir: Path,
                        progress: Progress, held_ms: Callable[[], int] = lambda: 0) -> None:
    """After the generator's end, until every window the run must measure has fired: at least the drain time
    (plus what a combiner may still hold, `held_ms`),
    longer while the sources still work off a backlog or windows still fire (so the wait scales with the
    backlog), never past the cap. What it waited and why it stopped goes to drain.json (summary.json `drain`)."""
    expected = windows.expected_by_query(config.to_dict(), {q.id: q.window_offset_ms for q in plan.queries}, span)
    sent = generator.summary(run_dir).get("events_sent") or 0
    started = time.time() * 1000
    cap = started + drain_cap_ms(config)
    backlog_at_end = backlog = None
    last_read, last_change = -1.0, started
    while True:
        missing = sum(int(end) not in collector.fired_after_warmup.get(query, ()) for query, ends in expected.items()
                      for end in ends)
        now = time.time() * 1000
        read = sampler.source_progress()
        if read is not None:
            backlog = max(0.0, sent - read[0])
            backlog_at_end = backlog if backlog_at_end is None else backlog_at_end
        progress_seen = (read[0] if read else 0.0, collector.firings)
        if progress_seen != last_read:
            last_read, last_change = progress_seen, now
        stalled = now - last_change >= STALL_MS
        floor = span[1] + drain_ms(config) + held_ms()
        if (expected and not missing) or now >= cap or (now >= floor and (stalled or (not expected and not backlog))):
            break
        state = flink_jobs.job_state(spec, job_id)
        if state in flink_jobs.TERMINAL_STATES:
            raise RunFailed(f"job {job_id} ended as {state}: {flink_jobs.job_failure(spec, job_id)}")
        progress(f"{config.workload} {config.policy}: waiting for the last windows ({missing} to come"
                 + (f", backlog {backlog:,.0f} events" if backlog is not None else "") + ")")
        time.sleep(0.5)
    why = ("every expected window fired" if expected and not missing else "the cap" if now >= cap
           else "no progress for {:.0f} s".format(STALL_MS / 1000) if expected else "the drain time (no exact count)")
    report = {"waited_ms": int(now - started), "stopped_by": why, "cap_ms": drain_cap_ms(config),
              "backlog_events_at_end": backlog_at_end, "backlog_events_left": backlog,
              "windows_missing": missing if expected else None,
              "complete": (not missing) if expected else None}
    write_json(run_dir / "drain.json", report)


def _teardown(spec: StackSpec, config: RunSpec, plan: common.Plan, workload: workloads.Workload, run_dir: Path,
              job_id: str | None, gen: generator.GeneratorProcess | None, collector: MetricsCollector | None,
              sampler: ResourceSampler | None, prioritiser: os_priority.OsPriority | None = None,
              channel: scheduler_control.ControlChannel | None = None, broker_down: bool = False) -> list[str]:
    """Every step is attempted whatever the others do (a dead broker or JobManager must not leave the job or
    the generator running); returns what went wrong, one line each. With the broker known dead, the steps that
    only talk to it are skipped: each would wait out its timeout (10-30 s) for an answer that cannot come."""
    steps = [  # (what, step, talks only to the broker)
        # Always: the next run (or a plain-Flink user) must not inherit paused tasks.
        ("switching the scheduler off", lambda: scheduler_control.deactivate(channel), False),
        ("restoring the nice values os-priority changed", lambda: _stop_prioritiser(prioritiser), False),
        ("stopping the generator", lambda: (gen.stop(), generator.forget_running(spec.state_dir))
         if gen is not None else None, False),
        # the job winds down (~3 s) while the rows are read; it must have ended before its topics go
        ("cancelling the job", lambda: flink_jobs.request_cancel(spec, job_id) if job_id is not None else None, False),
        ("stopping the metrics collector", lambda: collector.stop() if collector is not None else None, False),
        ("stopping the resource sampler", lambda: sampler.stop() if sampler is not None else None, False),
        ("reading ingestion delays", lambda: from_input.write_ingestion_delays(spec, plan, workload, run_dir)
         if gen is not None else None, True),
        ("reading the feedback channel", lambda: exclamation.write_feedback(spec.bootstrap_servers, plan, run_dir)
         if plan.feedback_topic and job_id is not None else None, True),
        ("counting the records the sinks expect", lambda: from_input.write_expected_records(spec, plan, keeps, run_dir)
         if gen is not None and (keeps := getattr(workload, "reaches_sinks", None)) else None, True),
        ("computing exact results", lambda: from_input.write_exact_results(spec, config, plan, workload, run_dir)
         if gen is not None and config.measures_accuracy else None, True),
        ("waiting for the job to end", lambda: flink_jobs.await_ended(spec, job_id) if job_id is not None else None,
         False),
        ("deleting the run's topics", lambda: kafka_io.delete_topics(spec.bootstrap_servers, plan.all_topics), True),
    ]
    problems = []
    for what, step, broker_only in steps:
        if broker_only and broker_down:
            problems.append(f"{what}: skipped, the Kafka broker had stopped")
            continue
        try:
            step()
        except Exception as error:  # noqa: BLE001 - one broken step must not skip the others
            problems.append(f"{what}: {one_line(error)}")
    return problems


def _broker_down(stack_processes: dict[str, int] | None) -> bool:
    return "kafka" in (stack_processes or {}) and not pid_alive(stack_processes["kafka"])


def _stop_prioritiser(prioritiser: os_priority.OsPriority | None) -> None:
    if prioritiser is None:
        return
    prioritiser.stop()
    if prioritiser.restore_problems:
        raise RuntimeError("; ".join(prioritiser.restore_problems))
