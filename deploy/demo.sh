#!/usr/bin/env bash
# Installs what is missing, builds DualCam (release) and records a demo session: two
# agents with synthetic cameras and a coordinator on this machine, over the real TLS
# protocol. Extra arguments go to `dualcam-coordinator demo` (e.g. --duration 30).
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
. deploy/swift-env.sh
echo "== building (release; the first build takes several minutes)"
swift build -c release --product dualcam-agent
swift build -c release --product dualcam-coordinator
bin=$(swift build -c release --show-bin-path)
# The demo finds its agents over mDNS when avahi-daemon runs; without it (not root, no
# service manager) it says so and uses their loopback ports.
bash deploy/ensure-avahi.sh || echo "(no avahi-daemon: the demo will reach its agents by address)"
echo "== recording"
# The session goes to the library (~/Videos/DualCam) unless DUALCAM_DEMO_OUT names a folder.
exec "$bin/dualcam-coordinator" demo ${DUALCAM_DEMO_OUT:+--out "$DUALCAM_DEMO_OUT"} "$@"
