#!/usr/bin/env bash
# One command on a fresh machine: install, bring up the local stack with the TaskManager on a quarter of a core,
# measure the capacity of 2 YSB queries, run Default and Klink at 0.85 of it (3 interleaved repetitions each) and
# print Klink's ratio to Default with its confidence interval across runs (configs/quickstart.yaml): the cell of
# the regime map where Klink looked best on this machine, with 20 ms watermarks so that the watermark timer's phase
# does not decide the ratio (docs/scheduler.md, "Where Klink's gain in the best cell comes from").
# The stack stays up afterwards (`.venv/bin/klinkctl down` stops it); an already running stack is reused as is.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
klinkctl=.venv/bin/klinkctl
# The TaskManager on a quarter of core 1, as the regime map's slice; its JIT compilers outside that quarter, so that
# the stack reaches its steady speed within minutes (docs/capacity.md, "Why a fresh stack is slow").
$klinkctl up --tm-cpus 1 --tm-cpu-quota 0.25 --tm-jit-cpu outside-quota
cell=(--queries 2 --window 3s --watermark-bound 200ms --watermark-interval 20ms --delay uniform:0-400ms
      --generator-cpus 0)
# A short search: warm-up runs until the compilers have settled (auto), then 20 s probes (14 s judged: shorter ones
# passed an overload on a trend whose interval was too wide to exclude 0) from 40 000 events/s per
# query doubling, then bisection to 10 %.
$klinkctl capacity ysb "${cell[@]}" --duration 20s --warmup 6s --start-rate 40000 --factor 2 --precision 0.1 \
  --max-probes 7 --out results/quickstart-capacity.json
$klinkctl sweep configs/quickstart.yaml
sweep=$(ls -td results/quickstart-*/ | grep -v capacity | head -1)
echo
echo "Klink against Default (reference) at 0.85 of the measured capacity, 3 interleaved runs each; the ratio's CI"
echo "is across runs. Runs invalid for comparison (censored windows, generator behind) are left out and named:"
$klinkctl compare "$sweep"
echo "runs in $sweep; the stack is still running: $klinkctl status | $klinkctl down"
