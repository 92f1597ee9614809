#!/usr/bin/env bash
# Bytes and CPU per envelope: the compact EnvelopeSerializer against the PojoSerializer Flink used for Envelope
# before 2026-11-28, on a rides partial, a rides trip, a YSB event and a latency marker (serialize + deserialize,
# one thread pinned to one core, rounds interleaved; round 0 is the JIT's warm-up). docs/results.md, "The wire
# format of envelopes".
#
#   bash benchmarks/envelope_serializer.sh [CORE] [RECORDS] [ROUNDS]   (defaults: core 1, 2 000 000, 5)
set -euo pipefail
cd "$(dirname "$0")/../java-udfs"
core=${1:-1}
mvn -q -o -pl klink-metrics -am test-compile dependency:build-classpath -Dmdep.outputFile=target/benchmark.classpath \
  >/dev/null
classpath=klink-metrics/target/test-classes:klink-metrics/target/classes:$(cat klink-metrics/target/benchmark.classpath)
out=../results/envelope-serializer-$(date +%Y%m%d-%H%M%S).csv
mkdir -p ../results
taskset -c "$core" java -cp "$classpath" io.klink.metrics.EnvelopeSerializerBenchmark "${2:-2000000}" "${3:-5}" \
  | tee "$out"
echo "$out"
