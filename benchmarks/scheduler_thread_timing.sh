#!/usr/bin/env bash
# Does the agent's scheduler thread start its cycles on time? Klink runs on an overloaded quarter-core TaskManager,
# its scheduler thread at nice -20 (what klinkctl sets, klinkctl.stack.scheduler_thread) against nice 0 (as it
# ran before: a loop puts it back every 200 ms during the run), interleaved, 5 repetitions each.
# Table: .venv/bin/python benchmarks/scheduler_thread_timing.py DIR (docs/scheduler.md, "The scheduler thread on time").
#
#   klinkctl up --tm-cpus 1 --tm-cpu-quota 0.25 && (6 warm-up bench runs: a fresh capped stack is slow)
#   bash benchmarks/scheduler_thread_timing.sh pause|priority [only-nice20]
set -euo pipefail
cd "$(dirname "$0")/.."
enforce=${1:?pause or priority}
out=results/scheduler-thread-$enforce-$(date +%Y%m%d-%H%M%S)
taskmanager=$(.venv/bin/klinkctl status --format json | .venv/bin/python -c \
  'import json,sys; print(next(c["pid"] for c in json.load(sys.stdin)["components"] if c["name"].startswith("taskmanager")))')
thread=$(grep -lx klink-scheduler /proc/"$taskmanager"/task/*/comm | head -1 | cut -d/ -f5)
run() {  # $1: nice0 or nice20
  local hold=""
  if [ "$1" = nice0 ]; then
    (while true; do renice -n 0 -p "$thread" >/dev/null 2>&1; sleep 0.2; done) & hold=$!
  fi
  .venv/bin/klinkctl bench ysb --policy klink --enforce "$enforce" --queries 8 --rate 4500 --window 3s \
    --watermark-bound 200ms --delay uniform:0-400ms --duration 20s --warmup 6s --generator-cpus 0 \
    --results "$out/$1" | grep -E "throughput|scheduler:" || true
  if [ -n "$hold" ]; then kill "$hold"; fi
}
for repetition in 1 2 3 4 5; do
  if [ "${2:-}" = only-nice20 ]; then run nice20; continue; fi
  if [ $((repetition % 2)) = 1 ]; then run nice0; run nice20; else run nice20; run nice0; fi
done
echo "$out"
