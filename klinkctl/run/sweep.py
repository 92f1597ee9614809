"""An experiment grid: a sweep file planned into bench runs, run one after another, resumable.

Planner (pure, no I/O): a sweep file's mapping -> ``SweepSpec`` -> ``PlannedRun``s, in a fixed order with
per-repetition seeds, warm-up runs first, every run's ``BenchConfig`` validated before anything starts
(``plan_runs``).

Runner: a sweep directory ``results/<sweep-id>/`` holds ``sweep.yaml`` (the resolved sweep file),
``index.csv`` (one row per planned run and its status, rewritten atomically before and after every run) and the run
directories ``run_bench`` writes. ``run_sweep`` runs every run not yet completed; ``open_sweep`` reopens
an interrupted sweep so that only its unfinished runs are run again. Format: docs/sweep.md.
"""

from __future__ import annotations

import csv
import io
import itertools
import os
import random
import re
import time
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

import yaml

from klinkctl.errors import KlinkError
from klinkctl.run.bench import START_LEAD_MS, RunOutcome, drain_ms, run_bench, signals_as_interrupt
from klinkctl.run.config import WORKLOAD_DEFAULTS, BenchConfig, build, user_settings
from klinkctl.run.load import apply_load, capacity_path
from klinkctl.stack.spec import StackSpec
from klinkctl.files import write_atomically
from klinkctl.stack.health import stack_problem

SWEEP_FILE = "sweep.yaml"
INDEX_FILE = "index.csv"
#: index.csv's leading columns (`klinkctl report` reads them); one column per grid parameter (and `variant`) follows.
INDEX_COLUMNS = ("index", "run_id", "status", "repetition", "seed", "started_at", "finished_at", "wall_s",
                 "reason", "run_dir", "warmup")
#: The leading columns of a sweep created before warm-up runs existed (still resumable).
LEGACY_INDEX_COLUMNS = INDEX_COLUMNS[:-1]
VARIANT = "variant"  # index.csv's column (and PlannedRun.params' key) naming a run's variant
PENDING, COMPLETED, FAILED, INTERRUPTED = "pending", "completed", "failed", "interrupted"
STATUSES = (PENDING, COMPLETED, FAILED, INTERRUPTED)

DEFAULT_REPETITIONS = 3
DEFAULT_BASE_SEED = 42  # bench's default seed: repetition 1 of a sweep = a plain `klinkctl bench` run
SWEEP_KEYS = ("name", "workload", "repetitions", "base-seed", "warmup-runs", "order", "fixed", "grid", "variants")
#: Grid points in the order the grid lists them, or shuffled per repetition (seeded by base-seed and repetition).
ORDERS = ("grid", "shuffled")
#: Set by the sweep itself, so neither fixed nor a grid axis: the seed per repetition, the workload on top.
RESERVED_FIELDS = {"seed": "the seed is base-seed + repetition - 1; set base-seed at the top level",
                   "workload": "give the workload at the top level (workload: ysb) or as a grid axis "
                               "(grid: {workload: [ysb, nyt]})"}
#: Reserved settings a grid may still vary: several workloads in one sweep, each with its own defaults.
GRID_AXES = {"workload"}
#: The grid's axis whose values run back to back at every grid point (with the variants, if any).
INTERLEAVED_FIELD = "policy"
#: Per run, besides the lead, the events and the drain: topics, job submission, teardown, the ingestion-delay
#: sample, summary (measured 2026-11-22: 4 x 60 000 events/s for 25 s took 55-60 s from start to summary.json,
#: lead + events + drain = 36 s). The progress bar's ETA corrects it with the runs' actual times.
RUN_OVERHEAD_S = 20.0
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


# ---------------------------------------------------------------- planner (pure)


