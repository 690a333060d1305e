#!/usr/bin/env bash
# Installs what is missing, builds DualCam (release) and records a demo session: two
# agents with synthetic cameras and a coordinator on this machine, over the real TLS
# protocol. Extra arguments go to `dualcam-coordinator demo` (e.g. --duration 30).
# --conversation: the agents' microphones play a scripted two-person interview
# (tools/conversation/interview.txt, spoken by espeak-ng, each node hearing its own voice
# loud and the other's 10 dB down) and the director cuts to whoever speaks.
set -euo pipefail
cd "$(dirname "$0")/.."
conversation=0
args=()
for arg in "$@"; do
  if [ "$arg" = --conversation ]; then conversation=1; else args+=("$arg"); fi
done
bash deploy/install-deps.sh
. deploy/swift-env.sh
echo "== building (release; the first build takes several minutes)"
swift build -c release --product dualcam-agent
swift build -c release --product dualcam-coordinator
bin=$(swift build -c release --show-bin-path)
# The demo finds its agents over mDNS when avahi-daemon runs; without it (not root, no
# service manager) it says so and uses their loopback ports.
bash deploy/ensure-avahi.sh || echo "(no avahi-daemon: the demo will reach its agents by address)"
if [ $conversation -eq 1 ]; then
  # Rendered once, on first use, and again only when the script or the generator changes.
  script=tools/conversation/interview.txt
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/dualcam/conversation
  stamp=$(cat "$script" tools/conversation/make-conversation.py | sha256sum | cut -c1-16)
  if [ "$(cat "$cache/stamp" 2>/dev/null)" != "$stamp" ]; then
    echo "== speaking the interview (espeak-ng, once)"
    rm -rf "$cache"
    python3 tools/conversation/make-conversation.py "$script" --out "$cache"
    echo "$stamp" > "$cache/stamp"
  fi
  # The whole conversation, unless a duration was asked for.
  case " ${args[*]-} " in
    *" --duration "* | *" --duration="*) ;;
    *) args+=(--duration "$(python3 -c 'import json,math,sys; print(math.ceil(json.load(open(sys.argv[1]))["durationSeconds"]))' "$cache/truth.json")") ;;
  esac
  args+=(--audio-files "$cache/host.wav,$cache/guest.wav")
  # The director (issue 31) cuts to whoever speaks; a build from before it records the
  # conversation in the fixed layout, and says so.
  if "$bin/dualcam-coordinator" demo --help 2>&1 | grep -q -- '--director'; then
    args+=(--director auto)
  else
    echo "(this build has no --director yet: the conversation is recorded in the fixed layout, without cuts)"
  fi
fi
echo "== recording"
# The session goes to the library (~/Videos/DualCam) unless DUALCAM_DEMO_OUT names a folder.
exec "$bin/dualcam-coordinator" demo ${DUALCAM_DEMO_OUT:+--out "$DUALCAM_DEMO_OUT"} ${args[@]+"${args[@]}"}
