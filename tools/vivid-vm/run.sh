#!/usr/bin/env bash
# Runs one Linux program inside a QEMU guest whose kernel has loaded vivid, the kernel's
# virtual V4L2 camera driver, so V4L2 capture code can be tested against a real driver on
# machines that have no camera and whose own kernel loads no modules.
#
#   tools/vivid-vm/run.sh --out DIR [--timeout SECONDS] [--vivid "OPTIONS"]
#                         [--file /abs/path ...] [--env KEY=VALUE ...]
#                         [--mem MiB] [--smp N] [--verbose]
#                         -- /abs/path/to/program [args...]
#
# The program runs as root in the guest with cwd /out (= DIR on the host), HOME=/tmp,
# stdin /dev/null, stdout+stderr in DIR/guest.log. run.sh exits with the program's exit
# status; with 124 if the guest timed out or never reported one (DIR/console.log then
# holds the guest's console, and its tail goes to stderr); with 2 for a usage error or
# a missing host prerequisite, before any VM starts.
#
# Options:
#   --out DIR       shared with the guest as /out (created if missing)
#   --timeout S     wall-time limit for the whole VM, boot included (default 180)
#   --vivid OPTS    vivid module options (default: one webcam node,
#                   "n_devs=1 node_types=0x1 num_inputs=1 input_types=0x0")
#   --file PATH     extra host file or directory to copy into the guest at the same path;
#                   an ELF file brings the libraries ldd lists for it (repeatable)
#   --env KEY=VAL   environment variable for the program (repeatable)
#   --mem MiB       guest memory (default: enough for the image, at least 1024)
#   --smp N         guest CPUs (default 1)
#   --verbose       stream the guest console and guest.log to stderr, print timings
#
# Clocks: the guest's CLOCK_MONOTONIC (and so vivid's buffer timestamps) is the guest
# kernel's own, counted from the guest's boot; it is unrelated to the host's. Compare
# timestamps only with clocks read inside the guest. TCG also makes the guest much slower
# than the host, so timing limits in tests run here need generous margins.
#
# Why TCG and never KVM: /dev/kvm on these machines is a nested paravirtual KVM that cannot
# boot a stock kernel (it hangs silently or dies on an emulation failure).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Bump when the image layout or guest-init contract changes, so stale cache entries die.
FORMAT=1
PACKAGES="qemu-system-x86 linux-image-amd64 busybox-static cpio kmod xz-utils"
INSTALL_HINT="install them with: sudo apt-get install -y --no-install-recommends $PACKAGES (or run deploy/install-deps.sh)"

die() { echo "vivid-vm: $*" >&2; exit 2; }
log() { [ "$VERBOSE" = 1 ] && echo "vivid-vm: $*" >&2; return 0; }
usage() { sed -n '6,28p' "$0" | sed 's/^# \{0,1\}//' >&2; exit "${1:-2}"; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

OUT="" TIMEOUT=180 MEM="" SMP=1 VERBOSE=0
VIVID_OPTS="n_devs=1 node_types=0x1 num_inputs=1 input_types=0x0"
FILES=() ENVS=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) OUT=${2:?--out needs a directory}; shift 2 ;;
    --timeout) TIMEOUT=${2:?--timeout needs seconds}; shift 2 ;;
    --vivid) VIVID_OPTS=${2?--vivid needs options}; shift 2 ;;
    --file) FILES+=("${2:?--file needs a path}"); shift 2 ;;
    --env) ENVS+=("${2:?--env needs KEY=VALUE}"); shift 2 ;;
    --mem) MEM=${2:?--mem needs MiB}; shift 2 ;;
    --smp) SMP=${2:?--smp needs a count}; shift 2 ;;
    -v|--verbose) VERBOSE=1; shift ;;
    -h|--help) usage 0 ;;
    --) shift; break ;;
    *) echo "vivid-vm: unknown option $1" >&2; usage ;;
  esac
