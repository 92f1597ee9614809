#!/usr/bin/env bash
# Sustainable ingestion per late state (issue 23; the paper's Figs. 3-5): `klinkctl capacity average` searches,
# interleaved state by state, REPS rounds, every search directory under OUT. Summarise them with
# benchmarks/late_state_capacity.py OUT. Needs a running local stack (the searches restart it when a probe loses
# its TaskManager). Settings: docs/late-state.md, "Sustainable ingestion per late state".
#
#   klinkctl up --tm-cpus 1
#   bash benchmarks/late_state_capacity.sh results/late-capacity 3 aion flink-rocksdb flink-forst
#
# Probes of 40 s whose first 22 s are warm-up: the windows' state grows for the allowed lateness plus a window
# (21 s), and a probe judged while it grows sees latency rise with the state, not with a backlog (measured: AION's
# first probes at 10 000 and 8 409 events/s failed on +25 % and +20 % latency growth with 99.3 % read).
# A STATE is a --late-state, or aion-scarce: AION with --destage-scarce 0.5 --destage-very-scarce 0.2.
# FIRST_ROUND=N (default 1) starts at round N (its seed is N): more rounds into the same OUT.
set -euo pipefail
out=${1:?usage: late_state_capacity.sh OUT REPS STATE...}
reps=${2:?usage: late_state_capacity.sh OUT REPS STATE...}
shift 2
states=("$@")
[ ${#states[@]} -gt 0 ] || { echo "late_state_capacity.sh: name at least one late state (e.g. aion)" >&2; exit 2; }
klinkctl=${KLINKCTL:-.venv/bin/klinkctl}
mkdir -p "$out"
for rep in $(seq "${FIRST_ROUND:-1}" "$reps"); do
  for state in "${states[@]}"; do
    case "$state" in  # aion's variants: its staleness trigger (§3.4, bound 0.05), and its global destaging (§3.2)
      aion) extra=(--late-state aion --late-trigger staleness --staleness-bound 0.05) ;;
      aion-scarce) extra=(--late-state aion --late-trigger staleness --staleness-bound 0.05 --destage-scarce 0.5
                          --destage-very-scarce 0.2) ;;
      *) extra=(--late-state "$state") ;;
    esac
    echo "== round $rep, $state"
    "$klinkctl" capacity average "${extra[@]}" --payload-bytes 2048 --window 1s \
      --delay lognormal:500ms:1 --watermark-bound 200ms --allowed-lateness 20s --warmup 22s --duration 40s \
      --generator-cpus 0 --seed "$rep" --start-rate 10000 --factor 2 --precision 0.2 --max-probes 6 \
      --warmup-runs auto --on-lost-taskmanager restart --results "$out" || echo "search ended early: $state, round $rep"
  done
done
