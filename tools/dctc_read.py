#!/usr/bin/env python3
"""Reads the DCTC timecode (shared/TIMECODE.md) from video files, independently of
DualCam's own code: ffmpeg decodes to raw luma, numpy reads the cells.

  tools/dctc_read.py FILE                 codes of every frame
  tools/dctc_read.py A.mp4 B.mp4          per-frame difference A - B in ms, with summary
  tools/dctc_read.py A.mp4 B.mp4 C.mp4 …  more files: frames per file, and the spread of the
                                          codes (largest - smallest) at each shared instant
  tools/dctc_read.py --slot X,Y,W,H --source WxH FILE   read a source scaled into a slot
  tools/dctc_read.py --slot ... --source WxH --crop X,Y,W,H FILE   the same where the slot
                                          shows that part of the source (an anchored fill;
                                          a fitted picture: --slot its rectangle, --crop
                                          0,0,W,H), as DualCam's LayoutGeometry.placement says
  tools/dctc_read.py --av [--slot ...] FILE   A/V offset: each tone-burst onset of the sound
                                          (TIMECODE.md, audio companion) minus the file time
                                          at which the DCTC codes cross that whole second
"""
import argparse
import json
import subprocess
import sys

import numpy as np


def probe_size(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "stream=width,height", "-of", "json", path], capture_output=True, check=True, text=True)
    s = json.loads(out.stdout)["streams"][0]
    return s["width"], s["height"]


def frames(path):
    w, h = probe_size(path)
    # passthrough: one output frame per decoded frame (no duplicates to fill a constant rate)
    proc = subprocess.Popen(["ffmpeg", "-v", "error", "-i", path, "-fps_mode", "passthrough", "-f", "rawvideo",
                             "-pix_fmt", "gray", "-"], stdout=subprocess.PIPE)
    size = w * h
    while True:
        buf = proc.stdout.read(size)
        if len(buf) < size:
            break
        yield np.frombuffer(buf, dtype=np.uint8).reshape(h, w)
    proc.wait()


def timestamps(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
                          "-of", "csv=p=0", path], capture_output=True, check=True, text=True)
    return [round(float(t.strip(",")) * 1000, 1) for t in out.stdout.split() if t.strip(",") not in ("", "N/A")]