@dataclass(frozen=True)
class SweepSpec:
    """A sweep file, checked: bench settings in `fixed`, value lists per parameter in `grid`, bench settings
    per named variant in `variants` (as written)."""

    name: str
    workload: str
    repetitions: int
    base_seed: int
    fixed: dict[str, Any]
    grid: dict[str, list[Any]]
    variants: dict[str, dict[str, Any]] = field(default_factory=dict)
    warmup_runs: int = 0
    order: str = ORDERS[0]

    @property
    def axes(self) -> dict[str, list[Any]]:
        """Every parameter a run is planned by, with its values: the grid's, then `variant` (if any)."""
        return {**self.grid, **({VARIANT: list(self.variants)} if self.variants else {})}

    def to_dict(self) -> dict[str, Any]:
        """The sweep file form (what sweep.yaml holds; `klinkctl sweep` reads it back)."""
        return {"name": self.name, "workload": self.workload, "repetitions": self.repetitions,
                "base-seed": self.base_seed, "warmup-runs": self.warmup_runs, "order": self.order,
                "fixed": dict(self.fixed), "grid": {k: list(v) for k, v in self.grid.items()},
                "variants": {name: dict(settings) for name, settings in self.variants.items()}}


@dataclass(frozen=True)
class PlannedRun:
    index: int  # 1-based position in the run order
    repetition: int  # 1-based; 0 for a warm-up run
    seed: int
    params: dict[str, Any]  # this run's value of every grid parameter (and variant), in axes order, as written
    config: BenchConfig
    warmup: bool = False  # run first, kept on disk and in index.csv, never in cells.csv or reports

    @property
    def label(self) -> str:
        point = " ".join(f"{key}={value}" for key, value in self.params.items())
        return f"warm-up {point}" if self.warmup else f"{point} rep {self.repetition}"

    @property
    def estimated_s(self) -> float:
        return estimate_run_s(self.config)


def parse_sweep(raw: object, source: str, default_name: str, repetitions: int | None = None) -> SweepSpec:
    """A sweep file's mapping -> SweepSpec; `repetitions` (from the command line) overrides the file's."""
    if not isinstance(raw, dict):
        raise KlinkError(f"{source}: a sweep file is a mapping of {', '.join(SWEEP_KEYS)}; got {type(raw).__name__}")
    unknown = sorted(str(key) for key in raw if str(key).replace("_", "-") not in SWEEP_KEYS)
    if unknown:
        raise KlinkError(f"{source}: unknown key {unknown[0]!r}; valid: {', '.join(SWEEP_KEYS)} (bench settings go "
                         "under fixed: or grid:)")
    top = {str(key).replace("_", "-"): value for key, value in raw.items()}
    grid = _grid(top.get("grid"), source)
    if "workload" not in top and "workload" not in grid:
        raise KlinkError(f"{source}: no workload (e.g. workload: ysb, or grid: {{workload: [ysb, nyt]}})")
    spec = SweepSpec(
        name=_sweep_name(top.get("name", default_name), source),
        workload=str(top.get("workload", grid.get("workload", [""])[0])),
        repetitions=_positive_int(repetitions if repetitions is not None else top.get("repetitions", DEFAULT_REPETITIONS),
                                  f"{source}: repetitions"),
        base_seed=_integer(top.get("base-seed", DEFAULT_BASE_SEED), f"{source}: base-seed"),
        fixed=_mapping(top.get("fixed"), f"{source}: fixed"), grid=grid,
        variants=_variants(top.get("variants"), source),
        warmup_runs=_non_negative_int(top.get("warmup-runs", 0), f"{source}: warmup-runs"),
        order=_order(top.get("order", ORDERS[0]), source))
    _check_settings(spec, source)
    return spec


