"""`--load F --capacity FILE`: a bench rate as a fraction of a measured capacity (capacity.json of `klinkctl
capacity`, klinkctl.run.capacity). Light on purpose (no NumPy): the config code imports it on every start."""

from __future__ import annotations

import json
import re
import string
from pathlib import Path

from klinkctl.errors import KlinkError
from klinkctl.options import Section, option

CAPACITY_KIND = "klinkctl-capacity"
FORMAT_VERSION = 1

#: Settings a run at a load may change from its capacity's: the scheduler's policy and parameters (comparing
#: policies at a fraction of Default's capacity is the point), the run's length and seed, and the exact results
#: computed after the run. Every other setting changes the work per event, its arrival or the machine's share of
#: it (e.g. queries, window, delay, markers, generator pinning), so it must be the capacity's.
LOAD_FREE_SETTINGS = frozenset({"policy", "cycle_ms", "history", "memory_bound", "cores", "aging", "strict_slack",
                                "fill_cycle", "enforce", "forwarding", "seed", "duration_ms", "warmup_ms", "accuracy", "rate",
                                "load", "capacity"})


class LoadOptions(Section):
    load: float | None = option(None, "Run at this fraction of --capacity's rate instead of --rate (e.g. 0.9): "
                                "rate = round(F x its events/s per query).", gt=0)
    capacity: str = option("", "A capacity.json of `klinkctl capacity` for the same workload and load settings "
                           "(the policy and its parameters may differ); needs --load.")


def read_capacity(path: Path) -> dict:
    """A capacity.json with a sustainable rate, or a one-line KlinkError."""
    try:
        document = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise KlinkError(f"--capacity {path}: no such file; measure one with `klinkctl capacity`") from None
    except IsADirectoryError:
        raise KlinkError(f"--capacity {path} is a directory; give its capacity.json") from None
    except OSError as error:
        raise KlinkError(f"--capacity {path}: {error.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise KlinkError(f"--capacity {path} is not JSON; give the capacity.json `klinkctl capacity` wrote") from None
    if not isinstance(document, dict) or document.get("kind") != CAPACITY_KIND \
            or not isinstance(document.get("config"), dict):
        raise KlinkError(f"--capacity {path} is not a capacity file (one written by `klinkctl capacity`)")
    rate = document.get("rate")
    if not isinstance(rate, int) or isinstance(rate, bool) or rate < 1:
        raise KlinkError(f"--capacity {path} has no sustainable rate (bottleneck: {document.get('bottleneck')}; "
                         f"{document.get('stopped')})")
    return document


#: What a value becomes in a capacity file name: `uniform:0-400ms` -> `uniform_0-400ms`.
_NOT_IN_FILE_NAMES = re.compile(r"[^A-Za-z0-9._-]+")


def capacity_path(template: str, values: dict) -> str:
    """A capacity path with `{field}` placeholders (RunSpec fields, e.g.
    `results/capacity-ysb-{queries}q-{watermark_bound_ms}ms-{delay}.json`) filled from the run's settings,
    each value made file-name safe; a path without placeholders is returned as it is. A capacity measured for
    one query count (or delay, or bound) does not apply to another, so a sweep over those names one per cell."""
    try:
        names = [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]
    except ValueError as error:
        raise KlinkError(f"--capacity {template}: {error} (placeholders are {{field}}, e.g. {{queries}})") from None
    missing = sorted({name for name in names if name not in values})
    if missing:
        raise KlinkError(f"--capacity {template} names {{{missing[0]}}}, which this run does not set; "
                         f"placeholders name settings the run gives, e.g. {{queries}}")
    return template.format_map({name: _NOT_IN_FILE_NAMES.sub("_", str(values[name])) for name in names})


def apply_load(values: dict) -> dict:
    """Bench settings (RunSpec fields, as given) with `load` and `capacity` -> the same with
    rate = round(load x the capacity's rate), and the capacity's `{field}` placeholders filled in
    (capacity_path). Without `load` they pass unchanged. Whether the rest of the settings match the
    capacity's is checked on the whole config (check_load)."""
    load, capacity = values.get("load"), values.get("capacity") or ""
    if load is None:
        if capacity:
            raise KlinkError("--capacity needs --load F (the fraction of the capacity's rate to run at)")
        return values
    if "rate" in values:
        raise KlinkError("give --load or --rate, not both: --load sets the rate as a fraction of --capacity's")
    if not capacity:
        raise KlinkError("--load needs --capacity FILE (a capacity.json written by `klinkctl capacity`)")
    if load <= 0:
        raise KlinkError(f"--load must be greater than 0, got {load}")
    capacity = capacity_path(str(capacity), values)
    return {**values, "capacity": capacity, "rate": max(1, round(load * read_capacity(Path(capacity))["rate"]))}


def check_load(config: dict) -> None:
    """A config at a load (RunSpec.to_dict()) against its capacity file: the same workload, the rate that
    load resolves to, and every setting outside LOAD_FREE_SETTINGS as the capacity measured it."""
    capacity = config["capacity"]
    if config["load"] is None or not capacity:
        raise KlinkError("--load and --capacity go together: --load F --capacity FILE")
    document = read_capacity(Path(capacity))
    if document.get("workload") != config["workload"]:
        raise KlinkError(f"--capacity {capacity} was measured for workload {document.get('workload')}, "
                         f"not {config['workload']}")
    if config["rate"] != max(1, round(config["load"] * document["rate"])):
        raise KlinkError(f"rate {config['rate']} is not --load {config['load']} x the {document['rate']} events/s "
                         f"of --capacity {capacity}; give --load without --rate")
    measured = document["config"]
    for name, value in config.items():
        if name in LOAD_FREE_SETTINGS or name not in measured:
            continue
        if name == "confidence" and config.get("sampler") == "none":
            continue  # without a sampler, confidence is a scheduler parameter only
        if value != measured[name]:
            raise KlinkError(f"--capacity {capacity} was measured with {name} = {measured[name]!r}, this run has "
                             f"{value!r}; a capacity applies to the same load (only the policy, its parameters, "
                             "duration, warm-up and seed may differ)")
