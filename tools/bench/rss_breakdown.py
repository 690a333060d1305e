#!/usr/bin/env python3
"""Where a process's resident memory goes at its peak.

Runs COMMAND, reads /proc/PID/smaps every 50 ms, keeps the sample with the largest RSS
and prints it by kind: anonymous memory (heap, encoder state, our pictures) and the
pages of each shared library, grouped (FFmpeg and the libraries Debian links it with,
Foundation, the Swift runtime, libc, the executable). Used to say why the agent's peak
is what it is; `dualcam-bench capture` measures the peak itself (ru_maxrss).

usage: tools/bench/rss_breakdown.py -- COMMAND [ARGS...]
"""
import re
import subprocess
import sys
import time
from collections import Counter


def group(path):
    if path in ("[anon]", "[heap]", "[stack]") or path.startswith("[anon"):
        return "anonymous (heap, encoder state, pictures)"
    if path.startswith("["):
        return "kernel-provided ([vdso], [vvar])"
    name = path.rsplit("/", 1)[-1]
    if "/swift/" in path and "Foundation" in name or name.startswith("lib_FoundationICU"):
        return "Foundation (+ its ICU)"
    if "/swift/" in path:
        return "Swift runtime (swiftCore, Concurrency, dispatch, ...)"
    if re.match(r"lib(av|sw)\w+\.so", name):
        return "FFmpeg's own libraries"
    if re.match(r"lib(c|m|pthread|dl|rt|stdc\+\+|gcc_s)[.-]", name) or name.startswith("ld-linux"):
        return "libc, libm, libstdc++"
    if re.match(r"lib(x264|x265)\.so", name):
        return "libx264/libx265 code"
    if path.startswith("/usr/lib") or path.startswith("/lib"):
        return "other system libraries (mostly FFmpeg's dependencies)"
    return "the executable"


def sample(pid):
    totals, current = Counter(), None
    with open(f"/proc/{pid}/smaps") as smaps:
        for line in smaps:
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                parts = line.split()
                current = parts[5] if len(parts) > 5 else "[anon]"
            elif line.startswith("Rss:"):
                totals[group(current)] += int(line.split()[1])
    return totals


def main():
    if "--" not in sys.argv:
        sys.exit(__doc__)
    command = sys.argv[sys.argv.index("--") + 1:]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = Counter()
    while child.poll() is None:
        try:
            totals = sample(child.pid)
        except (FileNotFoundError, ProcessLookupError):
            break
        if sum(totals.values()) > sum(peak.values()):
            peak = totals
        time.sleep(0.05)
    print(f"peak RSS {sum(peak.values()) / 1024:.1f} MiB (sampled every 50 ms; exit {child.wait()})")
    for name, kib in peak.most_common():
        print(f"  {kib / 1024:6.1f} MiB  {name}")


if __name__ == "__main__":
    main()