def plan_runs(spec: SweepSpec, source: str) -> list[PlannedRun]:
    """Every run, in order: the warm-up runs (the first measured run's settings), then repetition by
    repetition (outermost) each combination of the grid's other parameters (first parameter slowest, or
    shuffled per repetition with `order: shuffled`), then the policies and variants innermost — one grid
    point's policies and variants run back to back, rotated by one per repetition, so drift on the machine
    hits every one alike. Repetition k of every point has the same seed (paired comparison). Every run's
    BenchConfig is validated here."""
    settings = {"fixed": _bench_fields(spec.fixed, f"{source} (fixed)"),
                **{name: _bench_fields(values, f"{source} (variant {name})") for name, values in spec.variants.items()}}
    interleaved = _interleaved_axes(spec, source)
    others = {key: values for key, values in spec.grid.items() if key not in interleaved}
    side_by_side = [dict(zip(interleaved, values)) for values in itertools.product(*interleaved.values())]
    points = [dict(zip(others, values)) for values in itertools.product(*others.values())]
    measured: list[tuple[int, int, dict[str, Any]]] = []  # (repetition, seed, params)
    for repetition in range(1, spec.repetitions + 1):
        for point in ordered_points(points, spec, repetition):
            for together in rotated(side_by_side, repetition - 1):
                measured.append((repetition, spec.base_seed + repetition - 1, _in_axes_order(spec, point | together)))
    _, first_seed, first_params = measured[0]
    _check_capacities([params for repetition, _, params in measured if repetition == 1], spec, settings, source)
    warmups = [(0, first_seed, first_params)] * spec.warmup_runs
    runs = [_planned(index, repetition, seed, params, spec, settings, source, warmup=index <= spec.warmup_runs)
            for index, (repetition, seed, params) in enumerate(warmups + measured, start=1)]
    if spec.variants:
        _check_variants_differ(runs, source)
    return runs


def ordered_points(points: list[dict[str, Any]], spec: SweepSpec, repetition: int) -> list[dict[str, Any]]:
    """The grid points of one repetition: as listed, or (order: shuffled) in an order drawn from base-seed and
    the repetition, so that drift over a repetition does not line up with a grid parameter (e.g. the rate)."""
    if spec.order != "shuffled":
        return points
    shuffled = list(points)
    random.Random(f"{spec.base_seed}/{repetition}").shuffle(shuffled)  # str seeds are hashed stably
    return shuffled


def rotated(items: list[Any], shift: int) -> list[Any]:
    shift %= len(items)
    return items[shift:] + items[:shift]


def estimate_run_s(config: BenchConfig) -> float:
    """Wall time of one run: the generator's lead, the events, the drain of the last windows, the rest."""
    return (START_LEAD_MS + config.duration_ms + drain_ms(config)) / 1000 + RUN_OVERHEAD_S


def _planned(index: int, repetition: int, seed: int, params: dict[str, Any], spec: SweepSpec,
             settings: dict[str, dict[str, Any]], source: str, warmup: bool) -> PlannedRun:
    """One run; `settings` holds the fixed bench fields (key "fixed") and every variant's."""
    try:
        config = build({**_settings_of(params, spec, settings, source), "seed": seed})
    except KlinkError as error:
        raise KlinkError(f"{source}: run {index} ({', '.join(f'{k}={v}' for k, v in params.items())}): {error}") from None
    return PlannedRun(index, repetition, seed, params, config, warmup)


def _settings_of(params: dict[str, Any], spec: SweepSpec, settings: dict[str, dict[str, Any]],
                 source: str) -> dict[str, Any]:
    """A grid point's bench fields (its variant's included) over the fixed ones and its workload's defaults."""
    grid_values = {key: value for key, value in params.items() if key != VARIANT}
    point = {**_bench_fields(grid_values, f"{source} (grid)"), **settings.get(params.get(VARIANT), {})}
    workload = str(point.get("workload", spec.workload))  # a grid axis wins over the top level
    defaults = WORKLOAD_DEFAULTS.get(workload, {})  # e.g. nyt's 2 s windows sliding by 1 s
    return {**defaults, **settings["fixed"], **point, "workload": workload}


def _check_capacities(points: list[dict[str, Any]], spec: SweepSpec, settings: dict[str, dict[str, Any]],
                      source: str) -> None:
    """Every capacity file the grid points name exists (a {field} template names one per cell): one error that
    counts the missing ones, before any run is planned."""
    paths = set()
    for params in points:
        values = _settings_of(params, spec, settings, source)
        if values.get("load") is not None and values.get("capacity"):
            try:
                paths.add(capacity_path(str(values["capacity"]), values))
            except KlinkError as error:
                raise KlinkError(f"{source}: {error}") from None
    missing = sorted(path for path in paths if not Path(path).is_file())
    if missing:
        listed = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        raise KlinkError(f"{source}: {len(missing)} of {len(paths)} capacity files missing: {listed}; measure each "
                         "with `klinkctl capacity ... --out FILE` on the stack the sweep runs on")