def read_code(y, slot=None, source=None, crop=None):
    h, w = y.shape
    if slot is None:
        sx, sy, sw, sh = 0, 0, w, h
        src_w, src_h = w, h
    else:
        sx, sy, sw, sh = slot
        src_w, src_h = source
    if crop is None:
        s = max(sw / src_w, sh / src_h)
        cw, ch = (src_w // 32) * s, (src_h // 16) * s
        cx, cy = sx + sw / 2, sy + sh / 2
        x0, y0 = cx - 8 * cw, cy - ch
    else:
        # The grid's origin in the source (TIMECODE.md), carried through crop -> slot.
        kx, ky = sw / crop[2], sh / crop[3]
        cw, ch = (src_w // 32) * kx, (src_h // 16) * ky
        x0 = sx + ((src_w - 16 * (src_w // 32)) // 2 - crop[0]) * kx
        y0 = sy + ((src_h - 2 * (src_h // 16)) // 2 - crop[1]) * ky
    value = 0
    for b in range(32):
        row, col = divmod(b, 16)
        left, top = x0 + col * cw, y0 + row * ch
        xa, xb = int(round(left + cw * 0.25)), int(round(left + cw * 0.75))
        ya, yb = int(round(top + ch * 0.25)), int(round(top + ch * 0.75))
        bit = 1 if y[ya:max(yb, ya + 1), xa:max(xb, xa + 1)].mean() > 125 else 0
        value = (value << 1) | bit
    return value


def audio(path):
    """The first audio stream as mono float samples, its rate and its start time (s)."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries",
                          "stream=sample_rate,start_time", "-of", "json", path], capture_output=True, check=True, text=True)
    s = json.loads(out.stdout)["streams"][0]
    rate, start = int(s["sample_rate"]), float(s.get("start_time", 0) or 0)
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1", "-f", "f32le", "-"],
                         capture_output=True, check=True).stdout
    return np.frombuffer(raw, dtype=np.float32), rate, start


def burst_onsets(samples, rate):
    """Onsets (s, from sample 0) of 1 kHz bursts: 1 ms RMS blocks above a threshold halfway
    in dB between the noise floor and the loudest block (at least -30 dBFS), then the first
    sample above 25 % of the burst's peak, minus the 40 us a sine takes to get there."""
    block = rate // 1000
    n = len(samples) // block
    rms = np.sqrt(np.mean(samples[:n * block].reshape(n, block).astype(np.float64) ** 2, axis=1)) + 1e-12
    db = 20 * np.log10(rms)
    threshold = max(-30.0, (np.percentile(db, 10) + db.max()) / 2)
    onsets, last = [], -10**9
    for i in np.nonzero(db > threshold)[0]:
        if i - last > 200 and i > 0:
            lo, hi = max(0, (i - 2) * block), (i + 25) * block
            seg = np.abs(samples[lo:hi])
            first = lo + int(np.argmax(seg > 0.25 * seg.max()))
            onsets.append(first / rate - 40.2e-6)
        last = i
    return onsets


def av_offsets(path, slot, source, crop=None):
    samples, rate, start = audio(path)
    onsets = [start + t for t in burst_onsets(samples, rate)]
    ts = [t / 1000 for t in timestamps(path)]
    codes = [read_code(f, slot, source, crop) for f in frames(path)]
    crossings = [t - (c % 10000) / 10000 for t, c, p in zip(ts[1:], codes[1:], codes) if c // 10000 != p // 10000
                 and 0 < signed_diff(c, p) < 2000]
    offsets = []
    for x in crossings:
        near = min(onsets, key=lambda o: abs(o - x), default=None)
        if near is not None and abs(near - x) < 0.5:
            offsets.append((near - x) * 1000)
    return offsets, len(onsets), len(crossings)


def signed_diff(a, b):
    d = (a - b) & 0xFFFFFFFF
    return d - (1 << 32) if d >= (1 << 31) else d


def spread_summary(files, codes):
    """More than two files (a rig of many cameras): at each presentation time held by
    every file, the largest code minus the smallest, and how many of each file's frames
    step by other than one frame period (a missing frame)."""
    times = [timestamps(p) for p in files]
    by_time = [dict(zip(t, c)) for t, c in zip(times, codes)]
    common = sorted(set(by_time[0]).intersection(*[set(b) for b in by_time[1:]]))
    spreads = []
    for t in common:
        vs = [b[t] for b in by_time]
        rel = [signed_diff(v, vs[0]) / 10 for v in vs]
        spreads.append(max(rel) - min(rel))
    for p, c, t in zip(files, codes, times):
        steps = [signed_diff(b, a) / 10 for a, b in zip(c, c[1:])]
        period = sorted(steps)[len(steps) // 2] if steps else 0
        gaps = sum(1 for d in steps if abs(d - period) > 1.0)
        print(f"{p}: {len(c)} frames, {gaps} steps off {period:.1f} ms")
    s = sorted(spreads) or [0]
    print(f"{len(files)} files, {len(common)} instants in all of them; spread of codes (largest - smallest) "
          f"max {s[-1]:.1f} ms, p99 {s[(len(s) - 1) * 99 // 100]:.1f} ms, median {s[len(s) // 2]:.1f} ms")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--slot", help="X,Y,W,H of the slot in the picture")
    ap.add_argument("--source", help="WxH of the source drawn into the slot")
    ap.add_argument("--crop", help="X,Y,W,H of the source shown in the slot (default: the centred cover)")
    ap.add_argument("--av", action="store_true", help="A/V offset from tone bursts against DCTC seconds")
    args = ap.parse_args()
    slot = tuple(int(v) for v in args.slot.split(",")) if args.slot else None
    source = tuple(int(v) for v in args.source.split("x")) if args.source else None
    crop = tuple(int(v) for v in args.crop.split(",")) if args.crop else None
    if args.av:
        for p in args.files:
            offsets, bursts, crossings = av_offsets(p, slot, source, crop)
            worst = max((abs(o) for o in offsets), default=float("nan"))
            print(f"{p}: {len(offsets)} seconds matched ({bursts} bursts, {crossings} crossings); "
                  f"A/V offset worst {worst:.2f} ms; per second: " + " ".join(f"{o:+.2f}" for o in offsets))
        return
    codes = [[read_code(f, slot, source, crop) for f in frames(p)] for p in args.files]
    if len(codes) == 1:
        for i, c in enumerate(codes[0]):
            print(i, c, f"{c / 10000:.4f}s")
        return
    if len(codes) > 2:
        spread_summary(args.files, codes)
        return
    # Pair frames by presentation time, so that a dropped frame in one file does not
    # shift every comparison after it.
    ta, tb = timestamps(args.files[0]), timestamps(args.files[1])
    by_time_b = {t: c for t, c in zip(tb, codes[1])}
    rows = [(t, ca, by_time_b[t]) for t, ca in zip(ta, codes[0]) if t in by_time_b]
    diffs = []
    for t, ca, cb in rows:
        d = signed_diff(ca, cb) / 10
        diffs.append(d)
        print(f"{t:.1f}ms", ca, cb, f"{d:+.1f} ms")
    absd = sorted(abs(d) for d in diffs) or [0]
    print(f"frames {len(codes[0])} vs {len(codes[1])}, {len(rows)} at equal times; "
          f"|A-B| max {absd[-1]:.1f} ms, median {absd[len(absd)//2]:.1f} ms", file=sys.stderr)


if __name__ == "__main__":
    main()
