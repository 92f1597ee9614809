#!/usr/bin/env bash
# Every test: Python unit tests, Java unit tests (Maven Surefire), then integration tests that start
# the real Kafka broker and Flink cluster on free loopback ports, run real jobs and stop everything.
set -euo pipefail
cd "$(dirname "$0")/.."
KLINK_JAVA_TESTS=1 bash scripts/setup.sh  # runs the Java tests in the Maven build of the jars: one Maven run, not two
echo "== Python unit and integration tests"
.venv/bin/python -m pytest -ra --durations=30 "$@"
