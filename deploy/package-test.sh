#!/usr/bin/env bash
# The packages on a fresh Debian 12 system: installs the freshly built .debs into a new
# Debian 12 root (debootstrap, no Swift toolchain), boots it with systemd-nspawn and checks,
# as a rig owner would meet them:
#   - install: the dualcam user in video and audio, /etc/dualcam/agent.conf, /var/lib/dualcam
#     (0700), the service enabled and running (LISTENING in the journal, with the first
#     pairing window's code), the Pi camera unit installed but not enabled;
#   - `dualcam-agent id` (the service's identity), `dualcam-agent pair` shows a code that
#     `dualcam-coordinator pair` takes; a take from the service by `dualcam-coordinator
#     start`; a local synthetic `dualcam-agent record`; `dualcam-coordinator demo`;
#   - the service restarted after a crash (SIGKILL) and stopped cleanly (exit 0);
#   - upgrades (the same package over itself, then a newer version whose agent.conf changed):
#     identity, pairings and the edited agent.conf kept, the service restarted;
#   - remove (settings, identity and pairings kept; a reinstall has the same identity), then
#     purge (all gone).
#
#   deploy/package-test.sh [--debs DIR] [--keep]
#
# --debs DIR takes packages already built there (default: runs deploy/package.sh, whose
# output is out/packages). --keep leaves the container's root for a look afterwards.
# Needs root, debootstrap and systemd-container (deploy/install-deps.sh --package), and
# the Debian mirror (DUALCAM_DEBIAN_MIRROR, default deb.debian.org) for the first run and
# for packages not yet cached. The debootstrap root and the downloaded .debs are cached in
# /var/cache/dualcam-package-test (DUALCAM_PACKAGE_TEST_CACHE), so later runs start at once.
# The booted container has its own network namespace (loopback only): its agent's port
# and its processes never meet the machine's (the dependencies are fetched before, while
# the root still shares the machine's network).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
START=$(date +%s)

DEBS="" KEEP=0
while [ $# -gt 0 ]; do
  case $1 in
    --debs) DEBS=${2:?--debs needs a folder}; shift 2 ;;
    --keep) KEEP=1; shift ;;
    -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "package-test: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" -eq 0 ] || { echo "package-test: needs root (debootstrap, systemd-nspawn)" >&2; exit 2; }

bash deploy/install-deps.sh --package
if [ -z "$DEBS" ]; then
  bash deploy/package.sh --out out/packages
  DEBS=out/packages
fi
DEBS=$(cd "$DEBS" && pwd)
ARCH=$(dpkg --print-architecture)
AGENT_DEB=$(ls -t "$DEBS"/dualcam-agent_*_"$ARCH".deb | head -1)
COORDINATOR_DEB=$(ls -t "$DEBS"/dualcam-coordinator_*_"$ARCH".deb | head -1)
VERSION=$(dpkg-deb -f "$AGENT_DEB" Version)

step() { echo "== $(( $(date +%s) - START )) s: $*"; }
fail() { echo "package-test: FAILED: $*" >&2; exit 1; }