def _in_axes_order(spec: SweepSpec, values: dict[str, Any]) -> dict[str, Any]:
    return {key: values[key] for key in spec.axes}


def _interleaved_axes(spec: SweepSpec, source: str) -> dict[str, list[Any]]:
    """The axes whose values run back to back at every grid point: the policy axis and the variants."""
    policy_key = next((key for key, values in spec.grid.items()
                       if _field(key, values[0], f"{source} (grid)") == INTERLEAVED_FIELD), None)
    return {key: values for key, values in spec.axes.items() if key in (policy_key, VARIANT)}


def _field(key: str, value: Any, source: str) -> str:
    """The BenchConfig field a setting as written (`watermark-bound`) sets."""
    (name,) = _bench_fields({key: value}, source)
    return name


def _bench_fields(settings: dict[str, Any], source: str) -> dict[str, Any]:
    """Settings as written -> BenchConfig fields, through the bench config's own parser."""
    try:
        return user_settings(settings, source)
    except KlinkError as error:  # a bad value's message names the option, not the file
        raise (error if source in str(error) else KlinkError(f"{source}: {error}")) from None


def _check_settings(spec: SweepSpec, source: str) -> None:
    """Known settings only, each set once (fixed, grid or the variants), none of those the sweep sets itself."""
    seen: dict[str, str] = {}
    for where, settings in (("fixed", spec.fixed), ("grid", {k: v[0] for k, v in spec.grid.items()})):
        _check_once(settings, where, seen, source)
    for name, settings in spec.variants.items():
        _check_once(settings, f"variant {name}", dict(seen), source)  # variants may set the same settings


def _check_variants_differ(runs: list[PlannedRun], source: str) -> None:
    """Two variants that resolve to the same bench config would be one configuration under two names."""
    seen: dict[str, str] = {}
    for run in runs:
        if run.repetition == 1:
            point = {key: value for key, value in run.params.items() if key != VARIANT}
            key = repr((point, run.config))
            if key in seen and seen[key] != run.params[VARIANT]:
                raise KlinkError(f"{source}: variants {seen[key]!r} and {run.params[VARIANT]!r} resolve to the same "
                                 "bench settings; give one")
            seen[key] = run.params[VARIANT]


def _check_once(settings: dict[str, Any], where: str, seen: dict[str, str], source: str) -> None:
    for key, value in settings.items():
        name = _field(key, value, f"{source} ({where})")
        if name in RESERVED_FIELDS and not (where == "grid" and name in GRID_AXES):
            raise KlinkError(f"{source}: {where}: {key!r} is not a sweep setting; {RESERVED_FIELDS[name]}")
        if name in seen:
            raise KlinkError(f"{source}: {key!r} in {where} sets the same setting as {seen[name]}; give it once")
        seen[name] = f"{key!r} in {where}"


def _variants(value: object, source: str) -> dict[str, dict[str, Any]]:
    """variants: {name: {bench settings}}; a name as written is the run's `variant` in index.csv."""
    variants = _mapping(value, f"{source}: variants", "of names to bench settings")
    for name, settings in variants.items():
        if not _NAME.match(name):
            raise KlinkError(f"{source}: variant {name!r}: a name is letters, digits, '.', '_' or '-'")
        variants[name] = _mapping(settings, f"{source}: variant {name}")
    return variants


def _order(value: object, source: str) -> str:
    if value not in ORDERS:
        raise KlinkError(f"{source}: order {value!r}; valid: {', '.join(ORDERS)}")
    return str(value)


def _grid(value: object, source: str) -> dict[str, list[Any]]:
    grid = _mapping(value, f"{source}: grid")
    for key, values in grid.items():
        if not isinstance(values, list):
            raise KlinkError(f"{source}: grid: {key!r} must be a list of values, e.g. {key}: [{values}]; "
                             "put a single value under fixed:")
        if not values:
            raise KlinkError(f"{source}: grid: {key!r} has no values")
        duplicates = sorted({str(v) for v in values if values.count(v) > 1})
        if duplicates:
            raise KlinkError(f"{source}: grid: {key!r} lists {duplicates[0]} more than once")
    return grid


