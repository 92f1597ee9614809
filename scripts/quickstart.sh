#!/usr/bin/env bash
# One command on a fresh machine: install, bring up the local stack, run a short YSB benchmark and print
# its latency table. The stack stays up afterwards (`.venv/bin/klinkctl down` stops it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/klinkctl up
.venv/bin/klinkctl bench ysb --queries 2 --rate 2000 --duration 40s --warmup 10s --window 3s --delay const:300ms
echo "the stack is still running: .venv/bin/klinkctl status | .venv/bin/klinkctl down"
