#!/usr/bin/env bash
# Live out over a simulated network (issue 33's slow-uplink and cut-network figures): a
# demo take (`dualcam-coordinator demo`, its two synthetic agents beside it) in the rig's
# coordinator namespace streams its programme over RTMP to an `ffmpeg -listen 1` receiver
# in the rig's host namespace, the two joined by the jitter switch (tools/netns/rig.sh,
# jitterhub -R). One fresh rig per case, one case at a time; takes at 640x360:
#
#   clean    the switch with no impairment (the reference)
#   slow     tbf on the coordinator's eth0 at a third of the stream's ceiling (1.5 Mbit/s
#            up to 360p, docs/LIVE.md): 500 kbit/s
#   slow300  the ceiling at 300 kbit/s (--stream-bitrate 300k, which the demo's pictures
#            fill; at 1.5 Mbit/s they take about 450) and tbf at a third of it, 100 kbit/s,
#            as live_out.py's throttle but on a link
#   jitter   jitterhub -d 20000 -j 5000 -l 1 -R (20 ms ± 5 ms each way, 1 % loss)
#   cut      the coordinator's eth0 down 5 s after the stream is live, up 3 s later
#   longcut  the same for 20 s (the take 25 s longer, to see the stream come back)
#
# Per case: the pictures the receiver decoded (distinct DCTC codes; a relay hands every
# connection to an `ffmpeg -listen 1` of its own, so a reconnect finds a receiver even
# while the old connection hangs) and their glass-to-receiver latency (as live_out.py's
# latency case), the manifest's liveOut for the
# destination, whether the take kept every frame, and the stream socket 10 s after live
# (`ss -tmi`: its send buffer, what it holds).
#
# usage: tools/bench/live_out_netem.sh [--seconds 20] [--only clean,slow,slow300,jitter,cut,longcut]
#                                      [--cut-side inside|switch] [--bin DIR] [--copy] [--keep]
#   --bin   the binaries to run (default /tmp/netem-bin; filled from `swift build
#           --show-bin-path` when empty, or always with --copy; never builds)
#   --cut-side inside: `ip link set eth0 down` in the coordinator's namespace (default);
#           switch: its port on the switch goes down instead (eth0 loses carrier)
#   --keep  leave the scratch folder (logs, manifests, received files)
# Needs root. Everything it creates (rigs, processes, the scratch folder) goes on exit.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RIG=$ROOT/tools/netns/rig.sh
SECONDS_TAKE=20 ONLY=clean,slow,slow300,jitter,cut,longcut CUT_SIDE=inside BIN=/tmp/netem-bin COPY=0 KEEP=0
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) SECONDS_TAKE=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --cut-side) CUT_SIDE=$2; shift 2 ;;
    --bin) BIN=$2; shift 2 ;;
    --copy) COPY=1; shift ;;
    --keep) KEEP=1; shift ;;
    *) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
"$RIG" check || exit 1
CEILING=1500 SIZE=640x360 CUT_AFTER=5 URL=rtmp://10.77.0.11:1935/live/key
if [ $COPY -eq 1 ] || [ ! -x "$BIN/dualcam-coordinator" ] || [ ! -x "$BIN/dualcam-agent" ]; then
  built=$(cd "$ROOT" && . deploy/swift-env.sh >/dev/null 2>&1; timeout 120 swift build --show-bin-path 2>/dev/null)
  mkdir -p "$BIN" && cp "${built:-$ROOT/.build/debug}"/dualcam-{coordinator,agent} "$BIN/" || exit 1
fi
WORK=$(mktemp -d /tmp/dualcam-live-netem.XXXXXX)
PREFIX="" CPID="" RPID=""
cleanup() {
  [ -n "$CPID" ] && kill -TERM "$CPID" 2>/dev/null && sleep 1 && kill -KILL "$CPID" 2>/dev/null
  [ -n "$RPID" ] && kill -TERM "$RPID" 2>/dev/null && sleep 1 && kill -KILL "$RPID" 2>/dev/null
  [ -n "$PREFIX" ] && "$RIG" down "$PREFIX" >/dev/null 2>&1
  CPID="" RPID="" PREFIX=""
}
trap 'cleanup; [ $KEEP -eq 1 ] && echo "kept $WORK" >&2 || rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

