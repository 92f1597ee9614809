#!/usr/bin/env bash
# usage: run.sh TAG [extra options...]
set -u
tag=$1; shift
cd /work/wt-winrec
for q in 2 4 8 16; do
  PYTHONPATH=$PWD nice -n 10 /work/main/.venv/bin/python -m klinkctl capacity ysb --simulate --node-cpu 0.25 \
    --precision 0.03 --max-probes 12 --queries $q --window 3s --watermark-bound 200ms --delay uniform:0-400ms \
    --results /tmp/simcap-winrec/$tag --out /tmp/simcap-winrec/$tag-${q}q.json "$@" > /tmp/simcap-winrec/$tag-${q}q.log 2>&1
  echo "$q done rc=$?"
done
