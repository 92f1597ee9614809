#!/usr/bin/env bash
# Every test: Python unit tests, Java unit tests (Maven Surefire), then integration tests that start
# the real Kafka broker and Flink cluster on free loopback ports, run real jobs and stop everything.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "== Java unit tests"
mvn -q -B -f java-udfs/pom.xml test
echo "== Python unit and integration tests"
.venv/bin/python -m pytest -ra --durations=30 "$@"
