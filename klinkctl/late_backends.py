"""The late-event windows' settings that span options or need the installed Flink (docs/late-state.md): checked
before anything starts."""

from __future__ import annotations

import importlib.util
import shutil
import zipfile
from pathlib import Path
from functools import lru_cache

from klinkctl import catalog
from klinkctl.errors import KlinkError


@lru_cache(maxsize=1)
def flink_classes() -> frozenset[str] | None:
    """The classes of the installed Flink distribution's lib/flink-dist jar (None if it cannot be read)."""
    found = importlib.util.find_spec("pyflink")
    if found is None or not found.submodule_search_locations:
        return None
    for jar in (Path(list(found.submodule_search_locations)[0]) / "lib").glob("flink-dist*.jar"):
        with zipfile.ZipFile(jar) as archive:
            return frozenset(n[:-6].replace("/", ".") for n in archive.namelist() if n.endswith(".class"))
    return None


def check(workload: str, late_state: str, sampler: str, late_trigger: str = "watermark",
          predictive_cleanup: float = 0, allowed_lateness_ms: int = 1) -> None:
    """One line if the run cannot have its late state: a sampler (not wired in front of these windows), a late
    trigger other than Flink's for Flink's window operator or one that plans over no lateness, or a state backend
    the installed Flink does not ship."""
    if sampler != "none":
        raise KlinkError(f"--sampler does not apply to the {workload} workload (its windows keep late events)")
    if late_trigger != "watermark" and late_state != "aion":
        raise KlinkError(f"--late-trigger {late_trigger} is AION's (--late-state aion); Flink's window operator "
                         f"fires on every late event")
    if late_trigger != "watermark" and allowed_lateness_ms <= 0:
        raise KlinkError(f"--late-trigger {late_trigger} plans executions over --allowed-lateness, which is 0; "
                         f"give a lateness > 0 or use --late-trigger watermark")
    if predictive_cleanup and late_state != "aion":
        raise KlinkError("--predictive-cleanup is AION's (--late-state aion); Flink's window operator keeps every "
                         "window for --allowed-lateness")
    needed = catalog.late_state_backend_class(late_state)
    classes = flink_classes()
    if classes is not None and needed not in classes:
        raise KlinkError(f"--late-state {late_state} needs {needed}, which the installed Flink lacks; "
                         f"choose another of {', '.join(catalog.late_states())}")


def check_posts(workload: str, payload_bytes: int) -> None:
    """One line if bigrams' posts would be empty: --payload-bytes is their mean size there."""
    if workload == "bigrams" and payload_bytes < 1:
        raise KlinkError(f"--payload-bytes {payload_bytes}: bigrams posts need a mean size of at least 1 byte "
                         f"(default {catalog.bigrams()['meanPostBytes']}, the paper's)")


def check_destaging(late_state: str, idle_ms: int, scarce: float, very_scarce: float) -> None:
    """One line if §3.2's additional destaging policies are asked of Flink's window operator, or the very-scarce
    threshold lies above the moderately-scarce one."""
    if (idle_ms or scarce or very_scarce) and late_state != "aion":
        raise KlinkError("--destage-idle, --destage-scarce and --destage-very-scarce are AION's (--late-state aion); "
                         "Flink's window operator keeps every window's state where its state backend does")
    if scarce and very_scarce > scarce:
        raise KlinkError(f"--destage-very-scarce {very_scarce} is above --destage-scarce {scarce}: very scarce means "
                         "less free heap than moderately scarce; lower it or raise --destage-scarce")


#: What a p-bucket record holds beside its payload (PBuckets: the key, value, event time and the payload's length),
#: rounded up.
P_BUCKET_RECORD_OVERHEAD_BYTES = 32


def p_bucket_bytes_needed(config) -> int:
    """An upper bound of what AION's p-buckets hold at once: every event of the allowed lateness and one more
    window, at the peak rate, for every query (only the bootstrap sets stay in memory); never less than the floor
    the operator itself demands (PBucketDirectory.MIN_FREE_BYTES). Measured: 778 MB at most against 870 MB
    bounded, 20 000 events/s of 2 KB at 20 s of lateness (docs/data/capacity-average-20261127-154334)."""
    seconds = (config.allowed_lateness_ms + config.window_ms) / 1000
    events = config.queries * config.rate * config.rates.peak_multiplier() * seconds
    return max(catalog.p_bucket_min_free_bytes(),
               round(events * (config.payload_bytes + P_BUCKET_RECORD_OVERHEAD_BYTES)))


def check_p_bucket_disk(config, tmp_dir: Path) -> None:
    """One line before anything starts if the disk of the TaskManagers' temp dir (where AION's p-buckets go, on a
    stack klinkctl runs on this machine) has less free space than the run's p-buckets may need."""
    existing = next(p for p in (tmp_dir, *tmp_dir.parents) if p.exists())
    free, needed = shutil.disk_usage(existing).free, p_bucket_bytes_needed(config)
    if free < needed:
        raise KlinkError(f"--late-state aion keeps up to {needed / 2**20:.0f} MiB of p-buckets on the disk of {tmp_dir} "
                         f"at this rate and --allowed-lateness, and it has {free / 2**20:.0f} MiB free: free space "
                         "there, or lower --rate, --allowed-lateness or --payload-bytes")
