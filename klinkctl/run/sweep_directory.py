"""A sweep directory ``results/<sweep-id>/``: ``sweep.yaml`` (the resolved sweep file), ``index.csv`` (one row
per planned run and its status, rewritten atomically before and after every run) and the run directories.
``create_sweep`` makes one; ``open_sweep`` reopens an interrupted one so that only its unfinished runs are run
again. Format: docs/sweep.md.
"""

from __future__ import annotations

import csv
import io
import itertools
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from klinkctl.errors import KlinkError
from klinkctl.files import write_atomically
from klinkctl.run.sweep_plan import PlannedRun, SweepSpec, read_sweep_file


SWEEP_FILE = "sweep.yaml"
INDEX_FILE = "index.csv"
#: index.csv's leading columns (`klinkctl report` reads them); one column per grid parameter (and `variant`) follows.
INDEX_COLUMNS = ("index", "run_id", "status", "repetition", "seed", "started_at", "finished_at", "wall_s",
                 "reason", "run_dir", "warmup")
#: The leading columns of a sweep created before warm-up runs existed (still resumable).
LEGACY_INDEX_COLUMNS = INDEX_COLUMNS[:-1]
PENDING, COMPLETED, FAILED, INTERRUPTED = "pending", "completed", "failed", "interrupted"
STATUSES = (PENDING, COMPLETED, FAILED, INTERRUPTED)


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
