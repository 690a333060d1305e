#!/usr/bin/env bash
# Makes sure a D-Bus system bus and avahi-daemon are running, starting them directly when
# no service manager did (containers, CI machines, the test suite). Needs root to start
# them; exits 0 when avahi answers, 1 with a message otherwise.
set -uo pipefail

avahi_up() { avahi-daemon --check 2>/dev/null; }
bus_up() { [ -S /run/dbus/system_bus_socket ] && dbus-send --system --dest=org.freedesktop.DBus --type=method_call \
             --print-reply / org.freedesktop.DBus.GetId >/dev/null 2>&1; }

avahi_up && exit 0
command -v avahi-daemon >/dev/null || { echo "ensure-avahi: avahi-daemon is not installed; run deploy/install-deps.sh" >&2; exit 1; }
if [ "$(id -u)" -ne 0 ]; then
  echo "ensure-avahi: avahi-daemon is not running; start it with: sudo systemctl start avahi-daemon" >&2
  exit 1
fi
if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
  systemctl start dbus avahi-daemon 2>/dev/null && avahi_up && exit 0
fi
if ! bus_up; then
  mkdir -p /run/dbus
  rm -f /run/dbus/pid /run/dbus/system_bus_socket   # left by a bus that is gone
  dbus-daemon --system --fork >/dev/null || { echo "ensure-avahi: cannot start dbus-daemon --system" >&2; exit 1; }
fi
rm -f /run/avahi-daemon/pid                         # left by a daemon that is gone
avahi-daemon --daemonize --no-chroot --no-drop-root 2>/dev/null || avahi-daemon --daemonize --no-chroot
for _ in $(seq 50); do avahi_up && exit 0; sleep 0.1; done
echo "ensure-avahi: avahi-daemon did not come up" >&2
exit 1