# The receiver: accepts every connection and relays it to an `ffmpeg -listen 1` of its own,
# which decodes them at once (probing 32 bytes; `-fflags nobuffer` would lose the first
# 2 s picture group), for each one's glass-to-receiver latency (its
# DCTC code against CLOCK_MONOTONIC, which every namespace shares): lat-N.txt, "wall-time
# latency-ms code" a line.
cat > "$WORK/relay.py" <<'EOF'
import os, signal, socket, subprocess, sys, threading, time
import numpy as np
root, out, host, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path.insert(0, os.path.join(root, "tools"))
import dctc_read as d
kids = []
def stop(*_):
    for k in kids:
        if k.poll() is None: k.terminate()
    for k in kids:
        try: k.wait(5)
        except subprocess.TimeoutExpired: k.kill()
    os._exit(0)
signal.signal(signal.SIGTERM, stop)
lst = socket.create_server((host, port))
log = open(os.path.join(out, "connections.log"), "a", buffering=1)
def pump(a, b, what=None):
    try:
        while (x := a.recv(65536)): b.sendall(x)
    except OSError: pass
    try: b.shutdown(socket.SHUT_WR)   # a half close: a shut for reading would reset what still comes
    except OSError: pass
    if what: log.write(f"{time.time():.3f} {what}\n")
def latency(rx, n):
    with open(os.path.join(out, f"lat-{n}.txt"), "w", buffering=1) as f:
        while len(buf := rx.stdout.read(640 * 360)) == 640 * 360:
            now = time.monotonic_ns()
            code = d.read_code(np.frombuffer(buf, dtype=np.uint8).reshape(360, 640), (0, 0, 320, 360), (640, 360))
            f.write(f"{time.time():.3f} {((now // 100_000 - code) % (1 << 32)) / 10:.1f} {code}\n")
n = 0
while True:
    c, peer = lst.accept()
    n += 1
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close()
    f = os.path.join(out, f"rx-{n}")
    rx = subprocess.Popen(["ffmpeg", "-hide_banner", "-loglevel", "error", "-probesize", "32",
                           "-analyzeduration", "0", "-listen", "1", "-i", f"rtmp://127.0.0.1:{p}/live/key", "-map", "0:v",
                           "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", "-"],
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=open(f + ".log", "w"))
    kids.append(rx)
    threading.Thread(target=latency, args=(rx, n), daemon=True).start()
    for _ in range(100):
        try: u = socket.create_connection(("127.0.0.1", p)); break
        except OSError: time.sleep(0.05)
    else: c.close(); continue
    log.write(f"{time.time():.3f} connection {n} opened\n")
    threading.Thread(target=pump, args=(c, u, f"connection {n} closed"), daemon=True).start()
    threading.Thread(target=pump, args=(u, c), daemon=True).start()
EOF
# One case's figures: its manifest, the receiver's files, times.txt (wall times of the
# "live" log line, the link down and up, the demo's end).
cat > "$WORK/summary.py" <<'EOF'
import glob, json, os, sys
name, dir, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3])
m = json.load(open(glob.glob(dir + "/out/*/manifest.json")[0]))
s, comp, cams = m["liveOut"][0], m["composite"], [c["statistics"] for c in m["cameras"]]
complete = comp["ticks"] == seconds * 30 and comp["repeats"] == 0 and all(c["framesDropped"] == 0 for c in cams)
t = {k: float(v) for k, v in (l.split() for l in open(dir + "/times.txt"))}
live_at = next((e["atSeconds"] for e in s["events"] if e["what"] == "live"), None)
clock = lambda w: f"{live_at + w - t['live']:.1f} s" if live_at is not None and "live" in t else "?"
rows = [l.split() for f in glob.glob(dir + "/rx/lat-*.txt") for l in open(f)]
lat = sorted((float(r[0]), float(r[1])) for r in rows)
received = len({r[2] for r in rows})   # distinct pictures (their codes)
ms = sorted(x for _, x in lat)
conns = [l.split() for l in open(dir + "/rx/connections.log")] if os.path.exists(dir + "/rx/connections.log") else []
kbps = s["bytes"] * 8 / s["liveSeconds"] / 1000 if s["liveSeconds"] else 0
print(f"receiver: {received} of {comp['ticks']} pictures ({len(ms)} decoded, {received} distinct)"
      + (f"; glass to receiver median {ms[len(ms)//2]/1000:.2f} s, p95 {ms[int(len(ms)*.95)]/1000:.2f} s, max {ms[-1]/1000:.2f} s;"
         f" last picture {lat[-1][0] - t['exit']:+.1f} s after the demo's end" if ms else ""))
