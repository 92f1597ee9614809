import os
import stat

import pytest

from klinkctl import prereqs
from klinkctl.errors import KlinkError


@pytest.mark.parametrize("output, major", [
    ('openjdk version "17.0.15" 2025-04-15', 17),
    ('java version "1.8.0_392"', 8),
    ('openjdk version "21" 2023-09-19', 21),
    ("garbage", None),
])
def test_java_major_version_is_read_from_java_version_output(output, major):
    assert prereqs.java_major_version(output) == major


def test_wrong_python_is_one_clear_line():
    with pytest.raises(KlinkError, match=r"needs Python 3\.11 .* found 3\.12"):
        prereqs.check_python((3, 12))
    prereqs.check_python((3, 11))


def fake_tool(directory, name, stderr_line):
    tool = directory / name
    tool.write_text(f"#!/bin/sh\necho '{stderr_line}' >&2\n")
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)


def test_java_11_is_refused(tmp_path, monkeypatch):
    fake_tool(tmp_path, "java", 'openjdk version "11.0.2" 2019-01-15')
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(KlinkError, match=r"needs Java 17 .* reports 11; put JDK 17 first on PATH"):
        prereqs.check_java()


def test_missing_java_and_maven_say_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(KlinkError, match="java not found on PATH; install JDK 17"):
        prereqs.check_java()
    with pytest.raises(KlinkError, match="mvn not found on PATH; install Maven"):
        prereqs.check_maven()


def test_real_java_here_is_17():
    assert os.path.basename(prereqs.check_java()) == "java"
