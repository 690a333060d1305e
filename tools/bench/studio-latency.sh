#!/usr/bin/env bash
# Glass-to-glass latency of the studio's previews in headless Chromium (see studio-latency.py).
#   usage: tools/bench/studio-latency.sh [-n 100] [--size 1280x720] [--method element|clip|cdp]
set -euo pipefail
cd "$(dirname "$0")/../.."
exec python3 tools/bench/studio-latency.py "$@"
