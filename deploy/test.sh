#!/usr/bin/env bash
# Installs what is missing, builds DualCam with its tests, and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
. deploy/swift-env.sh
echo "== building (debug, with tests)"
swift build --build-tests
echo "== dbus and avahi-daemon (the discovery tests publish and browse through them)"
bash deploy/ensure-avahi.sh
echo "== unit and component tests"
swift test --skip-build --skip EndToEndTests
# End-to-end tests run real-time agents: they get the machine to themselves, so that
# frame drops they see come from the product, not from unit tests sharing the CPU.
echo "== end-to-end tests"
swift test --skip-build --filter EndToEndTests
