#!/usr/bin/env python3
"""Live out measured from outside (issue 33): demo takes that stream their programme to
receivers on loopback, read with ffmpeg and numpy (tools/dctc_read.py), none of DualCam's
code on the receiving side.

  latency   glass to receiver: each received picture's DCTC code (its capture instant on
            this machine's CLOCK_MONOTONIC, as the demo's synthetic cameras stamp it)
            against the monotonic clock when the receiver has decoded it (with
            LATENCY_DUMP=PREFIX, each picture's latency in order goes to PREFIX<case>:
            a segment's pictures arrive together, so they fall in a saw-tooth)
  cost      the coordinator's CPU with and without a stream, the same take at 720p30
  restart   no receiver at the start, one coming up once the first connect failed, killed
            2 s after the stream is live and back 3 s later: the stream connects late
            and reconnects, the take keeps every frame
  restart_srt  the same with an SRT listener
  throttle  a receiver behind a proxy passing a third of the programme's bitrate: the
            stream drops pictures, the take none

usage: tools/bench/live_out.py [--seconds 20] [--only latency,cost,restart,restart_srt,throttle] [--check]

--check: exit 1 unless restart and throttle behave as docs/LIVE.md says (the suite runs
`--seconds 12 --only restart,throttle --check`, deploy/test.sh).
"""
import argparse, glob, json, os, random, shutil, socket, subprocess, sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import dctc_read as d  # noqa: E402

BIN = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True).stdout.strip() \
    or os.path.join(ROOT, ".build/debug")


FAILURES = []


