#!/usr/bin/env bash
# Rigs of many cameras (issue 19): a release-build demo with N synthetic agents and the
# coordinator all on this machine, at 640x360 in the grid layout, for each N given, and a
# table of what each take kept:
#   - frames captured and dropped per camera (the manifest: the agents' own counts),
#   - the composite's ticks, fresh pairs, repeats, dropped frames and empty slots,
#   - how far apart ALL the cameras were, frame by frame, read from the per-camera files'
#     DCTC codes twice: by the coordinator (manifest `clockTruth.spread`, true instants,
#     µs) and by tools/dctc_read.py (ffmpeg + numpy, none of the project's code; the codes
#     step by 0.1 ms),
#   - the coordinator's CPU over the take (getrusage from StartAt to the last segment in,
#     manifest `coordinatorCPU`), in all and per camera, and the files' readiness after stop.
# The load average before each run is printed with it: the agents share the same cores.
#   usage: tools/bench/many-cameras.sh [CAMERAS...] [SECONDS]
#          numbers up to 8 are camera counts (the demo's range), a larger one or one
#          written with an s (5s) is the take's length; default: 4 8 for 10 s
#   environment: SIZE (640x360), LAYOUT (grid), EXTRA (more demo options, e.g. --no-sound)
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/swift-env.sh
counts=()
seconds=10
for a in "$@"; do
    case "$a" in
        *s) seconds=${a%s} ;;
        *) if [ "$a" -le 8 ]; then counts+=("$a"); else seconds=$a; fi ;;
    esac
done
[ ${#counts[@]} -gt 0 ] || counts=(4 8)
size=${SIZE:-640x360}
layout=${LAYOUT:-grid}
swift build -c release --product dualcam-coordinator >/dev/null
swift build -c release --product dualcam-agent >/dev/null
bin=$(swift build -c release --show-bin-path)
out=$(mktemp -d /tmp/dualcam-many-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT
echo "many cameras: $size, layout $layout, ${seconds} s takes, $(nproc) cores, release build ($bin)"
for n in "${counts[@]}"; do
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    log="$out/run-$n.log"
    # shellcheck disable=SC2086
    if ! "$bin/dualcam-coordinator" demo --cameras "$n" --size "$size" --layout "$layout" --duration "$seconds" \
        --out "$out/c$n" --state "$out/state" ${EXTRA:-} >"$log" 2>&1; then
        echo "== $n cameras: the demo failed (load before: $load)"; tail -20 "$log"; continue
    fi
    d=$(ls -d "$out/c$n"/2*)
    files=$(python3 -c "
import json,sys; m=json.load(open(sys.argv[1]))
print(' '.join(sys.argv[2] + '/' + c['file'] for c in m['cameras']))" "$d/manifest.json" "$d")
    # shellcheck disable=SC2086
    outside=$(python3 tools/dctc_read.py $files 2>&1 | tail -1)
    echo
    echo "== $n cameras, ${seconds} s at $size (load before: $load)"
    grep -E 'composite:|files final|coordinator CPU' "$log" | sed 's/^/   /' || true
    # The agents' presets as they chose them (`auto`) or were given, counted.
    grep -E '^  demo-.*\[(host|guest|camera)\]' "$log" | grep -oE 'preset [a-z0-9_]+( \([^)]*\))?' | sed -E 's/[0-9.]+x real time/…/' \
        | sort | uniq -c | sed 's/^ */   agents: /' || true
    python3 - "$d/manifest.json" "$n" "$seconds" "$outside" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
n, seconds, outside = int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
expected = round(seconds * 30)
print(f"   {'camera':<10} {'captured':>9} {'dropped':>8}")
for c in m['cameras']:
    s = c['statistics']
    print(f"   {s['name']:<14} {s['framesCaptured']:>5} {s['framesDropped']:>8}")
comp = m['composite']
print(f"   composite ({comp['encoding']['preset']}): {comp['ticks']} ticks of {expected}, {comp['pairs']} with every camera fresh, "
      f"{comp['repeats']} repeats, {comp['droppedFrames']} frames dropped, {comp['noSignal']} empty slots")
# The composite's `auto`: where it stepped to another preset during the take.
for step in comp['encoding'].get('switches') or []:
    print(f"   composite stepped to {step['preset']} at {step['presentationNanoseconds'] / 1e9:.1f} s: {step['reason']}")
if comp['encoding'].get('automatic') and not comp['encoding'].get('switches'):
    print(f"   composite kept {comp['encoding']['preset']} (auto, {comp['encoding'].get('speed', 0):.2f}x real time measured)")
truth = m.get('clockTruth') or {}
spread = truth.get('spread')
if spread:
    print(f"   all cameras apart (coordinator, true instants): p99 {spread['p99Microseconds']:.0f} µs, "
          f"max {spread['maxMicroseconds']:.0f} µs over {spread['frames']} instants")
print(f"   all cameras apart (tools/dctc_read.py): {outside}")
cpu = m.get('coordinatorCPU')
if cpu:
    print(f"   coordinator CPU: {cpu['cpuSeconds']:.1f} s in {cpu['seconds']:.1f} s = {cpu['cores'] * 100:.0f} % of a core, "
          f"{cpu['percentOfCorePerCamera']:.1f} % per camera")
captured = [c['statistics']['framesCaptured'] for c in m['cameras']]
dropped = sum(c['statistics']['framesDropped'] for c in m['cameras'])
ok = len(captured) == n and min(captured) == expected and dropped == 0 and comp['ticks'] == expected and comp['noSignal'] == 0
print(f"   {'PASS' if ok else 'FAIL'}  every camera {expected} frames, 0 dropped, composite whole")
EOF
    rm -rf "$out/c$n"
done