def _mapping(value: object, what: str, of: str = "of bench settings") -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise KlinkError(f"{what} must be a mapping {of}, got {type(value).__name__}")
    return {str(key): item for key, item in value.items()}


def _positive_int(value: object, what: str) -> int:
    return _at_least(1, value, what)


def _non_negative_int(value: object, what: str) -> int:
    return _at_least(0, value, what)


def _integer(value: object, what: str) -> int:
    if isinstance(value, bool) or not re.fullmatch(r"-?[0-9]+", str(value).strip()):  # ASCII digits only
        raise KlinkError(f"{what} must be a whole number, got {value!r}")
    return int(str(value).strip())


def _at_least(minimum: int, value: object, what: str) -> int:
    number = _integer(value, what)
    if number < minimum:
        raise KlinkError(f"{what} must be at least {minimum}, got {number}")
    return number


def _sweep_name(value: object, source: str) -> str:
    name = str(value)
    if not _NAME.match(name):
        raise KlinkError(f"{source}: name {name!r} must be letters, digits, '.', '_' or '-' (it names the sweep directory)")
    return name


# ---------------------------------------------------------------- the sweep directory


@dataclass
class IndexRow:
    """One planned run in index.csv: its place in the grid and what became of it."""

    index: int
    repetition: int
    seed: int
    params: dict[str, str]
    run_id: str = ""
    status: str = PENDING
    started_at: str = ""
    finished_at: str = ""
    wall_s: str = ""
    reason: str = ""
    run_dir: str = ""  # relative to the sweep directory
    warmup: bool = False

    @classmethod
    def planned(cls, run: PlannedRun) -> IndexRow:
        return cls(run.index, run.repetition, run.seed, {key: str(value) for key, value in run.params.items()},
                   warmup=run.warmup)

    def matches(self, run: PlannedRun) -> bool:
        planned = IndexRow.planned(run)
        return (self.index, self.repetition, self.seed, self.params, self.warmup) == (
            planned.index, planned.repetition, planned.seed, planned.params, planned.warmup)

    def to_csv(self) -> dict[str, object]:
        return {**{name: getattr(self, name) for name in INDEX_COLUMNS}, "warmup": str(self.warmup).lower(),
                **self.params}


@dataclass
class Sweep:
    directory: Path
    spec: SweepSpec
    runs: list[PlannedRun]
    rows: list[IndexRow]  # rows[i] belongs to runs[i]

    def unfinished(self) -> list[PlannedRun]:
        return [run for run, row in zip(self.runs, self.rows) if row.status != COMPLETED]

    def row(self, run: PlannedRun) -> IndexRow:
        return self.rows[run.index - 1]

    def counts(self) -> dict[str, int]:
        return {status: sum(row.status == status for row in self.rows) for status in STATUSES}


def read_sweep_file(path: Path, repetitions: int | None = None) -> tuple[SweepSpec, list[PlannedRun]]:
    """A sweep file, parsed and planned: every run validated, nothing started or written."""
    spec = parse_sweep(_read_yaml(path), str(path), path.stem, repetitions)
    return spec, plan_runs(spec, str(path))


def create_sweep(spec: SweepSpec, runs: list[PlannedRun], results_root: Path) -> Sweep:
    """A new sweep directory results/<name>-<time>/ with sweep.yaml and an index.csv of pending runs."""
    sweep = Sweep(_new_sweep_dir(results_root, spec.name), spec, runs, [IndexRow.planned(run) for run in runs])
    save(sweep)
    return sweep


def open_sweep(directory: Path, repetitions: int | None = None) -> Sweep:
    """An existing sweep directory, to resume (nothing written): its sweep.yaml planned again, its index.csv
    matched against the plan. More repetitions than before append runs; fewer are refused."""
    path = directory / SWEEP_FILE
    if not path.is_file():
        raise KlinkError(f"{directory} is not a sweep directory (no {SWEEP_FILE}); give the directory "
                         f"`klinkctl sweep` created, results/<sweep-id>/")
    saved, runs = read_sweep_file(path)
    if repetitions is not None and repetitions < saved.repetitions:
        raise KlinkError(f"--repetitions {repetitions} is fewer than the {saved.repetitions} of the sweep in {directory}")
    spec, runs = read_sweep_file(path, repetitions) if repetitions is not None else (saved, runs)
    return Sweep(directory, spec, runs, match_index(read_index(directory, list(spec.axes)), runs, directory))


