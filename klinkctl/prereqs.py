"""Checks for the tools klinkctl drives, each failing with one line that says how to fix it."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

from klinkctl import FLINK_VERSION
from klinkctl.errors import KlinkError

REQUIRED_JAVA_MAJOR = 17


def check_python(version_info: tuple[int, int] = sys.version_info[:2]) -> None:
    if tuple(version_info) != (3, 11):
        found = ".".join(map(str, version_info))
        raise KlinkError(
            f"klinkctl needs Python 3.11 (apache-flink {FLINK_VERSION} ships wheels for it), found {found}; "
            "create the venv with python3.11"
        )


def java_major_version(version_output: str) -> int | None:
    """Parse `java -version` output ('openjdk version "17.0.15"' or '"1.8.0_392"')."""
    match = re.search(r'version "(\d+)(?:\.(\d+))?', version_output)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2)) if major == 1 and match.group(2) else major


def check_java() -> str:
    java = shutil.which("java")
    if java is None:
        raise KlinkError("java not found on PATH; install JDK 17 (e.g. apt-get install openjdk-17-jdk-headless)")
    result = subprocess.run([java, "-version"], capture_output=True, text=True, check=False)
    major = java_major_version(result.stderr + result.stdout)
    if major != REQUIRED_JAVA_MAJOR:
        raise KlinkError(
            f"klinkctl needs Java {REQUIRED_JAVA_MAJOR} (Flink {FLINK_VERSION} is tested with it), "
            f"but `java -version` reports {major or 'an unknown version'}; put JDK 17 first on PATH"
        )
    return java


def check_maven() -> str:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise KlinkError("mvn not found on PATH; install Maven 3.8+ (e.g. apt-get install maven)")
    return mvn


def check_all() -> None:
    check_python()
    check_java()
    check_maven()
