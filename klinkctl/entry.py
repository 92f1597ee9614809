"""The `klinkctl` executable: imports the command line, which can fail before any command runs (the catalog of the
Java modules is built on first import, and that build can fail), and turns such a failure into one line too."""

from __future__ import annotations

import importlib
import sys

from klinkctl.errors import KlinkError


def main() -> None:
    try:
        cli = importlib.import_module("klinkctl.cli")
    except KlinkError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(error.exit_code)
    cli.main()
