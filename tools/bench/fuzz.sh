#!/usr/bin/env bash
# The protocol fuzzing's long run (the suite runs 250,000 inputs from a fresh seed):
# N inputs (default 10^7) through the frame decoder and both state machines, from SEED
# (default: a fresh one, printed). Needs the debug build with tests.
#
#   tools/bench/fuzz.sh [N] [SEED]
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/swift-env.sh
export DUALCAM_FUZZ_ITERATIONS=${1:-10000000}
if [ -n "${2:-}" ]; then export DUALCAM_FUZZ_SEED=$2; fi
swift build --build-tests
swift test --skip-build --filter 'FuzzTests/randomAndMutatedFrames'
