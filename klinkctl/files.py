"""Files a reader may open at any moment (summary.json, index.csv, the stack record) are replaced whole, never
seen half-written: written to a temporary file beside them, then renamed over them (atomic on POSIX)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_atomically(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def write_json(path: Path, data: Any) -> Path:
    return write_atomically(path, json.dumps(data, indent=2, default=str) + "\n")


def read_yaml(path: Path, named: str) -> Any:
    """A YAML file's content; an unreadable or invalid file is one KlinkError line naming it as `named`."""
    import yaml

    from klinkctl.errors import KlinkError

    try:
        return yaml.safe_load(path.read_text())
    except OSError as error:
        raise KlinkError(f"cannot read {named}: {error.strerror}") from None
    except yaml.YAMLError as error:
        raise KlinkError(f"{named} is not valid YAML: {str(error).splitlines()[0]}") from None
