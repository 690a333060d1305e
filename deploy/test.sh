#!/usr/bin/env bash
# Installs what is missing, builds DualCam with its tests, and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
. deploy/swift-env.sh
echo "== building (debug, with tests)"
swift build --build-tests
echo "== testing"
swift test --skip-build
