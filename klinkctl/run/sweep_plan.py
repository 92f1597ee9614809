"""A sweep file planned into bench runs (pure: no I/O but reading the file): a sweep file's mapping ->
``SweepSpec`` -> ``PlannedRun``s, in a fixed order with per-repetition seeds, warm-up runs first, every run's
``RunSpec`` validated before anything starts (``plan_runs``). Format: docs/sweep.md.
"""

from __future__ import annotations

import itertools
import random
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from klinkctl.errors import KlinkError
from klinkctl.files import read_yaml
from klinkctl.options import whole_number
from klinkctl.run.bench import START_LEAD_MS, drain_ms
from klinkctl.sim.graphs import check_simulable
from klinkctl.stack.running import ON_LOST_TASKMANAGER
from klinkctl.run.config import WORKLOAD_DEFAULTS, RunSpec, build, user_settings
from klinkctl.run.load import apply_load, capacity_path


VARIANT = "variant"  # index.csv's column (and PlannedRun.params' key) naming a run's variant
DEFAULT_REPETITIONS = 3
DEFAULT_BASE_SEED = 42  # bench's default seed: repetition 1 of a sweep = a plain `klinkctl bench` run
SWEEP_KEYS = ("name", "mode", "workload", "repetitions", "base-seed", "warmup-runs", "order", "on-lost-taskmanager",
              "fixed", "grid", "variants")
#: How each run is made: bench (the real stack) or simulate (klinkctl.sim: no stack needed).
MODES = ("bench", "simulate")
#: Wall time of one simulated run, for the plan's estimate (the progress bar corrects it).
SIMULATED_RUN_S = 3.0
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
    mode: str = MODES[0]
    on_lost_taskmanager: str = ON_LOST_TASKMANAGER[0]

    @property
    def simulated(self) -> bool:
        return self.mode == "simulate"

    @property
    def axes(self) -> dict[str, list[Any]]:
        """Every parameter a run is planned by, with its values: the grid's, then `variant` (if any)."""
        return {**self.grid, **({VARIANT: list(self.variants)} if self.variants else {})}

    def to_dict(self) -> dict[str, Any]:
        """The sweep file form (what sweep.yaml holds; `klinkctl sweep` reads it back)."""
        return {"name": self.name, "mode": self.mode, "workload": self.workload, "repetitions": self.repetitions,
                "base-seed": self.base_seed, "warmup-runs": self.warmup_runs, "order": self.order,
                "on-lost-taskmanager": self.on_lost_taskmanager, "fixed": dict(self.fixed), "grid": {k: list(v) for k, v in self.grid.items()},
                "variants": {name: dict(settings) for name, settings in self.variants.items()}}


@dataclass(frozen=True)
class PlannedRun:
    index: int  # 1-based position in the run order
    repetition: int  # 1-based; 0 for a warm-up run
    seed: int
    params: dict[str, Any]  # this run's value of every grid parameter (and variant), in axes order, as written
    config: RunSpec
    warmup: bool = False  # run first, kept on disk and in index.csv, never in cells.csv or reports
    simulated: bool = False  # made by klinkctl simulate, not on the stack

    @property
    def label(self) -> str:
        point = " ".join(f"{key}={value}" for key, value in self.params.items())
        return f"warm-up {point}" if self.warmup else f"{point} rep {self.repetition}"

    @property
    def estimated_s(self) -> float:
        return SIMULATED_RUN_S if self.simulated else estimate_run_s(self.config)


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
        repetitions=whole_number(repetitions if repetitions is not None else top.get("repetitions", DEFAULT_REPETITIONS),
                                 f"{source}: repetitions", minimum=1),
        base_seed=whole_number(top.get("base-seed", DEFAULT_BASE_SEED), f"{source}: base-seed"),
        fixed=_mapping(top.get("fixed"), f"{source}: fixed"), grid=grid,
        variants=_variants(top.get("variants"), source),
        warmup_runs=whole_number(top.get("warmup-runs", 0), f"{source}: warmup-runs", minimum=0),
        order=_choice(top.get("order", ORDERS[0]), ORDERS, "order", source),
        mode=_choice(top.get("mode", MODES[0]), MODES, "mode", source),
        on_lost_taskmanager=_choice(top.get("on-lost-taskmanager", ON_LOST_TASKMANAGER[0]), ON_LOST_TASKMANAGER,
                                    "on-lost-taskmanager", source))
    _check_settings(spec, source)
    return spec


def plan_runs(spec: SweepSpec, source: str) -> list[PlannedRun]:
    """Every run, in order: the warm-up runs (the first measured run's settings), then repetition by
    repetition (outermost) each combination of the grid's other parameters (first parameter slowest, or
    shuffled per repetition with `order: shuffled`), then the policies and variants innermost — one grid
    point's policies and variants run back to back, rotated by one per repetition, so drift on the machine
    hits every one alike. Repetition k of every point has the same seed (paired comparison). Every run's
    RunSpec is validated here."""
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


def estimate_run_s(config: RunSpec) -> float:
    """Wall time of one run: the generator's lead, the events, the drain of the last windows, the rest."""
    return (START_LEAD_MS + config.duration_ms + drain_ms(config)) / 1000 + RUN_OVERHEAD_S


def _planned(index: int, repetition: int, seed: int, params: dict[str, Any], spec: SweepSpec,
             settings: dict[str, dict[str, Any]], source: str, warmup: bool) -> PlannedRun:
    """One run; `settings` holds the fixed bench fields (key "fixed") and every variant's."""
    try:
        config = build({**_settings_of(params, spec, settings, source), "seed": seed})
        if spec.simulated:
            check_simulable(config)
    except KlinkError as error:
        raise KlinkError(f"{source}: run {index} ({', '.join(f'{k}={v}' for k, v in params.items())}): {error}") from None
    return PlannedRun(index, repetition, seed, params, config, warmup, spec.simulated)


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
    """The RunSpec field a setting as written (`watermark-bound`) sets."""
    (name,) = _bench_fields({key: value}, source)
    return name


def _bench_fields(settings: dict[str, Any], source: str) -> dict[str, Any]:
    """Settings as written -> RunSpec fields, through the bench config's own parser."""
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


def _choice(value: object, choices: tuple[str, ...], key: str, source: str) -> str:
    if value not in choices:
        raise KlinkError(f"{source}: {key} {value!r}; valid: {', '.join(choices)}")
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


def _sweep_name(value: object, source: str) -> str:
    name = str(value)
    if not _NAME.match(name):
        raise KlinkError(f"{source}: name {name!r} must be letters, digits, '.', '_' or '-' (it names the sweep directory)")
    return name


# ---------------------------------------------------------------- the sweep directory


def read_sweep_file(path: Path, repetitions: int | None = None) -> tuple[SweepSpec, list[PlannedRun]]:
    """A sweep file, parsed and planned: every run validated, nothing started or written."""
    spec = parse_sweep(read_yaml(path, f"sweep file {path}"), str(path), path.stem, repetitions)
    return spec, plan_runs(spec, str(path))


