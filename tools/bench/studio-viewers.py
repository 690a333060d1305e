#!/usr/bin/env python3
"""Do live previews cost recorded frames? A synthetic demo rig (dualcam-coordinator demo
--studio, 1280x720 by default) records a take of SECONDS while VIEWERS WebSocket clients
watch every camera's H.264 preview (no browser: its own CPU would be measured too), then
prints the preview pictures each viewer got and each camera's frames captured and
dropped from the manifest. Goal (issue 15): 0 recorded frames dropped with two viewers.

  tools/bench/studio-viewers.py [SECONDS=60] [VIEWERS=2] [--size WxH]
Needs .build/debug/dualcam-coordinator and python3-websockets (deploy/install-deps.sh --test).
"""
import argparse, asyncio, glob, json, os, re, shutil, signal, subprocess, tempfile, time, urllib.request

import websockets

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COORDINATOR = os.path.join(ROOT, ".build/debug/dualcam-coordinator")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("seconds", nargs="?", type=int, default=60)
    parser.add_argument("viewers", nargs="?", type=int, default=2)
    parser.add_argument("--size", default="1280x720")
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="dualcam-viewers-")
    log_path = os.path.join(scratch, "demo.log")
    # The demo's log goes to a file: a pipe nobody reads would fill and stall it.
    with open(log_path, "w") as log:
        demo = subprocess.Popen([COORDINATOR, "demo", "--studio", "--listen", "127.0.0.1:0", "--size", args.size,
                                 "--state", os.path.join(scratch, "state"), "--out", os.path.join(scratch, "out")],
                                stdout=log, stderr=log, start_new_session=True)
    try:
        port = None
        deadline = time.time() + 60
        while port is None and time.time() < deadline and demo.poll() is None:
            time.sleep(0.3)
            found = re.search(r"studio: open http://127\.0\.0\.1:(\d+)/", open(log_path).read())
            port = int(found.group(1)) if found else None
        if port is None:
            raise SystemExit("the demo's studio did not start:\n" + open(log_path).read()[-2000:])
        base = f"http://127.0.0.1:{port}"
        csrf = json.load(urllib.request.urlopen(base + "/api/state"))["csrf"]

        def command(body):
            request = urllib.request.Request(base + "/api/command", data=json.dumps(body).encode(),
                                             headers={"X-DualCam-CSRF": csrf, "Content-Type": "application/json"})
            urllib.request.urlopen(request).read()

        pictures = [0] * args.viewers

        async def viewer(i):
            async with websockets.connect(f"ws://127.0.0.1:{port}/ws", origin=f"http://127.0.0.1:{port}",
                                          max_size=None) as socket:
                await socket.send(json.dumps({"type": "preview", "format": "h264"}))
                end = time.time() + args.seconds
                while time.time() < end:
                    try:
                        message = await asyncio.wait_for(socket.recv(), 1)
                    except asyncio.TimeoutError:
                        continue
                    if isinstance(message, bytes):
                        pictures[i] += 1

        async def take():
            command({"command": "start"})
            await asyncio.gather(*(viewer(i) for i in range(args.viewers)))
            command({"command": "stop"})

        asyncio.run(take())
        manifests = []
        deadline = time.time() + 60
        while not manifests and time.time() < deadline:
            time.sleep(0.5)
            manifests = glob.glob(os.path.join(scratch, "out", "*", "manifest.json"))
        if not manifests:
            raise SystemExit("the take did not finish:\n" + open(log_path).read()[-2000:])
        manifest = json.load(open(manifests[0]))
        print(f"{args.viewers} viewers, {args.size} recording, take {manifest['durationSeconds']:.1f} s")
        print("preview pictures per viewer (all cameras):", pictures,
              f"= {[round(p / args.seconds, 1) for p in pictures]} a second")
        dropped = 0
        for camera in manifest["cameras"]:
            s = camera["statistics"]
            dropped += s["framesDropped"]
            print(f"  {camera['file']}: {s['framesCaptured']} frames captured, {s['framesDropped']} dropped")
        print("goal: 0 recorded frames dropped:", "PASS" if dropped == 0 else "FAIL")
    finally:
        os.killpg(demo.pid, signal.SIGINT)
        demo.wait()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
