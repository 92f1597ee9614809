#!/usr/bin/env bash
# One command on a fresh machine: install, bring up the local stack, run the same short YSB load under
# plain Flink (default) and under Klink, and print their side-by-side comparison.
# The stack stays up afterwards (`.venv/bin/klinkctl down` stops it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/klinkctl up
results="results/quickstart-$(date +%Y%m%d-%H%M%S)"
load=(--queries 4 --rate 20000 --duration 40s --warmup 10s --window 3s --delay const:300ms --seed 42)
for policy in default klink; do
  .venv/bin/klinkctl bench ysb "${load[@]}" --policy "$policy" --results "$results"
done
echo
echo "Default (reference) vs Klink, same load and seed: one run each, so a ratio but no verdict; a run invalid"
echo "for comparison (censored windows, generator behind its rate) is left out and named below the table:"
.venv/bin/klinkctl compare "$results"/ysb-default-* "$results"/ysb-klink-*
echo "runs in $results; the stack is still running: .venv/bin/klinkctl status | .venv/bin/klinkctl down"
