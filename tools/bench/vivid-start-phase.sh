#!/usr/bin/env bash
# A V4L2 camera's first-frame phase against the frame grid, started as it comes and
# started aligned (what the agent does at every Prepare), over N starts of vivid, the
# kernel's virtual camera, in a QEMU guest (tools/vivid-vm/run.sh).
#
#   tools/bench/vivid-start-phase.sh [--starts N] [--size WxH] [--fps F] [--smp C] [--bench PATH]
#
# Uses the newer of .build/release/dualcam-bench and .build/debug/dualcam-bench (the
# timing is the driver's and the guest's, not the binary's). The guest is emulated (TCG), so
# its timers are coarser than a real machine's: the aligned figure is an upper bound.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
STARTS=10 SIZE=320x180 FPS=30 SMP=1 BENCH=""
while [ $# -gt 0 ]; do
  case $1 in
    --starts) STARTS=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --fps) FPS=$2; shift 2 ;;
    --smp) SMP=$2; shift 2 ;;
    --bench) BENCH=$2; shift 2 ;;
    *) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
if [ -z "$BENCH" ]; then
  BENCH=$(ls -t "$HERE/.build/release/dualcam-bench" "$HERE/.build/debug/dualcam-bench" 2>/dev/null | head -1 || true)
fi
[ -n "$BENCH" ] && [ -x "$BENCH" ] || { echo "no dualcam-bench: swift build --product dualcam-bench" >&2; exit 2; }
OUT=$(mktemp -d /tmp/vivid-start-phase.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
"$HERE/tools/vivid-vm/run.sh" --out "$OUT" --timeout 600 --smp "$SMP" --file "$BENCH" -- \
  "$BENCH" start-phase --device /dev/video0 --starts "$STARTS" --size "$SIZE" --fps "$FPS"
status=$?
cat "$OUT/guest.log"
exit $status
