#!/usr/bin/env python3
"""Live out measured from outside (issue 33): demo takes that stream their programme to
receivers on loopback, read with ffmpeg and numpy (tools/dctc_read.py), none of DualCam's
code on the receiving side.

  latency   glass to receiver: each received picture's DCTC code (its capture instant on
            this machine's CLOCK_MONOTONIC, as the demo's synthetic cameras stamp it)
            against the monotonic clock when the receiver has decoded it
  cost      the coordinator's CPU with and without a stream, the same take at 720p30
  restart   the receiver killed mid-take and brought back: the stream reconnects
  throttle  a receiver behind a proxy passing a third of the programme's bitrate: the
            stream drops pictures, the take none

usage: tools/bench/live_out.py [--seconds 20] [--only latency,cost,restart,throttle]
"""
import argparse, glob, json, os, random, socket, subprocess, sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import dctc_read as d  # noqa: E402

BIN = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True).stdout.strip() \
    or os.path.join(ROOT, ".build/debug")


def demo(work, name, seconds, size, extra):
    out = os.path.join(work, name)
    env = dict(os.environ, DUALCAM_AGENT=os.path.join(BIN, "dualcam-agent"))
    run = subprocess.run([os.path.join(BIN, "dualcam-coordinator"), "demo", "--duration", str(seconds), "--out", out,
                          "--state", os.path.join(work, "state"), "--size", size, "--layout", "split-horizontal"] + extra,
                         capture_output=True, text=True, env=env)
    if run.returncode != 0:
        sys.exit(f"demo {name} failed:\n{run.stderr[-3000:]}")
    manifest = json.load(open(glob.glob(os.path.join(out, "*", "manifest.json"))[0]))
    cpu = next((l for l in run.stderr.splitlines() if l.startswith("coordinator CPU while recording")), "")
    return manifest, run.stderr, cpu


def take_complete(manifest, seconds):
    comp = manifest["composite"]
    cams = [c["statistics"] for c in manifest["cameras"]]
    return (f"files: composite {comp['ticks']} ticks, {comp['repeats']} repeats, cameras "
            f"{[c['framesCaptured'] for c in cams]} frames, {[c['framesDropped'] for c in cams]} dropped"
            f" ({'complete' if comp['ticks'] == seconds * 30 and comp['repeats'] == 0 and all(c['framesDropped'] == 0 for c in cams) else 'NOT complete'})")


def port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p


def latency(work, seconds):
    p = port()
    url = f"rtmp://127.0.0.1:{p}/live/key"
    rx = subprocess.Popen(["ffmpeg", "-hide_banner", "-loglevel", "error", "-listen", "1", "-i", url,
                           "-f", "rawvideo", "-pix_fmt", "gray", "-"], stdout=subprocess.PIPE)
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
    manifest, _, _ = demo(work, "latency", seconds, "640x360", ["--no-sound", "--stream", url])
    rx.wait(timeout=30); t.join()
    lat.sort()
    print(f"latency: {len(lat)} pictures received; glass to receiver median {lat[len(lat)//2]:.0f} ms, "
          f"p95 {lat[int(len(lat)*.95)]:.0f} ms, min {lat[0]:.0f} ms; {take_complete(manifest, seconds)}")


def cost(work, seconds):
    p = port()
    url = f"rtmp://127.0.0.1:{p}/live/key"
    _, _, without = demo(work, "cost-without", seconds, "1280x720", [])
    rx = subprocess.Popen(["ffmpeg", "-hide_banner", "-loglevel", "error", "-listen", "1", "-i", url, "-c", "copy", "-f", "null", "-"])
    time.sleep(1)
    _, _, with_stream = demo(work, "cost-with", seconds, "1280x720", ["--stream", url])
    rx.wait(timeout=30)
    print(f"cost at 1280x720p30, {seconds} s: without a stream: {without}\n                              with one:       {with_stream}")


def restart(work, seconds):
    p = port()
    url = f"rtmp://127.0.0.1:{p}/live/key"
    args = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-listen", "1", "-i", url, "-c", "copy", "-f", "null", "-"]
    rx = subprocess.Popen(args)

    def fault():
        time.sleep(seconds * 0.4 + 8)   # the demo's own start takes about 8 s
        rx.kill()
        time.sleep(3)
        globals()["rx2"] = subprocess.Popen(args)
    threading.Thread(target=fault, daemon=True).start()
    time.sleep(1)
    manifest, _, _ = demo(work, "restart", seconds, "640x360", ["--stream", url])
    s = manifest["liveOut"][0]
    print(f"restart: receiver killed mid-take and back 3 s later: {s['connections']} connections, {s['reconnects']} reconnects, "
          f"{s['liveSeconds']:.1f} s live, {s['droppedFrames']} frames not sent; events: "
          + "; ".join(f"{e['atSeconds']} s {e['what'][:60]}" for e in s["events"]) + f"; {take_complete(manifest, seconds)}")
    for r in ("rx2",):
        if r in globals(): globals()[r].kill()


def throttle(work, seconds):
    p, q = port(), port()
    url_rx = f"rtmp://127.0.0.1:{p}/live/key"
    rx = subprocess.Popen(["ffmpeg", "-hide_banner", "-loglevel", "error", "-listen", "1", "-i", url_rx, "-c", "copy", "-f", "null", "-"])
    rate = 300_000 // 8 // 3     # a third of the 300 kbit/s ceiling, bytes/s
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
    manifest, _, _ = demo(work, "throttle", seconds, "640x360", ["--stream", f"rtmp://127.0.0.1:{q}/live/key", "--stream-bitrate", "300k"])
    s = manifest["liveOut"][0]
    rx.kill()
    print(f"throttle: uplink at a third of the 300 kbit/s ceiling ({rate * 8 // 1000} kbit/s): {s['droppedFrames']} frames not sent of "
          f"{seconds * 30}, {s['bytes']} bytes sent, {s['reconnects']} reconnects; {take_complete(manifest, seconds)}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--only", default="latency,cost,restart,throttle")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="dualcam-live-out-")
    for name in args.only.split(","):
        globals()[name](work, args.seconds)
