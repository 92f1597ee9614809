#!/usr/bin/env bash
# One command on a fresh machine: install, bring up the local stack, run the main job, print its result.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/klinkctl up
.venv/bin/klinkctl smoke
echo "the stack is still running: .venv/bin/klinkctl status | .venv/bin/klinkctl down"