done
[ $# -ge 1 ] || usage
[ -n "$OUT" ] || die "--out DIR is required"
PROG=$1; shift
ARGS=("$@")

[[ $PROG == /* ]] || die "the program must be an absolute path: $PROG"
if [ ! -f "$PROG" ] || [ ! -x "$PROG" ]; then die "not an executable file: $PROG"; fi
for f in "${FILES[@]+"${FILES[@]}"}"; do
  [[ $f == /* ]] || die "--file needs an absolute path: $f"
  [ -e "$f" ] || die "--file does not exist: $f"
done
for e in "${ENVS[@]+"${ENVS[@]}"}"; do
  [[ $e =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "--env wants KEY=VALUE: $e"
done
[[ $TIMEOUT =~ ^[0-9]+$ ]] || die "--timeout wants whole seconds: $TIMEOUT"
[[ $VIVID_OPTS =~ ^[A-Za-z0-9_=,.\ -]*$ ]] || die "--vivid options look wrong: $VIVID_OPTS"

# ---------------------------------------------------------------- host prerequisites
for tool in qemu-system-x86_64 cpio modprobe timeout sha256sum ldd; do
  command -v "$tool" >/dev/null || die "missing '$tool'; the VM needs the packages $PACKAGES; $INSTALL_HINT"
done
BUSYBOX=""
for b in /bin/busybox /usr/bin/busybox; do [ -x "$b" ] && { BUSYBOX=$b; break; }; done
[ -n "$BUSYBOX" ] || die "no busybox; $INSTALL_HINT"
# A dynamic busybox would need its own libraries in the image before anything is mounted.
if ldd "$BUSYBOX" >/dev/null 2>&1; then
  die "$BUSYBOX is dynamically linked; the guest needs the static one from busybox-static ($INSTALL_HINT)"
fi

# The newest installed kernel that ships vivid; Debian's stock kernel does.
KVER=""
for k in $(printf '%s\n' /boot/vmlinuz-* | sed -n 's|^/boot/vmlinuz-||p' | grep -v '^\*$' | sort -V -r); do
  if [ -d "/lib/modules/$k/kernel/drivers/media/test-drivers/vivid" ] && [ -f "/lib/modules/$k/modules.dep" ]; then
    KVER=$k; break
  fi
done
[ -n "$KVER" ] || die "no /boot/vmlinuz-* with a matching vivid module under /lib/modules/<ver>; $INSTALL_HINT"
KERNEL=/boot/vmlinuz-$KVER
[ -r "$KERNEL" ] || die "$KERNEL is not readable by $(id -un); run as root or make it readable"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/dualcam-vivid
mkdir -p "$CACHE"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/vivid-vm.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# Archives stay uncompressed: the guest would decompress them under emulation. Measured
# with the 339 MiB image of the debug dualcam-agent (Swift runtime + FFmpeg), VM start to
# power-off: none 8.3-9.0 s, lz4 (170 MiB) 9.1-9.5 s, zstd -3 (117 MiB) 12.3-12.8 s,
# gzip -1 (133 MiB) 14.1-16.1 s; and building it took 4-5 s uncompressed, 11 s with gzip.

# Builds DEST from stdin via a temporary file, so concurrent runs never see half an archive.
store() {
  local dest=$1 tmp
  tmp=$(mktemp "$CACHE/.tmp.XXXXXX")
  if cat >"$tmp"; then chmod 0644 "$tmp"; mv -f "$tmp" "$dest"; else rm -f "$tmp"; return 1; fi
}

# Keeps the cache from growing by ~one image per rebuilt binary: the most recently used
# entries of each kind stay.
prune() {
  local pattern=$1 keep=${DUALCAM_VIVID_CACHE_KEEP:-4}
  # Names are ours (no spaces or newlines), and the pattern must glob.
  # shellcheck disable=SC2012,SC2086
  ls -1t "$CACHE"/$pattern 2>/dev/null | tail -n +$((keep + 1)) | xargs -r rm -f
  find "$CACHE" -maxdepth 1 -name '.tmp.*' -mmin +60 -delete 2>/dev/null || true
}

# ---------------------------------------------------------------- kernel
# Boot the uncompressed vmlinux through its PVH entry when the kernel has one: that skips
# the bzImage decompressing itself, which costs ~5.5 s of every boot under TCG (xz).
# Extracted once per kernel into the cache; any surprise falls back to the bzImage.
bzimage_payload_to_vmlinux() {
  local dest=$1 setup_sects offset length start magic want tmp
  [ "$(od -An -c -j $((0x202)) -N4 "$KERNEL" | tr -d ' ')" = HdrS ] || return 1
  setup_sects=$(od -An -tu1 -j $((0x1f1)) -N1 "$KERNEL" | tr -d ' ')
  offset=$(od -An -tu4 -j $((0x248)) -N4 "$KERNEL" | tr -d ' ')
  length=$(od -An -tu4 -j $((0x24c)) -N4 "$KERNEL" | tr -d ' ')
  [ "${length:-0}" -gt 0 ] || return 1
  start=$(((setup_sects + 1) * 512 + offset))
  tmp=$WORK/vmlinux
  tail -c +$((start + 1)) "$KERNEL" | head -c "$length" >"$WORK/payload"
  # The build appends the uncompressed size to the payload: proof of a complete unpack.
  want=$(tail -c 4 "$WORK/payload" | od -An -tu4 | tr -d ' ')
  magic=$(od -An -tx1 -N4 "$WORK/payload" | tr -d ' \n')
  case $magic in
    fd377a58) command -v xz >/dev/null && xz -dc --single-stream <"$WORK/payload" >"$tmp" 2>/dev/null ;;
    28b52ffd) command -v zstd >/dev/null && zstd -qdc <"$WORK/payload" >"$tmp" 2>/dev/null ;;
    1f8b*) gzip -dc <"$WORK/payload" >"$tmp" 2>/dev/null ;;
  esac
  rm -f "$WORK/payload"
  [ -f "$tmp" ] && [ "$(stat -c %s "$tmp")" = "$want" ] &&
    [ "$(od -An -tx1 -N4 "$tmp" | tr -d ' \n')" = 7f454c46 ] || return 1
  store "$dest" <"$tmp"
  rm -f "$tmp"
}
BOOT_KERNEL=$KERNEL
if grep -qx 'CONFIG_PVH=y' "/boot/config-$KVER" 2>/dev/null; then
  VMLINUX=$CACHE/vmlinux-$KVER-$(stat -c '%s-%Y' "$KERNEL")
  if [ -f "$VMLINUX" ] || bzimage_payload_to_vmlinux "$VMLINUX"; then
    BOOT_KERNEL=$VMLINUX
    touch "$VMLINUX"
    prune 'vmlinux-*'
  else
    log "cannot unpack $KERNEL (is xz-utils installed?); booting the slower bzImage"
  fi
fi

# ---------------------------------------------------------------- base image
# busybox, guest init, /etc basics and the modules. Small and cheap to build, but cached
# anyway and kept apart from the program part so a new binary only redoes its own part.
t0=$(now)
STAGE=$WORK/base
mkdir -p "$STAGE"/{proc,sys,dev,tmp,out,root,etc,vivid-vm/modules,vivid-vm/ctl}
cp "$BUSYBOX" "$STAGE/vivid-vm/busybox"
install -m 0755 "$HERE/guest-init.sh" "$STAGE/init"
printf 'root:x:0:0:root:/tmp:/bin/sh\n' >"$STAGE/etc/passwd"
printf 'root:x:0:\n' >"$STAGE/etc/group"
printf '127.0.0.1\tlocalhost\n::1\tlocalhost\n' >"$STAGE/etc/hosts"

# The 9p chain first: vivid's options arrive through a 9p share. modprobe lists shared
# dependencies once per module asked for; keep the first, which is in dependency order.
MODULES=$(for m in virtio_pci 9pnet_virtio 9p vivid; do
  modprobe --show-depends -S "$KVER" "$m" || die "modprobe cannot resolve $m for kernel $KVER"
done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }')
i=0
while read -r ko; do
  name=$(basename "$ko"); name=${name%%.ko*}
  if [ "$name" = vivid ]; then dest=$STAGE/vivid-vm/vivid.ko
  else i=$((i + 1)); dest=$STAGE/vivid-vm/modules/$(printf %02d $i)-$name.ko; fi
  # busybox insmod reads plain .ko only (it copes with .xz, not .zst): unpack on the host.
  case $ko in
    *.ko) cp "$ko" "$dest" ;;
    *.ko.xz) xz -dc "$ko" >"$dest" ;;
    *.ko.zst) zstd -qdc "$ko" >"$dest" ;;
    *.ko.gz) gzip -dc "$ko" >"$dest" ;;
    *) die "unsupported module file $ko" ;;
  esac
done <<<"$MODULES"
[ -f "$STAGE/vivid-vm/vivid.ko" ] || die "modprobe did not list vivid.ko for $KVER"

BASE_KEY=$( { echo "format=$FORMAT kver=$KVER"
              cd "$STAGE" && find . -type f | LC_ALL=C sort | xargs sha256sum; } | sha256sum | cut -c1-16)
BASE=$CACHE/base-$KVER-$BASE_KEY.cpio
if [ ! -f "$BASE" ]; then
  log "building base image $BASE"
  (cd "$STAGE" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | store "$BASE"
fi
touch "$BASE"
log "base image ready in $(elapsed "$t0") s"

# ---------------------------------------------------------------- program image
# The program, --file entries and every library ldd lists for them, at their host paths.
# Host symlinks on the way (Debian's /lib -> usr/lib, ld.so -> ../lib/...) are reproduced
# as symlinks, so every path ldd printed resolves in the guest exactly as on the host.
t0=$(now)
declare -A SEEN=() LINKS=()
ENTRIES=()
emit() { [ -n "${SEEN[$1]:-}" ] && return; SEEN[$1]=1; ENTRIES+=("$1"); }
# Memoized: every library path goes through /lib, and a fork per lookup adds up.
link_target() { [ -n "${LINKS[$1]:-}" ] || LINKS[$1]=$(readlink "$1"); target=${LINKS[$1]}; }

# Emits each component of an absolute path, parents first (the kernel's cpio unpacker does
# not create missing directories), following symlinks by adding their targets too.
add_path() {
  local path=$1 depth=${2:-0} cur="" comp target i
  local -a parts rest
  [ "$depth" -lt 40 ] || die "symlink loop at $path"
  IFS=/ read -r -a parts <<<"${path#/}"
  for ((i = 0; i < ${#parts[@]}; i++)); do
    comp=${parts[i]}
    case $comp in
      '' | .) continue ;;
      ..) cur=${cur%/*}; continue ;;  # cur has no symlinks in it, so this is exact
    esac
    if [ -L "$cur/$comp" ]; then
      emit "$cur/$comp"
      link_target "$cur/$comp"
      [[ $target == /* ]] || target=$cur/$target
      rest=("${parts[@]:i+1}")
      printf -v target '%s/' "$target" "${rest[@]+"${rest[@]}"}"  # a fork per link adds up
      add_path "$target" $((depth + 1))
      return
    fi
    cur=$cur/$comp
    [ -e "$cur" ] || die "missing on the host: $cur (needed for $path)"
    emit "$cur"
  done
}

is_elf() { [ -f "$1" ] && [ "$(od -An -tx1 -N4 "$1" | tr -d ' \n')" = 7f454c46 ]; }

# Libraries (and the dynamic loader) ldd resolves for an ELF file; nothing for a static one.
add_libs() {
  local out line
  out=$(ldd "$1" 2>&1) || return 0   # "not a dynamic executable"
  if grep -q 'not found' <<<"$out"; then
    die "ldd cannot resolve every library of $1 on the host:"$'\n'"$(grep 'not found' <<<"$out")"
  fi
  while read -r line; do add_path "$line"; done < <(
    sed -n -e 's/^.*=> \(\/[^ ]*\) (0x.*$/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) (0x.*$/\1/p' <<<"$out")
}

add_path "$PROG"
add_libs "$PROG"
# A script needs its interpreter (#!/bin/sh would otherwise find only busybox's sh).
if [ "$(head -c 2 "$PROG")" = '#!' ]; then
  read -r interp _ < <(head -n 1 "$PROG" | cut -c3-)
  if [[ ${interp:-} == /* ]] && [ -e "$interp" ]; then add_path "$interp"; add_libs "$interp"; fi
fi
for f in "${FILES[@]+"${FILES[@]}"}"; do
  add_path "$f"
  if [ -d "$f" ] && [ ! -L "$f" ]; then
    while IFS= read -r -d '' sub; do emit "$sub"; done < <(find "$f" -mindepth 1 -print0)
  elif is_elf "$f"; then
    add_libs "$f"
  fi
done

# Key: contents of what the caller named, plus size and mtime of everything else, which
# catches a library upgraded on the host without hashing 100+ MB of libraries each run.
# md5 because this is a cache key, not a signature: 3x faster than sha256 on a 95 MB binary.
PROG_KEY=$( { echo "format=$FORMAT"
              md5sum "$PROG" "${FILES[@]+"${FILES[@]}"}" 2>/dev/null || true
              # Directories by name only: their mtimes change with every file added beside ours.
              printf '%s\0' "${ENTRIES[@]}" | xargs -0 stat -c '%F|%s|%Y|%n' |
                awk -F'|' '$1 == "directory" { print $4; next } { print }'; } | sha256sum | cut -c1-16)
IMAGE=$CACHE/img-$BASE_KEY-$PROG_KEY.cpio
if [ ! -f "$IMAGE" ]; then
  echo "vivid-vm: building the guest image for $(basename "$PROG") (cached for later runs)" >&2
  { cat "$BASE"
    (cd / && printf '%s\0' "${ENTRIES[@]#/}" | cpio -o -0 -H newc -R 0:0 --quiet)
  } | store "$IMAGE"
fi
touch "$IMAGE"
prune 'img-*.cpio'
prune 'base-*.cpio'
IMAGE_MB=$(( ($(stat -c %s "$IMAGE") + 1048575) / 1048576 ))
log "image $IMAGE ($IMAGE_MB MiB, ${#ENTRIES[@]} host entries) ready in $(elapsed "$t0") s"

# ---------------------------------------------------------------- run
# The command reaches the guest as a script in a second, read-only share: no quoting
# through the kernel command line, and the cached image stays the same for any arguments.
CTL=$WORK/ctl
mkdir -p "$CTL"
q() { local s=${1//\'/\'\\\'\'}; printf "'%s'" "$s"; }
{
  for e in "${ENVS[@]+"${ENVS[@]}"}"; do printf 'export %s\n' "$(q "$e")"; done
  printf 'exec %s' "$(q "$PROG")"
  for a in "${ARGS[@]+"${ARGS[@]}"}"; do printf ' %s' "$(q "$a")"; done
  printf '\n'
} >"$CTL/cmd.sh"
printf '%s\n' "$VIVID_OPTS" >"$CTL/vivid-options"

# The image sits in guest RAM twice while the kernel unpacks it (the archive and the
# rootfs tmpfs), plus room for the program.
if [ -z "$MEM" ]; then MEM=$((2 * IMAGE_MB + 768)); [ "$MEM" -ge 1024 ] || MEM=1024; fi

rm -f "$OUT/exit-code" "$OUT/guest.log" "$OUT/console.log" "$OUT/harness-error"
QEMU=(qemu-system-x86_64
  -accel tcg -m "$MEM" -smp "$SMP"
  -nodefaults -no-user-config -nographic -serial stdio -monitor none -no-reboot
  -kernel "$BOOT_KERNEL" -initrd "$IMAGE"
  -append "console=ttyS0 panic=-1 quiet ${DUALCAM_VIVID_APPEND:-}"
  -virtfs "local,path=$OUT,mount_tag=out,security_model=none,id=out"
  -virtfs "local,path=$CTL,mount_tag=ctl,security_model=none,readonly=on,id=ctl")
# Escape hatches for debugging a boot: extra QEMU words, extra kernel command-line words.
# shellcheck disable=SC2206
QEMU+=(${DUALCAM_VIVID_QEMU_ARGS:-})
log "${QEMU[*]}"
t0=$(now)
set +e
if [ "$VERBOSE" = 1 ]; then
  : >"$OUT/guest.log"
  tail -n +1 -F -s 0.2 "$OUT/guest.log" 2>/dev/null | sed -u 's/^/guest: /' >&2 &
  tailer=$!
  timeout -k 10 "$TIMEOUT" "${QEMU[@]}" </dev/null 2>&1 | tee "$OUT/console.log" >&2
  qemu_rc=${PIPESTATUS[0]}
  sleep 0.3; kill "$tailer" 2>/dev/null; wait "$tailer" 2>/dev/null
else
  timeout -k 10 "$TIMEOUT" "${QEMU[@]}" </dev/null >"$OUT/console.log" 2>&1
  qemu_rc=$?
fi
set -e
log "VM ran for $(elapsed "$t0") s (qemu exit $qemu_rc)"

rc=$(cat "$OUT/exit-code" 2>/dev/null || true)
if [[ $rc =~ ^[0-9]+$ ]]; then exit "$rc"; fi

if [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
  echo "vivid-vm: the guest did not finish within --timeout $TIMEOUT s" >&2
elif [ -s "$OUT/harness-error" ]; then
  echo "vivid-vm: guest setup failed: $(cat "$OUT/harness-error")" >&2
else
  echo "vivid-vm: the guest stopped (qemu exit $qemu_rc) without writing $OUT/exit-code" >&2
fi
echo "vivid-vm: last lines of $OUT/console.log:" >&2
# Without SeaBIOS's terminal escapes, which would garble the caller's terminal.
tail -n 30 "$OUT/console.log" | tr -d '\r' | sed -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1bc//g' -e 's/^/  | /' >&2
if [ -s "$OUT/guest.log" ]; then
  echo "vivid-vm: last lines of the program's output, $OUT/guest.log:" >&2
  tail -n 20 "$OUT/guest.log" | sed 's/^/  | /' >&2
fi
exit 124
