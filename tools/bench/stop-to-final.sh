#!/usr/bin/env bash
# Stop-to-final-files benchmark (issue: ≤ 3 s whatever the session's length).
# Records a release-build demo session (two synthetic agents and the coordinator on this
# machine, 720p30, the demo's defaults) for each duration given, and prints how long after
# the stop instant all three files and the manifest were final, as the coordinator
# measures it, with the frames captured, dropped and composed, from the manifest.
#   usage: tools/bench/stop-to-final.sh [SECONDS ...]     (default: 10 600)
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/swift-env.sh
swift build -c release --product dualcam-coordinator >/dev/null
swift build -c release --product dualcam-agent >/dev/null
bin=$(swift build -c release --show-bin-path)
out=$(mktemp -d /tmp/dualcam-stop-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT
printf '%-10s %-18s %-10s %-8s %-10s\n' duration stop-to-final captured dropped composed
for seconds in "${@:-10 600}"; do
    for s in $seconds; do
        log="$out/run-$s.log"
        "$bin/dualcam-coordinator" demo --duration "$s" --out "$out/s$s" --state "$out/state" >"$log" 2>&1
        final=$(grep -o 'files final [0-9.]* s' "$log" | awk '{print $3}')
        manifest=$(ls "$out/s$s"/*/manifest.json)
        read -r captured dropped ticks < <(python3 -c "
import json,sys; m=json.load(open(sys.argv[1]))
print(sum(c['statistics']['framesCaptured'] for c in m['cameras']), sum(c['statistics']['framesDropped'] for c in m['cameras']), m['composite']['ticks'])" "$manifest")
        printf '%-10s %-18s %-10s %-8s %-10s\n' "${s} s" "${final} s" "$captured" "$dropped" "$ticks"
        rm -rf "$out/s$s"
    done
done
