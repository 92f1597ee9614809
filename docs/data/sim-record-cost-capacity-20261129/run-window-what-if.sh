#!/usr/bin/env bash
# what-if: the window's measured cost per record at 2 queries x 80-160k (about 210 ns, 0.33 of the default 640)
cd /work/wt-records
PYTHONPATH=$PWD /tmp/lowprio /work/main/.venv/bin/python -m klinkctl capacity ysb --simulate --node-cpu 0.25 \
  --precision 0.03 --max-probes 12 --queries 2 --window 3s --watermark-bound 200ms --delay uniform:0-400ms \
  --results /tmp/simcap/win --out /tmp/simcap/win-2q.json --source-record-cost-ns 728 --window-cost-scale 0.33 \
  > /tmp/simcap/win-2q.log 2>&1
echo "win done rc=$?"
