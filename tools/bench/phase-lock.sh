#!/usr/bin/env bash
# Free-running cameras with and without the phase lock (issue 34, item 3), read from the
# outside: two demo takes of two free-running synthetic cameras (crystals +120 and -80
# ppm, the issue's worst-case phases 24.683 and 8.65 ms after the grid) in
# split-horizontal at 640x360; the first with the lock (the default) and a 300 µs step of
# the guest's clock estimate half-way, the second with --no-phase-lock. For each, every
# combined frame's two halves are read with tools/dctc_read.py (ffmpeg + numpy, none of
# DualCam's code) and their capture instants compared.
#
#   tools/bench/phase-lock.sh [-d SECONDS]     (default 60; needs a built tree, python3-numpy)
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=60
while getopts d: o; do case $o in d) seconds=$OPTARG ;; *) exit 64 ;; esac; done
bin=$(swift build --show-bin-path 2>/dev/null || echo .build/debug)
out=$(mktemp -d /tmp/dualcam-phase-lock.XXXXXX)
trap 'rm -rf "$out"' EXIT

take() {  # NAME ARGS...: records a take into $out/NAME and prints its combined file
    local name=$1; shift
    DUALCAM_AGENT="$bin/dualcam-agent" "$bin/dualcam-coordinator" demo --duration "$seconds" --out "$out/$name" \
        --state "$out/state" --size 640x360 --layout split-horizontal --no-sound --free-run \
        --free-run-phases-ms 24.683,8.65 "$@" > "$out/$name.log" 2>&1 || { tail -20 "$out/$name.log"; exit 1; }
    ls "$out/$name"/*/DualCam_Combined_*.mp4
}

report() {  # NAME COMBINED
    python3 - "$1" "$2" <<'PY'
import glob, json, os, sys
sys.path.insert(0, "tools")
import dctc_read as d
name, combined = sys.argv[1], sys.argv[2]
apart = []
for y in d.frames(combined):
    a = d.read_code(y, (0, 0, 320, 360), (640, 360))
    b = d.read_code(y, (320, 0, 320, 360), (640, 360))
    apart.append(abs(d.signed_diff(a, b)) / 10)          # ms (codes are 0.1 ms)
settled = sorted(apart[90:]) or [0]
m = json.load(open(os.path.join(os.path.dirname(combined), "manifest.json")))
cams = m["cameras"]
dropped = [c["statistics"]["framesDropped"] for c in cams]
comp = m["composite"]
pair = m.get("framePhase", {}).get("pairs", [{}])[0]
print(f"{name}: {len(apart)} frames; halves apart from 3 s on: max {settled[-1]:.1f} ms, "
      f"p99 {settled[int(len(settled) * .99) - 1 if len(settled) > 1 else 0]:.1f} ms, median {settled[len(settled) // 2]:.1f} ms "
      f"(first second: max {max(apart[:30]):.1f} ms); cameras dropped {dropped}, composite repeats {comp['repeats']}; "
      f"manifest framePhase median {pair.get('medianMs')} p95 {pair.get('p95Ms')} max {pair.get('maxMs')} ms; "
      f"clock bound ±{max(c['statistics']['clockErrorBoundNanoseconds'] for c in cams) / 1000:.0f} µs")
PY
}

echo "== $seconds s, phase lock on, the guest's clock estimate steps 300 µs half-way"
locked=$(take locked --guest-estimate-step-us 300 --guest-estimate-step-at-s $(( seconds / 2 + 8 )))
report "locked" "$locked"
echo "== $seconds s, --no-phase-lock"
free=$(take free --no-phase-lock)
report "unlocked" "$free"