def match_index(rows: list[IndexRow], runs: list[PlannedRun], directory: Path) -> list[IndexRow]:
    """index.csv's rows, checked against the plan; planned runs beyond them (more repetitions) are pending."""
    if len(rows) > len(runs):
        raise KlinkError(f"{directory / INDEX_FILE} has {len(rows)} runs but {SWEEP_FILE} plans {len(runs)}; "
                         "was sweep.yaml edited?")
    for row, run in zip(rows, runs):
        if not row.matches(run):
            raise KlinkError(f"{directory / INDEX_FILE}: row {row.index} is not run {run.index} of {SWEEP_FILE} "
                             f"({run.label}, seed {run.seed}); was either file edited?")
    return rows + [IndexRow.planned(run) for run in runs[len(rows):]]


def save(sweep: Sweep) -> None:
    """sweep.yaml (rewritten only when it changed, e.g. more repetitions) and index.csv."""
    path = sweep.directory / SWEEP_FILE
    text = (f"# klinkctl sweep {sweep.spec.name}: {len(sweep.runs)} runs. Resume an unfinished sweep with\n"
            f"# klinkctl sweep --resume {sweep.directory}\n" + yaml.safe_dump(sweep.spec.to_dict(), sort_keys=False))
    if not path.is_file() or path.read_text() != text:
        _replace_file(path, text)
    write_index(sweep)


def write_index(sweep: Sweep) -> None:
    """index.csv, replaced in one step (a reader or a crash never sees half a file)."""
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=[*INDEX_COLUMNS, *sweep.spec.axes], lineterminator="\n")
    writer.writeheader()
    writer.writerows(row.to_csv() for row in sweep.rows)
    _replace_file(sweep.directory / INDEX_FILE, text.getvalue())


def read_index(directory: Path, axes: list[str]) -> list[IndexRow]:
    path = directory / INDEX_FILE
    try:
        with path.open(newline="") as handle:
            reader = csv.DictReader(handle)
            expected = [*INDEX_COLUMNS, *axes]
            if reader.fieldnames not in (expected, [*LEGACY_INDEX_COLUMNS, *axes]):
                raise KlinkError(f"{path}: columns {reader.fieldnames} are not those of its sweep: {expected}")
            return [_row_from_csv(line, axes, path) for line in reader]
    except OSError as error:
        raise KlinkError(f"cannot read {path}: {error.strerror}") from None


def _row_from_csv(line: dict[str, str], axes: list[str], path: Path) -> IndexRow:
    if line["status"] not in STATUSES:
        raise KlinkError(f"{path}: row {line['index']} has status {line['status']!r}; valid: {', '.join(STATUSES)}")
    try:
        numbers = {key: int(line[key]) for key in ("index", "repetition", "seed")}
    except ValueError:
        raise KlinkError(f"{path}: row {line['index']!r} has a non-numeric index, repetition or seed") from None
    text = {key: line[key] for key in LEGACY_INDEX_COLUMNS if key not in numbers}
    return IndexRow(**numbers, **text, params={key: line[key] for key in axes},
                    warmup=line.get("warmup", "false") == "true")


def _replace_file(path: Path, text: str) -> None:
    write_atomically(path, text)


def _new_sweep_dir(results_root: Path, name: str) -> Path:
    stem = f"{name}-{time.strftime('%Y%m%d-%H%M%S')}"
    for suffix in itertools.count(1):
        directory = results_root / (stem if suffix == 1 else f"{stem}-{suffix}")
        try:
            directory.mkdir(parents=True)
            return directory
        except FileExistsError:
            continue
    raise AssertionError("unreachable")


