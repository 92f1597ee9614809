"""The executable turns an error raised while the command line is imported (a failed build of the Java catalog)
into one line and its exit code, not a traceback."""

from __future__ import annotations

import importlib

import pytest

from klinkctl import entry
from klinkctl.errors import KlinkError


def test_an_error_while_importing_the_command_line_is_one_line(monkeypatch, capsys):
    def failing_import(name):
        raise KlinkError("building java-udfs failed: COMPILATION ERROR (run: mvn ...)")
    monkeypatch.setattr(importlib, "import_module", failing_import)
    with pytest.raises(SystemExit) as exit_:
        entry.main()
    assert exit_.value.code != 0
    err = capsys.readouterr().err
    assert err == "error: building java-udfs failed: COMPILATION ERROR (run: mvn ...)\n"
