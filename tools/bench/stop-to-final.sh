#!/usr/bin/env bash
# Stop-to-final for `dualcam-coordinator start` against two separate agent processes on
# this machine, quiet and with both cores loaded by a busy loop each (issue 36, item 11):
# prints the coordinator's own "files final X s after the stop instant" and the wall time
# from the take's planned end to the paths being printed, per round.
# Usage: tools/bench/stop-to-final.sh [ROUNDS] [SECONDS]   (release build if present)
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}; seconds=${2:-20}
bin=.build/release; [ -x $bin/dualcam-coordinator ] || bin=.build/debug
work=$(mktemp -d /tmp/dualcam-stop-XXXX)
trap 'pkill -f "name stf-" || true; kill ${load_pids:-} 2>/dev/null || true; rm -rf "$work"' EXIT
cid=$($bin/dualcam-coordinator id --state "$work/coord")
for role in host guest; do
  $bin/dualcam-agent run --source synthetic --role $role --name stf-$role --listen 127.0.0.1 --port 0 --no-mdns \
      --state "$work/$role" --trust "$cid" > "$work/$role.out" 2> "$work/$role.log" &
done
sleep 3
agents=()
for role in host guest; do
  line=$(grep -m1 LISTENING "$work/$role.out")
  port=$(sed -n 's/.*port=\([0-9]*\).*/\1/p' <<<"$line"); id=$(sed -n 's/.* id=\([A-Z0-9-]*\).*/\1/p' <<<"$line")
  agents+=(--agent "127.0.0.1:$port,$id")
done
run() {
  local label=$1 r
  for r in $(seq "$rounds"); do
    "$bin/dualcam-coordinator" start --duration "$seconds" --countdown 0 --size 1280x720 --state "$work/coord" \
        --out "$work/out" "${agents[@]}" > "$work/start.out" 2> "$work/start.err"
    final=$(sed -n 's/.*files final \([0-9.]*\) s after the stop instant.*/\1/p' "$work/start.err" | tail -1)
    checks=$(sed -n 's/.*sync checks took \([0-9.]*\) s.*/\1/p' "$work/start.err" | tail -1)
    echo "$label round $r: files final ${final:-?} s after the stop; paths said then; sync checks after them ${checks:-?} s"
  done
}
run quiet
load_pids=""
for _ in 1 2; do (while :; do :; done) & load_pids="$load_pids $!"; done
run loaded
