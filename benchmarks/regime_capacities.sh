#!/usr/bin/env bash
# The capacity files a regime map names (configs/klink-regimes.yaml, configs/sim-klink-regimes.yaml): one
# `klinkctl capacity ysb` search per (queries, watermark bound, delay model), written where the map's
# `capacity: PREFIX-{queries}q-{watermark_bound_ms}ms-{delay}.json` looks for it (`:` in a delay becomes `_`).
#
#   bash benchmarks/regime_capacities.sh PREFIX [OPTIONS...]
#   bash benchmarks/regime_capacities.sh results/capacity-ysb --generator-cpus 0                  # the real stack
#   bash benchmarks/regime_capacities.sh results/sim-capacity-ysb --simulate --node-cpu 0.25     # simulated
#
# QUERIES, BOUNDS_MS and DELAYS (space-separated) override the map's axes, e.g. QUERIES="4 8".
set -euo pipefail
prefix=${1:?usage: regime_capacities.sh PREFIX [capacity options...]}
shift
klinkctl=${KLINKCTL:-.venv/bin/klinkctl}
for q in ${QUERIES:-1 2 4 8 16 32}; do
  for b in ${BOUNDS_MS:-200 1000}; do
    for d in ${DELAYS:-uniform:0-400ms zipf:0.99:0-1600ms}; do
      "$klinkctl" capacity ysb --queries "$q" --window 3s --watermark-bound "${b}ms" --delay "$d" \
        --out "${prefix}-${q}q-${b}ms-${d//:/_}.json" "$@"
    done
  done
done
