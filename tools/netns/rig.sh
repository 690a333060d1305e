#!/usr/bin/env bash
# A network of three "hosts" on one machine, for end-to-end tests that must cross a real
# network: coordinator, host agent and guest agent, each in its own network namespace,
# joined by veth pairs to a bridge that lives in a fourth namespace. Every host has its own
# system D-Bus and avahi-daemon (own host-name, announcing on its one interface only), in a
# private mount namespace whose /run/dbus and /run/avahi-daemon are tmpfs, so mDNS crosses
# the bridge exactly as between machines, and nothing touches the machine's own daemons.
#
#   rig.sh up [PREFIX] [--switch "OPTS"] [--path ROLE=D,J,L,P,S …]
#                               builds a rig; prints PREFIX (default: a fresh unique one).
#                               --switch joins the hosts through the jitter switch
#                               (jitterhub.c, built here with cc) instead of a bridge:
#                               OPTS are its options, e.g. "-d 1000 -j 500 -l 5 -p 2
#                               -s 20000 -R" (delay and jitter in µs, loss and spike %);
#                               --path gives the frames sent *to* one host their own law
#                               (delay µs, jitter µs, loss %, spike %, spike µs); a path
#                               alone implies the switch with no impairment elsewhere
#   rig.sh exec NS CMD [ARG…]   runs CMD inside host NS (PREFIX-coord, PREFIX-host,
#                               PREFIX-guest): its network and its mount namespace, so
#                               D-Bus/Avahi clients reach that host's own daemons. CMD
#                               replaces this script (no extra process in between).
#   rig.sh addr NS              prints the host's IPv4 address
#   rig.sh cut NS [--inside]    pulls the host's cable: its port on the bridge goes down
#                               (--inside: the host's own interface goes down instead)
#   rig.sh heal NS              plugs it back (both ends up)
#   rig.sh down PREFIX          ends what the rig started (by PID, after checking each
#                               still lives in the rig's namespaces) and deletes the
#                               namespaces; safe to run twice, or on a half-built rig
#   rig.sh list                 prints the PREFIX of every rig whose state is still here
#                               (one left by a test that was killed: rig.sh down it)
#   rig.sh check                exits 0 when this machine can run a rig (root, ip netns,
#                               nsenter, unshare, dbus-daemon, avahi-daemon), else says why
#
# The switch's counters (frames delayed, dropped, spiked, how late it sent): `down` copies
# them to the file $DUALCAM_RIG_SWITCH_LOG names, when set.
# Addresses: 10.77.0.10 coordinator, .11 host, .12 guest (each rig is isolated in its own
# namespaces, so parallel rigs reuse them without clashing). Needs root and util-linux.
# State (PIDs, avahi configs, the holders' logs) is in $STATE_ROOT/PREFIX; on the machine
# itself the rig creates nothing but that and, if missing, the empty folders /run/dbus and
# /run/avahi-daemon that its private tmpfs mounts need as mount points.
set -uo pipefail

HOSTS=(coord host guest)
declare -A OCTET=([coord]=10 [host]=11 [guest]=12)
NET=10.77.0
STATE_ROOT=${DUALCAM_RIG_STATE:-/run/dualcam-netns}

die() { echo "rig: $*" >&2; exit 1; }

check() {
  [ "$(id -u)" -eq 0 ] || { echo "rig: needs root (network and mount namespaces)" >&2; return 1; }
  local tool
  for tool in ip nsenter unshare dbus-daemon avahi-daemon mount; do
    command -v "$tool" >/dev/null || { echo "rig: $tool is not installed" >&2; return 1; }
  done
  ip netns list >/dev/null 2>&1 || { echo "rig: \`ip netns\` does not work here" >&2; return 1; }
  unshare -n -m true 2>/dev/null || { echo "rig: cannot create namespaces here (unshare -n -m failed)" >&2; return 1; }
}