print("receiver connections (stream clock): " + "; ".join(f"{c[2]} {c[3]} at {clock(float(c[0]))}" for c in conns))
print(f"liveOut: {s['connections']} connections, {s['reconnects']} reconnects, {s['liveSeconds']:.1f} s live, "
      f"{s['droppedFrames']} frames not sent, {s['bytes']} bytes ({kbps:.0f} kbit/s while live)")
cut = f"link down at {clock(t['down'])}, up at {clock(t['up'])}; " if "down" in t else ""
print(f"events: {cut}demo ended at {clock(t['exit'])}; " + "; ".join(f"{e['atSeconds']} s {e['what']}" for e in s["events"]))
print(f"take: composite {comp['ticks']} ticks, {comp['repeats']} repeats, cameras {[c['framesCaptured'] for c in cams]} frames, "
      f"{[c['framesDropped'] for c in cams]} dropped ({'complete' if complete else 'NOT complete'})")
with open(dir + "/../table", "a") as f:
    f.write(f"| {name} | {received}/{comp['ticks']} | {ms[len(ms)//2]/1000 if ms else 0:.2f} / {ms[-1]/1000 if ms else 0:.1f} | "
            f"{s['connections']} | {s['reconnects']} | {s['droppedFrames']} | {s['liveSeconds']:.1f} | {kbps:.0f} | "
            f"{'every frame' if complete else 'NOT complete'} |\n")
EOF