# --- A fresh Debian 12 root, made once and kept as a tarball -----------------------------
CACHE=${DUALCAM_PACKAGE_TEST_CACHE:-/var/cache/dualcam-package-test}
MIRROR=${DUALCAM_DEBIAN_MIRROR:-http://deb.debian.org/debian}
BASE=$CACHE/bookworm-$ARCH.tar
mkdir -p "$CACHE/archives/partial"
if [ ! -s "$BASE" ]; then
  step "making a Debian 12 root with debootstrap (once; cached in $BASE)"
  fresh=$(mktemp -d /var/tmp/dualcam-debootstrap.XXXXXX)
  # minbase and systemd: less than a stock install, so a dependency the packages forget
  # to declare is missing here rather than there by luck.
  debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus bookworm "$fresh" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 ||
    { tail -20 "$CACHE/debootstrap.log" >&2; rm -rf "$fresh"; fail "debootstrap"; }
  security=${MIRROR%/debian}/debian-security
  printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb %s bookworm-security main\n' \
    "$MIRROR" "$MIRROR" "$security" >"$fresh/etc/apt/sources.list"
  rm -f "$fresh/etc/machine-id"; : >"$fresh/etc/machine-id"
  chmod 0755 "$fresh"
  tar -C "$fresh" -cf "$BASE.part" . && mv "$BASE.part" "$BASE"
  rm -rf "$fresh"
fi

WORK=$(mktemp -d /var/tmp/dualcam-package-test.XXXXXX)
R=$WORK/root
mkdir "$R"
tar -C "$R" -xf "$BASE"
chmod 0755 "$R"      # the container's / (tar restores the mode of mktemp's 0700 folder)
NSPAWN_PID=""
cleanup() {
  if [ -n "$NSPAWN_PID" ] && kill -0 "$NSPAWN_PID" 2>/dev/null; then
    kill "$NSPAWN_PID" 2>/dev/null || true     # nspawn asks the container's systemd to halt
    for _ in $(seq 1 40); do kill -0 "$NSPAWN_PID" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$NSPAWN_PID" 2>/dev/null || true
  fi
  if [ $KEEP -eq 1 ]; then echo "package-test: the container's root is kept in $R"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# No toolchain here: nothing named swift, no Swift runtime library anywhere.
if chroot "$R" sh -c 'command -v swift' >/dev/null || [ -n "$(find "$R" -xdev -name 'libswiftCore*' -print -quit)" ]; then
  fail "the fresh root has a Swift toolchain or runtime"
fi

# --- Download what the packages need, while the root still shares the machine's network --
step "downloading dependencies into the cache (apt-get --download-only)"
cp "$AGENT_DEB" "$COORDINATOR_DEB" "$WORK/"
NSPAWN=(systemd-nspawn --quiet --keep-unit --register=no -D "$R"
        --bind="$CACHE/archives:/var/cache/apt/archives" --bind-ro="$WORK:/packages")
"${NSPAWN[@]}" --pipe sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --download-only \
    "/packages/$(basename "$1")" "/packages/$(basename "$2")"' sh "$AGENT_DEB" "$COORDINATOR_DEB" >"$WORK/download.log" 2>&1 ||
  { tail -20 "$WORK/download.log" >&2; fail "apt-get could not fetch the dependencies"; }

# --- Boot it: systemd as PID 1, loopback only ---------------------------------------------
step "booting the root (systemd-nspawn --boot --private-network)"
"${NSPAWN[@]}" --boot --private-network --console=passive >"$WORK/boot.log" 2>&1 &
NSPAWN_PID=$!
LEADER=""
# The container's PID 1 is the child of nspawn that runs systemd (nspawn forks a short-lived
# helper first).
for _ in $(seq 1 200); do
  for pid in $(pgrep -P "$NSPAWN_PID" || true); do
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = systemd ] && LEADER=$pid
  done
  [ -n "$LEADER" ] && break
  sleep 0.1
done
[ -n "$LEADER" ] || { cat "$WORK/boot.log" >&2; fail "the container did not start"; }
# Runs a command in the booted system (its namespaces, a clean environment, as root).
inside() { nsenter -t "$LEADER" -a env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb "$@"; }
# Up once basic.target is reached: in some sandboxes the container's D-Bus cannot watch
# its folders and stays "starting" (so the system never says "running"); nothing here
# needs D-Bus (systemctl as root talks to systemd directly).
state=""
for _ in $(seq 1 120); do
  state=$(inside systemctl is-active basic.target 2>/dev/null || true)
  [ "$state" = active ] && break
  sleep 0.5
done
[ "$state" = active ] || { cat "$WORK/boot.log" >&2; fail "systemd did not come up (basic.target $state)"; }
echo "   systemd is $(inside systemctl is-system-running 2>/dev/null || true)"

# waits up to $2 s for `$1` (a shell condition, in the container) to hold
wait_for() {
  local i
  for i in $(seq 1 $(( ${2:-30} * 4 ))); do
    inside sh -c "$1" >/dev/null 2>&1 && return 0
    sleep 0.25
  done
  return 1
}
listening_count() { inside journalctl -u dualcam-agent -o cat --no-pager | grep -c '^LISTENING ' || true; }
main_pid() { inside systemctl show -p MainPID --value dualcam-agent; }
agent_id() { inside dualcam-agent id; }

# --- Install -------------------------------------------------------------------------------
step "installing $(basename "$AGENT_DEB") and $(basename "$COORDINATOR_DEB") (apt-get, from the cache)"
inside sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q "/packages/$1" "/packages/$2"' sh \
  "$(basename "$AGENT_DEB")" "$(basename "$COORDINATOR_DEB")" >"$WORK/install.log" 2>&1 ||
  { tail -30 "$WORK/install.log" >&2; fail "apt-get install"; }
grep -q "Pair it:" "$WORK/install.log" || fail "the agent's postinst did not say how to pair"

groups=$(inside id -nG dualcam)
for g in video audio; do echo " $groups " | grep -q " $g " || fail "the dualcam user is not in $g ($groups)"; done
[ "$(inside stat -c '%U %a' /var/lib/dualcam)" = "dualcam 700" ] || fail "/var/lib/dualcam: $(inside stat -c '%U %a' /var/lib/dualcam)"
inside dpkg-query -W -f='${Conffiles}\n' dualcam-agent | grep -q /etc/dualcam/agent.conf || fail "agent.conf is not a conffile"
verify=$(inside systemd-analyze verify --man=no /lib/systemd/system/dualcam-agent.service \
           /lib/systemd/system/dualcam-agent-picamera.service 2>&1 || true)
[ -z "$verify" ] || fail "systemd-analyze verify: $verify"
[ "$(inside systemctl is-enabled dualcam-agent)" = enabled ] || fail "dualcam-agent.service is not enabled"
[ "$(inside systemctl is-enabled dualcam-agent-picamera 2>/dev/null || true)" = disabled ] || fail "the Pi camera unit is enabled"
wait_for 'journalctl -u dualcam-agent -o cat | grep -q "^LISTENING "' 30 ||
  { inside journalctl -u dualcam-agent --no-pager | tail -30 >&2; fail "the service never said LISTENING"; }
# From the process's start to LISTENING, both on the container's monotonic clock.
started=$(inside systemctl show -p ExecMainStartTimestampMonotonic --value dualcam-agent)
listened=$(inside journalctl -u dualcam-agent -o json --no-pager | grep '"MESSAGE":"LISTENING ' | head -1 |
  sed 's/.*"__MONOTONIC_TIMESTAMP":"\([0-9]*\)".*/\1/')
START_MS=$(( (listened - started) / 1000 ))
echo "   the service said LISTENING $START_MS ms after it was started"
inside journalctl -u dualcam-agent -o cat --no-pager | grep -q "pairing window open for .* with code [0-9]" ||
  fail "no pairing code in the journal"
ID=$(agent_id)
inside journalctl -u dualcam-agent -o cat --no-pager | grep -q "^LISTENING .*id=$ID" || fail "dualcam-agent id ($ID) is not the service's identity"
echo "   agent $ID"

# --- Pair, record from the service, record locally, demo -------------------------------------
step "pairing: dualcam-agent pair shows a code, dualcam-coordinator pair types it"
inside sh -c 'dualcam-agent pair --seconds 60 >/root/pair.out 2>&1 & echo $! >/root/pair.pid'
wait_for 'grep -q "^Code: " /root/pair.out' 20 || { inside cat /root/pair.out >&2; fail "dualcam-agent pair showed no code"; }
CODE=$(inside sed -n 's/^Code: \([0-9 ]*[0-9]\).*/\1/p' /root/pair.out)
echo "   code $CODE"
echo "$CODE" | inside dualcam-coordinator pair --agent 127.0.0.1:7420 --name package-test >"$WORK/pair.log" 2>&1 ||
  { cat "$WORK/pair.log" >&2; fail "dualcam-coordinator pair"; }
wait_for 'grep -q "^Paired with coordinator" /root/pair.out' 10 || { inside cat /root/pair.out >&2; fail "the agent did not report the pairing"; }
inside dualcam-agent paired | grep -q package-test || fail "dualcam-agent paired does not list the coordinator"

step "a take from the service (dualcam-coordinator start, 4 s)"
inside dualcam-coordinator start --agent 127.0.0.1:7420 --duration 4 --countdown 0 --size 640x360 --out /root/takes \
  >"$WORK/start.log" 2>&1 || { tail -30 "$WORK/start.log" >&2; fail "dualcam-coordinator start"; }
take=$(ls -d "$R"/root/takes/2* | head -1)
ls "$take"/DualCam_Host_*.mp4 "$take"/DualCam_Combined_*.mp4 >/dev/null || fail "the take's files are missing: $(ls "$take")"
[ -n "$(inside find /var/lib/dualcam/spool -name '*.ts' -user dualcam -print -quit)" ] || fail "no segment in the service's spool"

step "dualcam-agent record (synthetic, 3 s) and dualcam-coordinator demo (5 s)"
inside dualcam-agent record --source synthetic --duration 3 --size 640x360 --out /root/record >"$WORK/record.log" 2>&1 ||
  { tail -20 "$WORK/record.log" >&2; fail "dualcam-agent record"; }
recorded=$(ls "$R"/root/record/*.mp4 | head -1)
if command -v ffprobe >/dev/null; then
  frames=$(ffprobe -v error -select_streams v:0 -count_packets -show_entries stream=nb_read_packets -of csv=p=0 "$recorded")
  [ "$frames" -ge 80 ] || fail "the local recording holds $frames frames"
  echo "   record: $frames frames"
fi
inside dualcam-coordinator demo --duration 5 --size 640x360 --out /root/demo >"$WORK/demo.log" 2>&1 ||
  { tail -30 "$WORK/demo.log" >&2; fail "dualcam-coordinator demo"; }
demo=$(ls -d "$R"/root/demo/2* | head -1)
for kind in Host Guest Combined; do
  ls "$demo"/DualCam_${kind}_*.mp4 >/dev/null 2>&1 || fail "the demo made no $kind file: $(ls "$demo")"
done

# --- The service under systemd: crash, restart, clean stop ---------------------------------
step "the service restarts after a crash and stops cleanly"
before=$(main_pid) heard=$(listening_count)
inside systemctl kill -s SIGKILL dualcam-agent
wait_for "[ \$(journalctl -u dualcam-agent -o cat | grep -c '^LISTENING ') -gt $heard ]" 20 ||
  fail "the service did not come back after SIGKILL"
after=$(main_pid)
[ "$after" != "$before" ] && [ "$(inside systemctl show -p NRestarts --value dualcam-agent)" -ge 1 ] ||
  fail "no restart seen (PID $before → $after)"
t0=$(date +%s%N)
inside systemctl stop dualcam-agent
STOP_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$(inside systemctl show -p Result --value dualcam-agent)" = success ] &&
[ "$(inside systemctl show -p ExecMainStatus --value dualcam-agent)" = 0 ] ||
  fail "unclean stop: $(inside systemctl show -p Result,ExecMainCode,ExecMainStatus dualcam-agent | tr '\n' ' ')"
echo "   restarted after SIGKILL (PID $before → $after); stopped cleanly in $STOP_MS ms (exit 0)"
inside systemctl start dualcam-agent

# --- Upgrades keep identity, pairings and the edited conffile -----------------------------
step "upgrades: over itself, then to a newer version with a changed agent.conf"
inside sed -i 's/^#name = .*/name = Edited by package-test/' /etc/dualcam/agent.conf
inside grep -q '^name = Edited by package-test' /etc/dualcam/agent.conf || fail "could not edit agent.conf"
newer=$WORK/newer
dpkg-deb -R "$AGENT_DEB" "$newer"
sed -i "s/^Version: .*/Version: $VERSION+packagetest1/" "$newer/DEBIAN/control"
echo "# a line the newer package adds" >>"$newer/etc/dualcam/agent.conf"
(cd "$newer" && find . -type f ! -path './DEBIAN/*' -printf '%P\n' | LC_ALL=C sort | xargs -d '\n' md5sum) >"$newer/DEBIAN/md5sums"
dpkg-deb --root-owner-group -Zxz --build "$newer" "$WORK/dualcam-agent_newer.deb" >/dev/null
check_kept() {
  [ "$(agent_id)" = "$ID" ] || fail "$1: the identity changed"
  inside dualcam-agent paired | grep -q package-test || fail "$1: the pairing is gone"
  inside grep -q '^name = Edited by package-test' /etc/dualcam/agent.conf || fail "$1: the edit of agent.conf is gone"
  [ "$(inside systemctl is-active dualcam-agent)" = active ] || fail "$1: the service is not running"
}
for deb in "$(basename "$AGENT_DEB")" dualcam-agent_newer.deb; do
  before=$(main_pid) heard=$(listening_count)
  inside env DEBIAN_FRONTEND=noninteractive dpkg --force-confdef --force-confold -i "/packages/$deb" >"$WORK/upgrade.log" 2>&1 ||
    { cat "$WORK/upgrade.log" >&2; fail "dpkg -i $deb"; }
  wait_for "[ \$(journalctl -u dualcam-agent -o cat | grep -c '^LISTENING ') -gt $heard ]" 20 || fail "$deb: the service did not restart"
  [ "$(main_pid)" != "$before" ] || fail "$deb: the service was not restarted"
  check_kept "$deb"
  echo "   $deb: identity, pairing and the edited agent.conf kept; service restarted"
done
[ "$(inside dpkg-query -W -f='${Version}' dualcam-agent)" = "$VERSION+packagetest1" ] || fail "the newer version is not installed"
inside test -f /etc/dualcam/agent.conf.dpkg-dist || fail "the newer package's agent.conf was not set beside the edited one"

# --- Remove, reinstall, purge ---------------------------------------------------------------
step "remove keeps settings, identity and pairings; purge deletes them"
inside env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q dualcam-agent >"$WORK/remove.log" 2>&1 || { cat "$WORK/remove.log" >&2; fail "remove"; }
inside test ! -e /usr/bin/dualcam-agent || fail "remove left the program"
[ "$(inside systemctl is-active dualcam-agent 2>/dev/null || true)" != active ] || fail "the service still runs after remove"
inside test -f /var/lib/dualcam/identity.crt || fail "remove deleted the identity"
inside test -f /etc/dualcam/agent.conf || fail "remove deleted agent.conf"
inside env DEBIAN_FRONTEND=noninteractive dpkg --force-confdef --force-confold -i /packages/dualcam-agent_newer.deb >"$WORK/reinstall.log" 2>&1 ||
  { cat "$WORK/reinstall.log" >&2; fail "reinstall"; }
check_kept "reinstall after remove"
inside env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q dualcam-agent dualcam-coordinator >"$WORK/purge.log" 2>&1 || { cat "$WORK/purge.log" >&2; fail "purge"; }
for gone in /var/lib/dualcam /etc/dualcam /usr/bin/dualcam-agent /usr/bin/dualcam-coordinator \
            /etc/systemd/system/multi-user.target.wants/dualcam-agent.service /lib/systemd/system/dualcam-agent.service; do
  inside test ! -e "$gone" || fail "purge left $gone"
done
[ "$(inside systemctl is-active dualcam-agent 2>/dev/null || true)" != active ] || fail "the service still runs after purge"

step "passed"
echo "package-test: PASSED in $(( $(date +%s) - START )) s ($VERSION, $ARCH; agent start to LISTENING $START_MS ms, clean stop $STOP_MS ms)"
