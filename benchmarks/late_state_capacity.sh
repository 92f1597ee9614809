#!/usr/bin/env bash
# Sustainable ingestion per late state (issue 23; the paper's Figs. 3-5): `klinkctl capacity average` searches,
# interleaved state by state, REPS rounds, every search directory under OUT. Summarise them with
# benchmarks/late_state_capacity.py OUT. Needs a running local stack (the searches restart it when a probe loses
# its TaskManager). Settings: docs/late-state.md, "Sustainable ingestion per late state".
#
#   klinkctl up --tm-cpus 1
#   bash benchmarks/late_state_capacity.sh results/late-capacity 3 aion flink-rocksdb flink-forst
#
# A STATE is a --late-state, or aion-scarce: AION with --destage-scarce 0.5 --destage-very-scarce 0.2.
set -euo pipefail
out=${1:?usage: late_state_capacity.sh OUT REPS STATE...}
reps=${2:?usage: late_state_capacity.sh OUT REPS STATE...}
shift 2
states=("$@")
[ ${#states[@]} -gt 0 ] || { echo "late_state_capacity.sh: name at least one late state (e.g. aion)" >&2; exit 2; }
klinkctl=${KLINKCTL:-.venv/bin/klinkctl}
mkdir -p "$out"
for rep in $(seq 1 "$reps"); do
  for state in "${states[@]}"; do
    case "$state" in  # aion's variants: its staleness trigger (§3.4, bound 0.05), and its global destaging (§3.2)
      aion) extra=(--late-state aion --late-trigger staleness --staleness-bound 0.05) ;;
      aion-scarce) extra=(--late-state aion --late-trigger staleness --staleness-bound 0.05 --destage-scarce 0.5
                          --destage-very-scarce 0.2) ;;
      *) extra=(--late-state "$state") ;;
    esac
    echo "== round $rep, $state"
    "$klinkctl" capacity average "${extra[@]}" --payload-bytes 2048 --window 1s \
      --delay lognormal:500ms:1 --watermark-bound 200ms --allowed-lateness 20s --duration 30s \
      --generator-cpus 0 --seed "$rep" --start-rate 10000 --factor 2 --precision 0.2 --max-probes 6 \
      --warmup-runs 2 --on-lost-taskmanager restart --results "$out" || echo "search ended early: $state, round $rep"
  done
done