# NS is PREFIX-ROLE; sets PREFIX and ROLE.
split_ns() {
  PREFIX=${1%-*}
  ROLE=${1##*-}
  [ -n "$PREFIX" ] && [ "$PREFIX" != "$1" ] && [ -n "${OCTET[$ROLE]:-}" ] || die "$1 is not PREFIX-coord, PREFIX-host or PREFIX-guest"
}

# Closes every descriptor above 2 in this (sub)shell.
close_inherited() {
  local fd
  for fd in /proc/$BASHPID/fd/*; do
    fd=${fd##*/}
    [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-"
  done
  return 0
}

ns_exists() { [ -e "/run/netns/$1" ]; }

# The PID of a process still alive and still inside network namespace $2, or nothing:
# a recorded PID that was reused by someone else's process is never touched.
live_in_ns() {
  local pid=$1 ns=$2
  [ -n "$pid" ] && [ -d "/proc/$pid" ] || return 1
  [ "$(ip netns identify "$pid" 2>/dev/null)" = "$ns" ]
}

holder_pid() {
  local pid
  pid=$(cat "$STATE_ROOT/$PREFIX/$ROLE.holder" 2>/dev/null) || return 1
  live_in_ns "$pid" "$PREFIX-$ROLE" && echo "$pid"
}

avahi_config() {
  cat <<EOF
[server]
host-name=$1
domain-name=local
use-ipv4=yes
use-ipv6=yes
allow-interfaces=eth0
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
[reflector]
enable-reflector=no
EOF
}

# Builds the jitter switch once per source version, into the state root.
switch_binary() {
  local src here sum bin
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  src=$here/jitterhub.c
  sum=$(sha256sum "$src" | cut -c1-12)
  bin=$STATE_ROOT/jitterhub-$sum
  if [ ! -x "$bin" ]; then
    mkdir -p "$STATE_ROOT" && ${CC:-cc} -O2 -Wall -o "$bin.tmp" "$src" -lm && mv "$bin.tmp" "$bin" \
      || { echo "rig: cannot build the jitter switch ($src): is a C compiler (gcc) installed?" >&2; return 1; }
  fi
  echo "$bin"
}

up() {
  check || exit 1
  local switch_opts="" use_switch=0 paths=() arg
  declare -A law=()
  PREFIX=""
  while [ $# -gt 0 ]; do
    arg=$1; shift
    case "$arg" in
      --switch) [ $# -gt 0 ] || die "--switch needs its options (e.g. \"-d 1000 -j 500\")"; switch_opts=$1; use_switch=1; shift ;;
      --path)
        [ $# -gt 0 ] || die "--path needs ROLE=DELAY_US,JITTER_US,LOSS_PCT,SPIKE_PCT,SPIKE_US"
        [[ $1 =~ ^(coord|host|guest)=[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+$ ]] \
          || die "--path $1: expected ROLE=DELAY_US,JITTER_US,LOSS_PCT,SPIKE_PCT,SPIKE_US with ROLE coord, host or guest"
        law[${1%%=*}]=${1#*=}; use_switch=1; shift ;;
      -*) die "up: unknown option $arg" ;;
      *) [ -z "$PREFIX" ] || die "up: one PREFIX only"; PREFIX=$arg ;;
    esac
  done
  [ $use_switch -eq 1 ] && [ -z "$switch_opts" ] && switch_opts="-d 0 -j 0 -R"
  local hub=""
  if [ $use_switch -eq 1 ]; then hub=$(switch_binary) || exit 1; fi
  PREFIX=${PREFIX:-dcmh-$(head -c4 /dev/urandom | od -An -tx1 | tr -d ' \n')}
  case "$PREFIX" in *[!a-z0-9-]* | -* | *-) die "PREFIX may hold a-z, 0-9 and inner dashes only";; esac
  [ ${#PREFIX} -le 40 ] || die "PREFIX is longer than 40 characters"
  local dir=$STATE_ROOT/$PREFIX
  for ns in "$PREFIX-br" "${HOSTS[@]/#/$PREFIX-}"; do ns_exists "$ns" && die "namespace $ns exists already (rig.sh down $PREFIX)"; done
  [ -e "$dir" ] && die "$dir exists already (rig.sh down $PREFIX)"
  mkdir -p "$dir" || die "cannot create $dir"
  # From here on a failure leaves a half-built rig: take it down before giving up.
  trap 'echo "rig: building $PREFIX failed; taking it down" >&2; down "$PREFIX" >/dev/null; exit 1' ERR
  set -E

  ip netns add "$PREFIX-br"
  ip -n "$PREFIX-br" link set lo up
  if [ $use_switch -eq 0 ]; then
    ip -n "$PREFIX-br" link add br0 type bridge mcast_snooping 0 stp_state 0 forward_delay 0
    ip -n "$PREFIX-br" link set br0 up
  fi
  for ROLE in "${HOSTS[@]}"; do
    local ns=$PREFIX-$ROLE
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    # Both ends are created inside the rig's namespaces: no interface in the machine's own.
    ip -n "$PREFIX-br" link add "v-$ROLE" type veth peer name eth0 netns "$ns"
    if [ $use_switch -eq 0 ]; then
      ip -n "$PREFIX-br" link set "v-$ROLE" master br0 up
    else
      ip -n "$PREFIX-br" link set "v-$ROLE" up
      paths+=("v-$ROLE${law[$ROLE]:+=${law[$ROLE]}}")
    fi
    ip -n "$ns" addr add "$NET.${OCTET[$ROLE]}/24" dev eth0
    ip -n "$ns" link set eth0 multicast on up
    avahi_config "$ns" > "$dir/$ROLE-avahi.conf"
    # The holder: a process that keeps this host's mount namespace (private /run/dbus and
    # /run/avahi-daemon) alive, for `exec` to enter; it starts the host's daemons first.
    # `ip netns exec` and `unshare` exec without forking, so $$ below is the holder. It
    # and the daemons get no descriptor of ours beyond 0-2: whoever started this script
    # may watch one for its end (Foundation's Process does, through a socket it hands
    # down), and a daemon holding it would make `up` look as if it never finished.
    ( close_inherited; exec setsid ip netns exec "$ns" unshare -m --propagation private sh -c '
      dir=$1; role=$2
      echo $$ > "$dir/$role.holder"
      # Mount points: empty folders, the same the machine daemons would create.
      mkdir -p /run/dbus /run/avahi-daemon || exit 1
      mount -t tmpfs -o mode=0755 tmpfs /run/dbus || exit 1
      mount -t tmpfs -o mode=0755 tmpfs /run/avahi-daemon || exit 1
      dbus-daemon --system --fork --print-pid > "$dir/$role.dbus" || exit 1
      avahi-daemon -f "$dir/$role-avahi.conf" --daemonize --no-chroot --no-drop-root --no-rlimits || exit 1
      cp /run/avahi-daemon/pid "$dir/$role.avahi" 2>/dev/null
      echo ready > "$dir/$role.ready"
      exec sleep infinity
    ' rig-holder "$dir" "$ROLE" < /dev/null >> "$dir/$ROLE.log" 2>&1 ) &
  done
  if [ $use_switch -eq 1 ]; then
    # shellcheck disable=SC2086 # the switch's options are words
    ( close_inherited; exec setsid ip netns exec "$PREFIX-br" "$hub" $switch_opts "${paths[@]}" \
        < /dev/null >> "$dir/switch.log" 2>&1 ) &
    echo $! > "$dir/switch.pid"
  fi
  set +E
  trap - ERR

  local waited
  for ROLE in "${HOSTS[@]}"; do
    for waited in $(seq 100); do
      [ -e "$dir/$ROLE.ready" ] && break
      [ -e "$dir/$ROLE.holder" ] && [ ! -d "/proc/$(cat "$dir/$ROLE.holder")" ] && break
      sleep 0.1
    done
    if [ ! -e "$dir/$ROLE.ready" ]; then
      echo "rig: the daemons of $PREFIX-$ROLE did not start:" >&2; cat "$dir/$ROLE.log" >&2
      down "$PREFIX" >/dev/null; exit 1
    fi
    local pid
    pid=$(holder_pid) || { echo "rig: the holder of $PREFIX-$ROLE is gone" >&2; down "$PREFIX" >/dev/null; exit 1; }
    for waited in $(seq 100); do nsenter -t "$pid" -m -n avahi-daemon --check 2>/dev/null && break; sleep 0.1; done
    nsenter -t "$pid" -m -n avahi-daemon --check 2>/dev/null \
      || { echo "rig: avahi-daemon of $PREFIX-$ROLE is not running:" >&2; cat "$dir/$ROLE.log" >&2; down "$PREFIX" >/dev/null; exit 1; }
  done
  # Multicast across the bridge: the coordinator resolves both agents' host names through
  # its own avahi-daemon (a probe, so retried while the daemons finish announcing).
  ROLE=coord
  local coord
  coord=$(holder_pid)
  if command -v avahi-resolve >/dev/null; then
    for peer in host guest; do
      local got=""
      for waited in $(seq 20); do
        got=$(nsenter -t "$coord" -m -n timeout 3 avahi-resolve -4 -n "$PREFIX-$peer.local" 2>/dev/null | awk '{print $2}')
        [ "$got" = "$NET.${OCTET[$peer]}" ] && break
        sleep 0.5
      done
      [ "$got" = "$NET.${OCTET[$peer]}" ] \
        || { echo "rig: mDNS does not cross the bridge: $PREFIX-coord resolved $PREFIX-$peer.local to '${got}'" >&2; down "$PREFIX" >/dev/null; exit 1; }
    done
  fi
  echo "$PREFIX"
}

run_in() {
  split_ns "$1"; shift
  [ $# -gt 0 ] || die "exec: no command"
  local pid
  pid=$(holder_pid) || die "no running rig host $PREFIX-$ROLE"
  # Clients must find this host's bus at the default path, not one given for the machine's.
  unset DBUS_SYSTEM_BUS_ADDRESS
  exec nsenter -t "$pid" -m -n --wd="$PWD" -- "$@"
}

link() {
  local state=$1 ns=$2 where=${3:-}
  split_ns "$ns"
  ns_exists "$PREFIX-br" || die "no rig $PREFIX"
  if [ "$state" = down ]; then
    case "$where" in
      "") ip -n "$PREFIX-br" link set "v-$ROLE" down ;;
      --inside) ip -n "$ns" link set eth0 down ;;
      *) die "cut: unknown option $where" ;;
    esac
  else
    ip -n "$PREFIX-br" link set "v-$ROLE" up && ip -n "$ns" link set eth0 up
  fi
}

down() {
  PREFIX=${1:?down PREFIX}
  case "$PREFIX" in *[!a-z0-9-]* | -* | *-) die "PREFIX may hold a-z, 0-9 and inner dashes only";; esac
  local dir=$STATE_ROOT/$PREFIX ns pid pids=() role
  # The switch first: SIGTERM makes it print its counters into switch.log.
  pid=$(cat "$dir/switch.pid" 2>/dev/null)
  if live_in_ns "$pid" "$PREFIX-br"; then
    kill -TERM "$pid" 2>/dev/null
    local waited
    for waited in $(seq 20); do live_in_ns "$pid" "$PREFIX-br" || break; sleep 0.1; done
    live_in_ns "$pid" "$PREFIX-br" && kill -KILL "$pid" 2>/dev/null
    [ -n "${DUALCAM_RIG_SWITCH_LOG:-}" ] && cp "$dir/switch.log" "$DUALCAM_RIG_SWITCH_LOG" 2>/dev/null
  fi
  for role in "${HOSTS[@]}"; do
    ns=$PREFIX-$role
    # What the rig started (holder, daemons), then whatever `exec` ran there: every
    # process in a rig's namespace got there through this script.
    for pid in $(cat "$dir/$role.holder" "$dir/$role.dbus" "$dir/$role.avahi" 2>/dev/null) \
               $(ns_exists "$ns" && ip netns pids "$ns" 2>/dev/null); do
      live_in_ns "$pid" "$ns" && pids+=("$pid:$ns")
    done
  done
  local entry
  for entry in "${pids[@]}"; do live_in_ns "${entry%%:*}" "${entry#*:}" && kill -TERM "${entry%%:*}" 2>/dev/null; done
  local waited
  for waited in $(seq 30); do
    local alive=0
    for entry in "${pids[@]}"; do live_in_ns "${entry%%:*}" "${entry#*:}" && alive=1; done
    [ $alive -eq 0 ] && break
    sleep 0.1
  done
  for entry in "${pids[@]}"; do live_in_ns "${entry%%:*}" "${entry#*:}" && kill -KILL "${entry%%:*}" 2>/dev/null; done
  for ns in "${HOSTS[@]/#/$PREFIX-}" "$PREFIX-br"; do
    ns_exists "$ns" && ip netns del "$ns"
  done
  rm -rf "$dir"
  return 0
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  up) up "$@" ;;
  exec) [ $# -ge 1 ] || die "exec NS CMD…"; run_in "$@" ;;
  addr) [ $# -eq 1 ] || die "addr NS"; split_ns "$1"; echo "$NET.${OCTET[$ROLE]}" ;;
  cut) [ $# -ge 1 ] || die "cut NS [--inside]"; link down "$@" ;;
  heal) [ $# -eq 1 ] || die "heal NS"; link up "$1" ;;
  down) [ $# -eq 1 ] || die "down PREFIX"; down "$1" ;;
  check) check ;;
  list) find "$STATE_ROOT" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' 2>/dev/null; true ;;
  *) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; echo >&2; exit 2 ;;
esac