def demo(work, name, seconds, size, extra, on_line=None):
    """Runs a demo take; `on_line` sees each line of its log as it comes."""
    out = os.path.join(work, name)
    env = dict(os.environ, DUALCAM_AGENT=os.path.join(BIN, "dualcam-agent"))
    proc = subprocess.Popen([os.path.join(BIN, "dualcam-coordinator"), "demo", "--duration", str(seconds), "--out", out,
                             "--state", os.path.join(work, "state"), "--size", size, "--layout", "split-horizontal"] + extra,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if on_line:
            on_line(line)
    proc.wait()
    log = "".join(lines)
    if proc.returncode != 0:
        sys.exit(f"demo {name} failed:\n{log[-3000:]}")
    manifest = json.load(open(glob.glob(os.path.join(out, "*", "manifest.json"))[0]))
    cpu = next((l for l in lines if l.startswith("coordinator CPU while recording")), "").strip()
    return manifest, log, cpu


def expect(ok, what):
    """A --check condition: printed, and remembered when it failed."""
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        FAILURES.append(what)


def is_complete(manifest, seconds):
    comp = manifest["composite"]
    cams = [c["statistics"] for c in manifest["cameras"]]
    return comp["ticks"] == seconds * 30 and comp["repeats"] == 0 and all(c["framesDropped"] == 0 for c in cams)


def take_complete(manifest, seconds):
    comp = manifest["composite"]
    cams = [c["statistics"] for c in manifest["cameras"]]
    return (f"files: composite {comp['ticks']} ticks, {comp['repeats']} repeats, cameras "
            f"{[c['framesCaptured'] for c in cams]} frames, {[c['framesDropped'] for c in cams]} dropped"
            f" ({'complete' if is_complete(manifest, seconds) else 'NOT complete'})")


def port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p


def latency(work, seconds):
    # Without the programme's sound and with it (the default): the two differ by how the
    # stream's muxer waits for the sound, which is mixed behind the pictures.
    for label, extra in (("without sound", ["--no-sound"]), ("with sound", [])):
        latency_once(work, seconds, label, extra)


def latency_once(work, seconds, label, extra):
    p = port()
    url = f"rtmp://127.0.0.1:{p}/live/key"
    # The receiver must not add its own delay: by default ffmpeg probes 5 s of the stream
    # before it decodes the first picture, which read as a 5 s p95 of ours.
    rx = subprocess.Popen(["ffmpeg", "-hide_banner", "-loglevel", "error", "-fflags", "nobuffer", "-probesize", "32",
                           "-analyzeduration", "0", "-listen", "1", "-i", url,
                           "-map", "0:v", "-f", "rawvideo", "-pix_fmt", "gray", "-"], stdout=subprocess.PIPE)
    lat = []

    def read():
        size = 640 * 360
        while True:
            buf = rx.stdout.read(size)
            if len(buf) < size:
                return
            now = time.monotonic_ns()
            import numpy as np
            y = np.frombuffer(buf, dtype=np.uint8).reshape(360, 640)
            code = d.read_code(y, (0, 0, 320, 360), (640, 360))
            lat.append(((now // 100_000 - code) % (1 << 32)) / 10)   # ms
    t = threading.Thread(target=read); t.start()
    time.sleep(1)
    manifest, _, _ = demo(work, f"latency-{label.replace(' ', '-')}", seconds, "640x360", extra + ["--stream", url])
    rx.wait(timeout=30); t.join()
    series = ", ".join(f"{x:.0f}" for x in lat[::30])
    if os.environ.get("LATENCY_DUMP"):
        with open(os.environ["LATENCY_DUMP"] + label.replace(" ", "-"), "w") as f:
            f.write("\n".join(f"{x:.1f}" for x in lat) + "\n")
    lat.sort()
    print(f"latency ({label}): {len(lat)} pictures received; glass to receiver median {lat[len(lat)//2]:.0f} ms, "
          f"p95 {lat[int(len(lat)*.95)]:.0f} ms, min {lat[0]:.0f} ms; {take_complete(manifest, seconds)}\n"
          f"latency ({label}): every 30th picture in order (ms): {series}")


def cost(work, seconds):
    p = port()
    url = f"rtmp://127.0.0.1:{p}/live/key"
    _, _, without = demo(work, "cost-without", seconds, "1280x720", [])
    rx = subprocess.Popen(["ffmpeg", "-hide_banner", "-loglevel", "error", "-listen", "1", "-i", url, "-c", "copy", "-f", "null", "-"])
    time.sleep(1)
    _, _, with_stream = demo(work, "cost-with", seconds, "1280x720", ["--stream", url])
    rx.wait(timeout=30)
    print(f"cost at 1280x720p30, {seconds} s: without a stream: {without}\n                              with one:       {with_stream}")


def restart(work, seconds, scheme="rtmp"):
    p = port()
    if scheme == "srt":
        # SRT: the receiver listens (caller and listener as a platform's ingest and an
        # encoder), the key travels as the streamid.
        url, shown = f"srt://127.0.0.1:{p}?streamid=key", f"srt://127.0.0.1:{p}?streamid=****"
        listen = ["-i", f"srt://127.0.0.1:{p}?mode=listener"]
    else:
        url, shown = f"rtmp://127.0.0.1:{p}/live/key", "/live/****"
        listen = ["-listen", "1", "-i", url]
    args = ["ffmpeg", "-hide_banner", "-loglevel", "error"] + listen + ["-c", "copy", "-f", "null", "-"]
    receivers = []
    steps = {"late": False, "killed": False}

    def fault():  # live for 2 s, then gone for 3 s, then back
        time.sleep(2)
        receivers[-1].kill()
        time.sleep(3)
        receivers.append(receive())

    def receive():  # its output not on ours: a receiver outliving us must not hold our pipes
        return subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def on_line(line):
        # Driven by what the demo says, not by the clock: a loaded machine starts slower.
        if f"{shown}: could not connect" in line and not steps["late"]:
            steps["late"] = True
            receivers.append(receive())
        elif f"{shown}: live" in line and not steps["killed"]:
            steps["killed"] = True
            threading.Thread(target=fault, daemon=True).start()
    try:
        manifest, _, _ = demo(work, "restart-" + scheme, seconds, "640x360", ["--stream", url], on_line)
    finally:
        for r in receivers:
            r.kill()
    s = manifest["liveOut"][0]
    print(f"restart ({scheme}): no receiver at the start, one once the first connect failed, killed 2 s after live and back 3 s "
          f"later: {s['connections']} connections, {s['reconnects']} reconnects, "
          f"{s['liveSeconds']:.1f} s live, {s['droppedFrames']} frames not sent; events: "
          + "; ".join(f"{e['atSeconds']} s {e['what'][:60]}" for e in s["events"]) + f"; {take_complete(manifest, seconds)}")
    whats = [e["what"] for e in s["events"]]
    expect(any(w.startswith("could not connect") for w in whats) and s["connections"] >= 2 and s["reconnects"] >= 1
           and any(w.startswith("live again") for w in whats),
           f"restart ({scheme}): the stream connected once its receiver came up, and again after it was killed and back")
    expect(is_complete(manifest, seconds), f"restart ({scheme}): the take kept every frame of both cameras and the combined file")


def restart_srt(work, seconds):
    restart(work, seconds, "srt")


def throttle(work, seconds):
    p, q = port(), port()
    url_rx = f"rtmp://127.0.0.1:{p}/live/key"
    rx = subprocess.Popen(["ffmpeg", "-hide_banner", "-loglevel", "error", "-listen", "1", "-i", url_rx, "-c", "copy", "-f", "null", "-"],
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # A third of the lowest ceiling, 300 kbit/s, which the synthetic pictures at 640x360
    # fill: the backlog (4 s at the ceiling) and the socket's buffer (1 s) are full after
    # about 8 s, and pictures are dropped from then on.
    ceiling = 300_000
    rate = ceiling // 8 // 3     # bytes/s
    lst = socket.socket(); lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); lst.bind(("127.0.0.1", q)); lst.listen(1)

    def proxy():
        a, _ = lst.accept()
        a.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
        b = socket.create_connection(("127.0.0.1", p))
        def back():
            try:
                while (x := b.recv(65536)):
                    a.sendall(x)
            except OSError:
                pass
        threading.Thread(target=back, daemon=True).start()
        try:
            while (x := a.recv(min(4096, rate // 10))):
                b.sendall(x)
                time.sleep(len(x) / rate)
        except OSError:
            pass
    threading.Thread(target=proxy, daemon=True).start()
    time.sleep(1)
    try:
        manifest, _, _ = demo(work, "throttle", seconds, "640x360",
                              ["--stream", f"rtmp://127.0.0.1:{q}/live/key", "--stream-bitrate", f"{ceiling // 1000}k"])
    finally:
        rx.kill()
    s = manifest["liveOut"][0]
    print(f"throttle: uplink at a third of the {ceiling // 1000} kbit/s ceiling ({rate * 8 // 1000} kbit/s): {s['droppedFrames']} frames not sent of "
          f"{seconds * 30}, {s['bytes']} bytes sent, {s['reconnects']} reconnects; {take_complete(manifest, seconds)}")
    # Newest wins (docs/LIVE.md): pictures are dropped from the stream, the take keeps all.
    expect(s["droppedFrames"] > 0 and s["bytes"] > 0, "throttle: the slow uplink lost stream pictures and still carried some")
    expect(is_complete(manifest, seconds), "throttle: the take kept every frame of both cameras and the combined file")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--only", default="latency,cost,restart,restart_srt,throttle")
    ap.add_argument("--check", action="store_true", help="exit 1 when restart or throttle did not behave as documented")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="dualcam-live-out-")
    try:
        for name in args.only.split(","):
            globals()[name](work, args.seconds)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.check and FAILURES:
        sys.exit(f"live out: {len(FAILURES)} checks failed: {FAILURES}")
