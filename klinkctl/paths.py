"""Where things live: the source checkout, the user cache, the state dir."""

import os
from pathlib import Path

from klinkctl.errors import KlinkError

PACKAGE_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = PACKAGE_DIR.parent
JAVA_UDFS_DIR = PROJECT_ROOT / "java-udfs"
JOBS_DIR = PROJECT_ROOT / "jobs"
DEFAULT_STATE_DIR = Path(".klink")


def cache_dir() -> Path:
    """Downloaded jars (Kafka broker, Flink connector): $KLINK_CACHE_DIR or ~/.cache/klinkctl."""
    explicit = os.environ.get("KLINK_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser().resolve()
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "klinkctl"


def require_source_checkout() -> None:
    """klinkctl builds java-udfs and submits jobs/ from its checkout (pip install -e .)."""
    if not (JAVA_UDFS_DIR / "pom.xml").is_file() or not JOBS_DIR.is_dir():
        raise KlinkError(
            f"klinkctl needs its source checkout (java-udfs/ and jobs/ next to {PACKAGE_DIR}); "
            "install it with `pip install -e .` from a clone of the repository"
        )


def resolve_state_dir(state_dir: str | os.PathLike | None) -> Path:
    """The state dir (config, logs, pids, data); refuses a path that exists but is not a directory."""
    chosen = Path(state_dir or os.environ.get("KLINK_STATE_DIR") or DEFAULT_STATE_DIR).expanduser()
    chosen = chosen.resolve()
    if chosen.exists() and not chosen.is_dir():
        raise KlinkError(
            f"state dir {chosen} exists and is not a directory; remove it or pass --state-dir DIR"
        )
    return chosen