now() { date +%s.%N; }
# CPU ticks of the whole machine: "busy total".
ticks() { local a b c d e f g h; read -r _ a b c d e f g h _ < /proc/stat; echo "$((a + b + c + f + g + h)) $((a + b + c + d + e + f + g + h))"; }
busy_since() { local now; now=$(ticks); echo $(( 100 * (${now% *} - ${1% *}) / (${now#* } - ${1#* } + 1) )); }
# The machine is shared: a case starts once it has been under 25 % busy for 3 s (up to 5 min).
wait_quiet() {
  local i t b=100
  for i in $(seq 100); do t=$(ticks); sleep 3; b=$(busy_since "$t"); [ "$b" -lt 25 ] && return; done
  echo "the machine is still $b % busy: measuring anyway"
}

# run_case NAME SWITCH_OPTS TAKE_SECONDS TBF_KBIT CUT_SECONDS [DEMO OPTION…]
run_case() {
  local name=$1 opts=$2 secs=$3 tbf=$4 cut=$5 dir=$WORK/$1
  shift 5
  mkdir -p "$dir/rx"
  wait_quiet
  PREFIX=dclo-$$-$name
  echo "== $name: switch '$opts'${tbf:+, tbf $tbf kbit/s on coordinator eth0}${cut:+, link cut $cut s ($CUT_SIDE) $CUT_AFTER s after live}; $secs s take"
  DUALCAM_RIG_SWITCH_LOG=$dir/switch.log
  export DUALCAM_RIG_SWITCH_LOG
  "$RIG" up "$PREFIX" --switch "$opts" >/dev/null || { echo "rig up failed"; PREFIX=""; return 1; }
  if [ -n "$tbf" ]; then
    echo "uplink: tc -n $PREFIX-coord qdisc add dev eth0 root tbf rate ${tbf}kbit burst 32kbit latency 400ms"
    tc -n "$PREFIX-coord" qdisc add dev eth0 root tbf rate "${tbf}kbit" burst 32kbit latency 400ms || return 1
  fi
  "$RIG" exec "$PREFIX-host" python3 "$WORK/relay.py" "$ROOT" "$dir/rx" 10.77.0.11 1935 </dev/null >/dev/null 2>"$dir/relay.log" &
  RPID=$!
  sleep 1
  local cmd=(env DUALCAM_AGENT="$BIN/dualcam-agent" "$BIN/dualcam-coordinator" demo --duration "$secs" --out "$dir/out"
             --state "$dir/state" --size "$SIZE" --layout split-horizontal --stream "$URL" "$@")
  echo "command: ip netns $PREFIX-coord: ${cmd[*]}"
  "$RIG" exec "$PREFIX-coord" "${cmd[@]}" </dev/null >/dev/null 2>"$dir/coordinator.log" &
  CPID=$!
  local t0; t0=$(ticks)
  : > "$dir/times.txt"
  local waited=0 limit=$(( (secs + 120) * 10 ))
  until grep -q "stream rtmp://10.77.0.11:1935/live/\*\*\*\*: live" "$dir/coordinator.log" 2>/dev/null; do
    kill -0 "$CPID" 2>/dev/null && [ $waited -lt $limit ] || break
    sleep 0.1; waited=$((waited + 1))
  done
  echo "live $(now)" >> "$dir/times.txt"
  if [ -n "$cut" ]; then
    sleep "$CUT_AFTER"
    echo "down $(now)" >> "$dir/times.txt"
    if [ "$CUT_SIDE" = switch ]; then "$RIG" cut "$PREFIX-coord"; else ip -n "$PREFIX-coord" link set eth0 down; fi
    sleep "$cut"
    "$RIG" heal "$PREFIX-coord"
    echo "up $(now)" >> "$dir/times.txt"
  else
    sleep 10
    ip netns exec "$PREFIX-coord" ss -tnmi dst 10.77.0.11 > "$dir/ss.txt" 2>&1
  fi
  while kill -0 "$CPID" 2>/dev/null && [ $waited -lt $limit ]; do sleep 0.1; waited=$((waited + 1)); done
  kill -0 "$CPID" 2>/dev/null && echo "the demo did not end in $((secs + 120)) s: killed" && kill -TERM "$CPID"
  wait "$CPID" 2>/dev/null; local rc=$?
  local busy; busy=$(busy_since "$t0")
  echo "exit $(now)" >> "$dir/times.txt"
  CPID=""
  # What the network still holds reaches the receiver, for up to 30 s.
  for waited in $(seq 300); do pgrep -P "$RPID" ffmpeg >/dev/null || break; sleep 0.1; done
  kill -TERM "$RPID" 2>/dev/null; wait "$RPID" 2>/dev/null; RPID=""
  "$RIG" down "$PREFIX" >/dev/null; PREFIX=""
  [ $rc -eq 0 ] || { echo "demo failed (rc $rc):"; tail -20 "$dir/coordinator.log"; return 1; }
  python3 "$WORK/summary.py" "$name" "$dir" "$secs"
  echo "the machine (2 cores) was $busy % busy during the demo (this case alone, measured: 40-45 %)"
  [ -s "$dir/ss.txt" ] && echo "socket 10 s after live: $(grep -o 'skmem:([^)]*)\|notsent:[0-9]*\|unacked:[0-9]*\|rtt:[0-9./]*' "$dir/ss.txt" | tr '\n' ' ')"
  grep "^jitterhub v-" "$dir/switch.log" 2>/dev/null | cut -d'|' -f2 | sed 's/^ */switch out: /'
  grep -E "^[0-9T:+-]+ (warning|error|critical) " "$dir/coordinator.log" | grep -v "stream rtmp" | head -5 | sed 's/^/log: /'
  echo
}

{ echo "| case | pictures received | latency median / max s | connections | reconnects | frames not sent | s live | kbit/s live | take |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"; } > "$WORK/table"
for c in ${ONLY//,/ }; do
  case $c in
    clean) run_case clean "-d 0 -j 0 -R" "$SECONDS_TAKE" "" "" ;;
    slow) run_case slow "-d 0 -j 0 -R" "$SECONDS_TAKE" $((CEILING / 3)) "" ;;
    slow300) run_case slow300 "-d 0 -j 0 -R" "$SECONDS_TAKE" 100 "" --stream-bitrate 300k ;;
    jitter) run_case jitter "-d 20000 -j 5000 -l 1 -R" "$SECONDS_TAKE" "" "" ;;
    cut) run_case cut "-d 0 -j 0 -R" "$SECONDS_TAKE" "" 3 ;;
    longcut) run_case longcut "-d 0 -j 0 -R" $((SECONDS_TAKE + 25)) "" 20 ;;
    *) echo "unknown case $c" >&2 ;;
  esac
  cleanup
done
cat "$WORK/table"
