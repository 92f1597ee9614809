#!/usr/bin/env bash
# Installs everything klinkctl needs into ./.venv (idempotent): Python deps, the java-udfs build,
# and (through Maven, into the user cache) the Kafka broker and Flink connector jars.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3.11}
command -v "$python" >/dev/null 2>&1 || python=python3
"$python" - <<'PY' || { echo "error: klinkctl needs Python 3.11 (set PYTHON=/path/to/python3.11)" >&2; exit 2; }
import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else 1)
PY
command -v java >/dev/null || { echo "error: java not found; install JDK 17" >&2; exit 2; }
command -v mvn >/dev/null || { echo "error: mvn not found; install Maven 3.8+" >&2; exit 2; }

if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
# pip only when the venv is new or pyproject.toml changed since it last installed (the install is editable)
installed_for=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ "$(cat .venv/.klinkctl-installed 2>/dev/null)" != "$installed_for" ]; then
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -e '.[test]'
  echo "$installed_for" > .venv/.klinkctl-installed
fi
if [ -n "${KLINK_JAVA_TESTS:-}" ]; then  # scripts/test.sh: the Java unit tests and the jar build in one Maven run
  echo "== Java unit tests (Maven Surefire), building the java-udfs jars in the same run"
  mvn -q -B -f java-udfs/pom.xml package
fi
.venv/bin/python -m klinkctl.artifacts   # builds java-udfs unless current, fetches and caches the Kafka + connector jars
