#!/usr/bin/env bash
# Sustainable rate per variant, with a CI across searches: `klinkctl capacity WORKLOAD` searches, interleaved variant by
# variant (the order rotates every round, as a sweep's repetitions do), REPS rounds, each search under OUT/<variant>/.
# Summarise them with `.venv/bin/python benchmarks/capacity_rounds.py OUT --reference VARIANT`. Needs a running stack.
#
#   bash benchmarks/capacity_rounds.sh OUT REPS WORKLOAD 'NAME=OPTIONS' ... -- COMMON OPTIONS
#   bash benchmarks/capacity_rounds.sh results/skew 3 rides 'adcom=--combiner adcom' \
#     'local-global-1s=--combiner local-global --combiner-interval 1s' -- --key-skew 1.2 --generator-cpus 0
#
# Round N's searches use --seed N. FIRST_ROUND=N (default 1) starts at round N: more rounds into the same OUT.
set -euo pipefail
usage="usage: capacity_rounds.sh OUT REPS WORKLOAD 'NAME=OPTIONS'... -- COMMON OPTIONS"
out=${1:?$usage}; reps=${2:?$usage}; workload=${3:?$usage}
shift 3
names=(); options=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    *=*) names+=("${1%%=*}"); options+=("${1#*=}") ;;
    *) echo "capacity_rounds.sh: '$1' is not NAME=OPTIONS (e.g. 'adcom=--combiner adcom')" >&2; exit 2 ;;
  esac
  shift
done
[ ${#names[@]} -gt 0 ] || { echo "capacity_rounds.sh: name at least one variant; $usage" >&2; exit 2; }
[ $# -gt 0 ] && shift  # the --
klinkctl=${KLINKCTL:-.venv/bin/klinkctl}
count=${#names[@]}
for rep in $(seq "${FIRST_ROUND:-1}" "$reps"); do
  for slot in $(seq 0 $((count - 1))); do
    i=$(( (slot + rep - 1) % count ))
    read -r -a variant_options <<< "${options[$i]}"
    echo "== round $rep, ${names[$i]} ($(date -u +%H:%M:%S))"
    mkdir -p "$out/${names[$i]}"
    "$klinkctl" capacity "$workload" "${variant_options[@]}" "$@" --seed "$rep" --results "$out/${names[$i]}" \
      || echo "search ended early: ${names[$i]}, round $rep"
  done
done
