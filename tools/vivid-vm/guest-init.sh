#!/vivid-vm/busybox sh
# PID 1 of the vivid test guest (see run.sh). It lives in the initramfs as /init.
#
# Layout it relies on, all made by run.sh:
#   /vivid-vm/busybox          static busybox; its applets go to /vivid-vm/bin so they never
#                              shadow a host binary copied into the image at its own path
#   /vivid-vm/modules/NN-*.ko  modules to load in that order (virtio/9p chain, then vivid's deps)
#   /vivid-vm/vivid.ko         loaded last, because its options come through the ctl share
#   share "out" -> /out        the host's --out DIR: results, guest.log, exit-code
#   share "ctl" -> /vivid-vm/ctl (read-only): cmd.sh (the quoted command) and vivid-options.
#                              Run-specific data comes this way, not in the image, so that the
#                              big image stays cacheable across runs with different arguments.
#
# Whatever goes wrong, the guest powers off: the host then reports the missing exit-code
# instead of waiting for its timeout.

/vivid-vm/busybox mkdir -p /vivid-vm/bin
/vivid-vm/busybox --install -s /vivid-vm/bin
export PATH=/vivid-vm/bin

# The kernel does not mount devtmpfs for an initramfs; without /dev/console mounted here the
# kernel may have started us with no stdout at all, so re-open the console once /dev exists.
mount -t devtmpfs dev /dev
exec </dev/null >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys
# POSIX shared memory (shm_open, sem_open) lives here; devtmpfs does not provide it.
mkdir -p /dev/shm && mount -t tmpfs shm /dev/shm
# The rootfs is already RAM-backed and writable; a tmpfs on /tmp only adds the usual
# semantics, and must not hide a program or --file that came from the host's /tmp.
[ -z "$(ls -A /tmp)" ] && mount -t tmpfs tmp /tmp

say() { echo "vivid-vm[$(cut -d' ' -f1 /proc/uptime)s]: $*"; }
halt() { sync; poweroff -f; sleep 10; }
die() {
  say "ERROR: $*"
  # Leave the reason where the host looks first, if the share made it that far.
  grep -q ' /out 9p ' /proc/mounts && echo "$*" >/out/harness-error
  halt
}

for m in /vivid-vm/modules/*.ko; do
  insmod "$m" || die "insmod $m failed"
done
# msize: 9p's default 8 KiB messages make large result files crawl; 512 KB is what the
# virtio transport accepts on this kernel.
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 out /out || die "cannot mount the out share"
mount -t 9p -o trans=virtio,version=9p2000.L,ro ctl /vivid-vm/ctl || die "cannot mount the ctl share"

# Word splitting is wanted: the file holds vivid's options as one line of key=value words.
# shellcheck disable=SC2046
insmod /vivid-vm/vivid.ko $(cat /vivid-vm/ctl/vivid-options) ||
  die "insmod vivid.ko $(cat /vivid-vm/ctl/vivid-options) failed (bad --vivid options?)"

# Nodes appear through devtmpfs without udev, but make sure each one vivid registered is
# there before the program looks for it.
n=0
for dev in /sys/class/video4linux/* /sys/class/media/*; do
  [ -e "$dev" ] || continue
  while [ ! -e "/dev/${dev##*/}" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
done
say "vivid loaded: $(cd /dev && echo video* media* 2>/dev/null)"

# Programs under test talk to themselves over loopback (agent servers, clients).
ip link set lo up

export HOME=/tmp
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/vivid-vm/bin
cd /out || die "cannot cd to /out"
say "running the program"
# Straight into the file, no pipe through tee to the console: a daemon the program leaves
# behind would hold the pipe open and the guest would never get to power off. The host
# reads guest.log as it grows (9p writes go through at once).
sh /vivid-vm/ctl/cmd.sh </dev/null >/out/guest.log 2>&1
rc=$?
say "program exited with $rc"
echo "$rc" >/out/exit-code
halt