def _read_yaml(path: Path) -> object:
    try:
        return yaml.safe_load(path.read_text())
    except OSError as error:
        raise KlinkError(f"cannot read sweep file {path}: {error.strerror}") from None
    except yaml.YAMLError as error:
        raise KlinkError(f"sweep file {path} is not valid YAML: {str(error).splitlines()[0]}") from None


# ---------------------------------------------------------------- runner


class SweepObserver(Protocol):
    """What the runner reports while it works (the CLI draws its progress bar from it)."""

    def run_started(self, run: PlannedRun) -> None: ...

    def run_progress(self, line: str) -> None: ...

    def run_finished(self, run: PlannedRun, row: IndexRow) -> None: ...


class _Unobserved:
    def run_started(self, run: PlannedRun) -> None:
        pass

    def run_progress(self, line: str) -> None:
        pass

    def run_finished(self, run: PlannedRun, row: IndexRow) -> None:
        pass


@dataclass(frozen=True)
class SweepOutcome:
    counts: dict[str, int]
    interrupted: bool  # Ctrl-C or SIGTERM stopped the sweep; resume runs what is left
    failed: list[IndexRow] = field(default_factory=list)
    stack_down: str | None = None  # the stack could not run the next run: the sweep stopped before it


def run_sweep(sweep: Sweep, stack: StackSpec, stack_processes: dict[str, int],
              observer: SweepObserver | None = None) -> SweepOutcome:
    """Every unfinished run, in plan order; index.csv rewritten before and after each. A failed run is
    recorded and the sweep goes on; an interrupted one is recorded and the sweep stops."""
    observer = observer or _Unobserved()
    save(sweep)
    with signals_as_interrupt():
        for run in sweep.unfinished():
            problem = stack_problem(stack)
            if problem is not None:
                return _outcome(sweep, interrupted=False, stack_down=problem)
            row = _start(sweep, run)
            observer.run_started(run)
            started = time.monotonic()
            status, reason, outcome = _attempt(run, sweep.directory, stack, stack_processes, observer)
            _finish(sweep, row, status, reason, outcome, time.monotonic() - started)
            observer.run_finished(run, row)
            if row.status == INTERRUPTED:
                return _outcome(sweep, interrupted=True)
    return _outcome(sweep, interrupted=False)


def _attempt(run: PlannedRun, directory: Path, stack: StackSpec, stack_processes: dict[str, int],
             observer: SweepObserver) -> tuple[str, str, RunOutcome | None]:
    """(status, reason, outcome) of one run_bench call; whatever goes wrong is the run's, not the sweep's."""
    try:
        outcome = run_bench(stack, run.config, directory, stack_processes, progress=observer.run_progress)
    except KeyboardInterrupt:  # outside run_bench's own handling: before its run started, or during its clean-up
        return INTERRUPTED, "interrupted (Ctrl-C or SIGTERM) before the run started or while it was cleaned up", None
    except Exception as error:  # noqa: BLE001 - a long sweep records a broken run and goes on
        return FAILED, f"{type(error).__name__}: {error}".splitlines()[0], None
    return outcome.summary["status"], outcome.summary.get("reason") or "", outcome


def _start(sweep: Sweep, run: PlannedRun) -> IndexRow:
    row = replace(IndexRow.planned(run), started_at=_now())
    sweep.rows[run.index - 1] = row
    write_index(sweep)  # pending with a start time: a killed sweep redoes this run on resume
    return row


def _finish(sweep: Sweep, row: IndexRow, status: str, reason: str, outcome: RunOutcome | None,
            wall_s: float) -> None:
    row.status = status if status in STATUSES else FAILED
    row.reason = reason
    row.finished_at = _now()
    row.wall_s = f"{wall_s:.1f}"
    if outcome is not None:
        row.run_id = str(outcome.summary.get("run") or outcome.run_dir.name)
        row.run_dir = os.path.relpath(outcome.run_dir, sweep.directory)
    write_index(sweep)


def _outcome(sweep: Sweep, interrupted: bool, stack_down: str | None = None) -> SweepOutcome:
    return SweepOutcome(sweep.counts(), interrupted, [row for row in sweep.rows if row.status == FAILED], stack_down)


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


