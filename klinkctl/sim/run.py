"""`klinkctl simulate`: one simulated run, written as `bench` writes a real one (latency.csv, scheduler.csv,
estimator.csv, summary.json), so compare, sweep and report read it unchanged. summary.json says
`"simulated": true` and carries the model's parameters."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import yaml

from klinkctl import __version__, artifacts
from klinkctl.errors import KlinkError, one_line
from klinkctl.files import write_json
from klinkctl.progress import Progress, no_progress
from klinkctl.results.summary import build_summary, read_json, write_summary
from klinkctl.run.bench import RunOutcome, git_commit, new_run_dir
from klinkctl.run.config import RunSpec
from klinkctl.sim.calibration import read_calibration
from klinkctl.sim.graphs import Costs, check_simulable
from klinkctl.sim.options import SimOptions
from klinkctl.sim.spec import SIM_START_MS, sim_spec
from klinkctl.workloads import common

#: A simulation that runs longer than this has gone wrong (paper-scale configs take well under 3 minutes).
TIMEOUT_S = 1800
#: HotSpot's C1 compiler only: the same files bit for bit, in 55-70 % of the wall time of the default tiered
#: compilation for runs of 2-13 s (measured 2026-11-27: 4 YSB queries 20 s, 2.5 → 1.6 s; 80 queries 12 s, 7.3 →
#: 4.1 s; 80 queries 48 s, 17.9 → 12.9 s): C2's compilations cost more than they save in runs this short.
JVM_OPTIONS = ("-XX:TieredStopAtLevel=1",)


def calibration_of(config: RunSpec) -> Costs | None:
    return read_calibration(Path(config.calibrate_from)) if config.calibrate_from else None


def run_simulation(config: RunSpec, results_root: Path, progress: Progress = no_progress) -> RunOutcome:
    check_simulable(config)
    calibration = calibration_of(config)
    artifacts.build_java_udfs(progress)
    run_id, run_dir = new_run_dir(results_root, config, prefix="sim-")
    plan = common.plan(config, run_id)
    common.write_job_config(run_dir, common.job_config(plan, config, "simulated", builder="io.klink.sim.Simulation"))
    spec = sim_spec(config, plan, calibration)
    spec_path = write_json(run_dir / "sim-spec.json", spec)
    write_config(run_dir, run_id, config, calibration)
    progress(f"simulating {config.queries} {config.workload} queries under {config.policy}")
    status, reason = simulate(spec_path, run_dir)
    measured = (SIM_START_MS + config.warmup_ms, SIM_START_MS + config.duration_ms)
    summary = build_summary(run_dir, run_id, config.to_dict(), status, reason, measured,
                            read_json(run_dir / "generator-summary.json"))
    summary.update(simulated=True, model=model_parameters(config, spec, calibration),
                   simulator=read_json(run_dir / "sim.json"))
    write_summary(run_dir, summary)
    return RunOutcome(run_dir, summary)


def simulate(spec_path: Path, run_dir: Path) -> tuple[str, str]:
    """(status, reason) of the simulator's process."""
    command = ["java", *JVM_OPTIONS, "-jar", str(artifacts.SIM_JAR), str(spec_path), str(run_dir)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "failed", f"the simulator ran longer than {TIMEOUT_S} s"
    except OSError as error:
        raise KlinkError(f"cannot start the simulator ({one_line(error)}); is java on PATH?") from None
    if done.returncode != 0:
        lines = (done.stderr or done.stdout or "no output").strip().splitlines()
        return "failed", f"the simulator exited with {done.returncode}: {lines[-1] if lines else ''}"
    return "completed", ""


def model_parameters(config: RunSpec, spec: dict, calibration: Costs | None) -> dict:
    """The simulated machine and costs behind the run's figures (every query has the same tasks)."""
    return {**{name: getattr(config, name) for name in SimOptions.model_fields},
            "costs": {task["role"]: {"cost_ns_per_record": task["costNsPerRecord"], "outputs": task["outputs"],
                                     **({"cost_ns_per_kafka_record": task["costNsPerKafkaRecord"],
                                         "events_per_kafka_record": task["eventsPerKafkaRecord"]}
                                        if task["costNsPerKafkaRecord"] > 0 else {}),
                                     **({"cost_ns_per_ms": task["costNsPerMs"]} if task["costNsPerMs"] > 0 else {})}
                      for task in spec["queries"][0]["tasks"]},
            "calibrated": calibration is not None, "background_burst_ms_drawn": spec["backgroundBurstMs"]}


def write_config(run_dir: Path, run_id: str, config: RunSpec, calibration: Costs | None) -> None:
    resolved = {"run": run_id, "simulated": True, "bench": config.to_dict(),
                "models": {"network_delay": config.network_delay.spec, "inter_event": config.gaps.spec},
                "calibration": calibration, "versions": {"klinkctl": __version__}, "git_commit": git_commit()}
    (run_dir / "config.yaml").write_text(yaml.safe_dump(json.loads(json.dumps(resolved)), sort_keys=False))
