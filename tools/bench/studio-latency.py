#!/usr/bin/env python3
"""Glass-to-glass latency of the studio's previews: camera capture instant to the picture
on the browser's screen.

A synthetic demo rig with the studio (dualcam-coordinator demo --studio; 1280x720
recording, the agents' 640x360 previews) records a take while headless Chromium shows
the page. N times, each camera's canvas.preview is screenshotted; the DCTC code in the
screenshot (shared/TIMECODE.md) is the capture instant of the picture on screen, and
CLOCK_MONOTONIC read just before the screenshot was asked for and just after it
returned bounds when it was taken. latency = midpoint - code (both bounds printed too).
Then the take is stopped and the rig's dropped frames printed.

Where the time goes: every preview message carries its agent's index and when the agent
sent it, the studio received it and wrote it (shared clock = CLOCK_MONOTONIC here); the
page adds when it arrived, was decoded and drawn (window.dualcamTrace). Mapping the page's
performance.now() onto CLOCK_MONOTONIC, the script prints each stage's median/p95/max for
the quiet watch and for the screenshots, what became of the pictures (drawn, skipped
waiting for a key frame, never sent by the agent), and the longest stalls with the stage
that made each.

Before the screenshots, --watch seconds (3) of watching only: the page's drawn frame rate
and the age of the picture last drawn into each canvas (window.dualcamStats), which is the
latency up to the canvas, without the compositor and without the screenshots' own load.

A screenshot's content is taken near the end of the call (after the compositor produced
a frame), so the midpoint tends to under-state the latency by up to half the shot time;
the after-bound column is a safe upper bound. The default method has the shortest shots.
On a 2-core machine the rig recording 1280x720 plus a software-rendered Chromium need
more than the machine has: compare with --size 640x360.

With WARM_SECONDS=S in the environment the watch begins S seconds after the take starts
recording (default 1), to tell the take's start (the agents' and the composite's preset
measurements) from the steady state.

  usage: tools/bench/studio-latency.py [-n 100] [--size 1280x720] [--method cdp|element|clip] [--watch 3]
  goals (issue 37), per camera: midpoint median <= 100 ms; after-bound p95 <= 150 ms; the
         canvas's picture age p95 <= 150 ms; >= 28 pictures drawn a second, watching and
         while screenshotting; 0 frames dropped by the rig. The exit status is 0 when all hold.
"""
import argparse
import base64
import json
import os
import statistics
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "Tests", "Browser"))
from playwright.sync_api import sync_playwright  # noqa: E402

import dctc_image  # noqa: E402
from studio_common import Demo, canvas_size, launch_chromium, mono_ns  # noqa: E402

GOAL_MEDIAN_MS = 100
GOAL_P95_MS = 150          # the after-bound's, and the canvas age's
GOAL_DRAWN_PER_SECOND = 28
PLAUSIBLE_MS = 2000  # a code further than this from the clock is a misread, not a latency


def percentile(values, p):
    """Nearest-rank percentile."""
    s = sorted(values)
    return s[max(0, min(len(s) - 1, int(-(-p * len(s) // 100)) - 1))]


def page_clock_offset_ns(page):
    """CLOCK_MONOTONIC ns minus performance.now() ns, from the tightest of 20 brackets."""
    best = None
    for _ in range(20):
        before = mono_ns()
        perf = page.evaluate("performance.now()")
        after = mono_ns()
        if best is None or after - before < best[0]:
            best = (after - before, (before + after) / 2 - perf * 1e6)
    return best[1]


STAGES = [("agent: capture to sent", "captureNs", "agentSentNs"),
          ("link: agent to studio", "agentSentNs", "hubReceivedNs"),
          ("studio: hub to socket", "hubReceivedNs", "writtenNs"),
          ("socket to page", "writtenNs", "arrivedNs"),
          ("page: decode", "arrivedNs", "decodedNs"),
          ("page: draw", "decodedNs", "drawnNs"),
          ("capture to drawn", "captureNs", "drawnNs")]


def stage_report(page, offset_ns, since_ms, title, until_ms=None):
    """Prints where the pictures of each camera spent their time since `since_ms`."""
    print(f"\nwhere the time went, {title} (ms, median / p95 / max; window.dualcamTrace):")
    for i in (0, 1):
        recs = page.evaluate(f"window.dualcamTrace.records({i}, {since_ms}, {until_ms or 'Infinity'})")
        for r in recs:
            for k in ("arrived", "decoded", "drawn"):
                r[k + "Ns"] = r[k + "Ms"] * 1e6 + offset_ns if r[k + "Ms"] else 0
        if not recs:
            print(f"  camera {i}: no pictures arrived")
            continue
        fates = {}
        for r in recs:
            fates[r["fate"]] = fates.get(r["fate"], 0) + 1
        idx = sorted(r["agentIndex"] for r in recs if r["agentIndex"])
        unsent = sum(b - a - 1 for a, b in zip(idx, idx[1:]) if b > a)
        keys = sum(1 for r in recs if r["key"])
        print(f"  camera {i}: {len(recs)} arrived ({keys} key frames): "
              + ", ".join(f"{n} {f}" for f, n in sorted(fates.items()))
              + f"; {unsent} encoded by the agent and not sent (gaps in its index)")
        for name, a, b in STAGES:
            d = [(r[b] - r[a]) / 1e6 for r in recs if r[a] and r[b]]
            if d:
                print(f"    {name:<24}{statistics.median(d):>8.1f}{percentile(d, 95):>8.1f}{max(d):>8.1f}   n={len(d)}")
        asks = page.evaluate(f"window.dualcamTrace.keyAsks({i}, {since_ms}, {until_ms or 'Infinity'})")
        key_waits = []
        for t in asks:
            later = [r["arrivedMs"] for r in recs if r["key"] and r["arrivedMs"] > t]
            if later:
                key_waits.append(min(later) - t)
        if asks:
            print(f"    key frames the page asked for: {len(asks)}; the next key frame arrived after median "
                  f"{statistics.median(key_waits) if key_waits else float('nan'):.0f} ms, max "
                  f"{max(key_waits) if key_waits else float('nan'):.0f} ms")
        drawn = [r for r in recs if r["fate"] == "drawn"]
        gaps = []
        for prev, nxt in zip(drawn, drawn[1:]):
            gap = (nxt["drawnNs"] - prev["drawnNs"]) / 1e6
            between = [r for r in recs if prev["arrivedNs"] < r["arrivedNs"] < nxt["arrivedNs"]]
            gaps.append((gap, prev, nxt, between))
        gaps.sort(key=lambda g: -g[0])
        for gap, prev, nxt, between in gaps[:4]:
            skipped = {}
            for r in between:
                skipped[r["fate"]] = skipped.get(r["fate"], 0) + 1
            lost = max(0, nxt["agentIndex"] - prev["agentIndex"] - 1 - len(between)) if nxt["agentIndex"] else 0
            worst = max(((name, (nxt[b] - nxt[a]) / 1e6) for name, a, b in STAGES[:-1] if nxt[a] and nxt[b]),
                        key=lambda t: t[1], default=("?", 0))
            print(f"    stall {gap:6.0f} ms: between them {len(between)} arrived "
                  f"({', '.join(f'{n} {f}' for f, n in skipped.items()) or 'none'}), {lost} never sent by the agent; "
                  f"the picture that ended it spent {worst[1]:.0f} ms in {worst[0]}"
                  + (" (a key frame)" if nxt["key"] else ""))


def wait_phase(page, phases, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        take = page.request.get("/api/state").json().get("take") or {}
        if take.get("phase") in phases:
            return take
        time.sleep(0.1)
    raise RuntimeError(f"the take did not reach {phases} in {timeout} s")


def command(page, csrf, body):
    r = page.request.post("/api/command", data=json.dumps(body),
                          headers={"Content-Type": "application/json", "X-DualCam-CSRF": csrf})
    if r.status != 200:
        raise RuntimeError(f"{body['command']}: {r.status} {r.text()}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=100, help="screenshots per camera (default 100)")
    ap.add_argument("--size", default="1280x720", help="the cameras' (and the recording's) size (default 1280x720)")
    ap.add_argument("--method", choices=["cdp", "element", "clip"], default="cdp",
                    help="cdp (default): DevTools Page.captureScreenshot clipped to the canvas, optimizeForSpeed "
                         "(the shortest shots, ~110 ms, so the tightest bounds); element: Playwright's element "
                         "screenshot (~330 ms: it waits for the element to be stable first); clip: Playwright's "
                         "page screenshot clipped to the canvas (~160 ms)")
    ap.add_argument("--watch", type=float, default=3.0,
                    help="seconds of watching without screenshots first (drawn rate, age of the drawn picture)")
    ap.add_argument("--format", choices=["png", "jpeg"], default="png",
                    help="the cdp method's picture format (jpeg at quality 90 encodes faster, so the shot and the "
                         "after-bound are shorter; the DCTC cells read the same)")
    ap.add_argument("--via-page", action="store_true", help="start and stop the take with the page's buttons")
    args = ap.parse_args()
    source = tuple(int(v) for v in args.size.split("x"))

    with Demo(size=args.size, name="studio-latency") as demo:
        try:
            return measure(args, source, demo)
        except Exception:
            print("the demo's log, to here:\n" + demo.log[-3000:], file=sys.stderr)
            raise


def measure(args, source, demo):
    with sync_playwright() as p:
        browser = launch_chromium(p)
        context = browser.new_context(viewport={"width": 1600, "height": 1000}, base_url=demo.local_url())
        page = context.new_page()
        page.goto(demo.local_url())
        page.wait_for_function("[0, 1].every(i => (window.dualcamStats.framesDrawn[i] || 0) > 0)", timeout=30_000)
        fmt = page.evaluate("document.body.dataset.previewFormat")
        state = page.request.get("/api/state").json()
        previews = {a["index"]: a.get("preview") for a in state["agents"]}
        print(f"studio {demo.local_url()}; cameras {args.size}; previews {previews}; page format {fmt}; "
              f"screenshots: {args.method}" + (f" {args.format}" if args.method == "cdp" else ""))

        if args.via_page:
            page.click("#record")
        else:
            command(page, state["csrf"], {"command": "start"})
        take = wait_phase(page, {"recording"}, 60)
        warm = float(os.environ.get("WARM_SECONDS", "1"))
        print(f"take {take['sessionID']} recording; warming up {warm:g} s")
        time.sleep(warm)

        # Without screenshots first: how fast the page draws, and how old the picture it drew
        # last is (window.dualcamStats.lastCapture is the drawn frame's capture instant in
        # CLOCK_MONOTONIC ns): capture to canvas, without the compositor and the screenshot.
        quiet_drawn0 = page.evaluate("({...window.dualcamStats.framesDrawn})")
        offset_ns = page_clock_offset_ns(page)
        quiet_since = page.evaluate("performance.now()")
        q0 = time.monotonic()
        drawn_ages = {0: [], 1: []}
        while time.monotonic() - q0 < args.watch:
            before = mono_ns()
            last = page.evaluate("({...window.dualcamStats.lastCapture})")
            after = mono_ns()
            for i in (0, 1):
                if str(i) in last:
                    drawn_ages[i].append(((before + after) / 2 - last[str(i)]) / 1e6)
            time.sleep(0.05)
        quiet_elapsed = time.monotonic() - q0
        quiet_drawn1 = page.evaluate("({...window.dualcamStats.framesDrawn})")
        quiet_fps = {i: (quiet_drawn1.get(str(i), 0) - quiet_drawn0.get(str(i), 0)) / quiet_elapsed for i in (0, 1)}

        canvases = {i: page.locator(f'canvas.preview[data-camera="{i}"]') for i in (0, 1)}
        sizes = {i: canvas_size(c) for i, c in canvases.items()}
        boxes = {i: c.bounding_box() for i, c in canvases.items()}
        cdp = context.new_cdp_session(page) if args.method == "cdp" else None

        def shot(i, box):
            if args.method == "element":
                return canvases[i].screenshot()
            if args.method == "clip":
                return page.screenshot(clip=box)
            clip = {**box, "scale": 1}
            params = {"format": args.format, "optimizeForSpeed": True, "clip": clip}
            if args.format == "jpeg":
                params["quality"] = 90
            return base64.b64decode(cdp.send("Page.captureScreenshot", params)["data"])

        samples = {0: [], 1: []}   # (lower, mid, upper) latency ms
        misreads = {0: 0, 1: 0}
        drawn0 = page.evaluate("({...window.dualcamStats.framesDrawn})")
        dropped0 = page.evaluate("({...window.dualcamStats.framesDropped})")
        shots_since = page.evaluate("performance.now()")
        t0 = time.monotonic()
        for _ in range(args.n):
            for i in (0, 1):
                before = mono_ns()
                png = shot(i, boxes[i])
                after = mono_ns()
                code = dctc_image.read_png(png, canvas=sizes[i], source=source)
                lo, hi = dctc_image.age_ms(code, before), dctc_image.age_ms(code, after)
                if not (-PLAUSIBLE_MS < lo and hi < PLAUSIBLE_MS):
                    misreads[i] += 1
                    # The page's panels may have grown during the take (a warning, the
                    # stream's health) and moved the canvas: shoot where it is now.
                    boxes[i] = canvases[i].bounding_box() or boxes[i]
                    continue
                samples[i].append((lo, (lo + hi) / 2, hi))
        elapsed = time.monotonic() - t0
        drawn1 = page.evaluate("({...window.dualcamStats.framesDrawn})")
        dropped1 = page.evaluate("({...window.dualcamStats.framesDropped})")
        during = page.request.get("/api/state").json()
        stage_report(page, offset_ns, quiet_since, f"watching only ({args.watch:g} s)", shots_since)
        stage_report(page, offset_ns, shots_since, f"while screenshotting ({elapsed:.0f} s)")

        if args.via_page:
            page.click("#stop")
        else:
            command(page, state["csrf"], {"command": "stop"})
        stopped = time.monotonic()
        take = wait_phase(page, {"done", "failed", "cancelled"}, 120)
        print(f"take {take['sessionID']} {take['phase']} {time.monotonic() - stopped:.1f} s after stop")

        print(f"\nglass-to-glass latency, {args.n} screenshots per camera over {elapsed:.1f} s "
              f"(latency = midpoint of the screenshot's CLOCK_MONOTONIC bounds - DCTC code)")
        head = (f"{'camera':<8}{'n':>5}{'median':>8}{'p95':>7}{'max':>7}{'min':>7}   {'after-bound median/p95':>23}"
                f"   {'before-bound median':>19}   {'shot ms':>7}   result")
        print(head)
        print("-" * len(head))
        ok_all = True
        for i in (0, 1):
            s = samples[i]
            if not s:
                print(f"{i:<8}{0:>5}  no readable screenshot")
                ok_all = False
                continue
            mids = [m for _, m, _ in s]
            his = [hi for _, _, hi in s]
            med, p95, mx, mn = statistics.median(mids), percentile(mids, 95), max(mids), min(mids)
            lo_med = statistics.median(lo for lo, _, _ in s)
            shot_med = statistics.median(hi - lo for lo, _, hi in s)
            # Screenshots mostly misread are no measurement: the few read say nothing. The
            # after-bound, not the midpoint, is held to the p95 goal: it cannot under-state.
            ok = med <= GOAL_MEDIAN_MS and percentile(his, 95) <= GOAL_P95_MS and misreads[i] <= args.n // 10
            ok_all &= ok
            print(f"{i:<8}{len(s):>5}{med:>8.0f}{p95:>7.0f}{mx:>7.0f}{mn:>7.0f}   "
                  f"{statistics.median(his):>15.0f} / {percentile(his, 95):<5.0f}   {lo_med:>19.0f}   {shot_med:>7.0f}   "
                  f"{'PASS' if ok else 'FAIL'}" + (f"  ({misreads[i]} misread)" if misreads[i] else ""))
        print("(ms; latency = midpoint; after-bound = CLOCK_MONOTONIC after the shot returned - code, an upper "
              "bound; before-bound = before it was asked - code, a lower bound)")
        print(f"goal: midpoint median <= {GOAL_MEDIAN_MS} ms, after-bound p95 <= {GOAL_P95_MS} ms per camera: "
              f"{'PASS' if ok_all else 'FAIL'}")

        fps = {i: (drawn1.get(str(i), 0) - drawn0.get(str(i), 0)) / max(elapsed, 1e-9) for i in (0, 1)}
        page_drops = {i: dropped1.get(str(i), 0) - dropped0.get(str(i), 0) for i in (0, 1)}
        print("age of the last picture drawn into each canvas (CLOCK_MONOTONIC - dualcamStats.lastCapture, "
              f"no screenshots, {args.watch:g} s): " + "; ".join(
                  f"camera {i} median {statistics.median(a):.0f} ms, p95 {percentile(a, 95):.0f} ms, max {max(a):.0f} ms"
                  for i, a in drawn_ages.items() if a))
        print(f"\nframes drawn per second (window.dualcamStats.framesDrawn): without screenshots "
              + ", ".join(f"camera {i} {quiet_fps[i]:.1f}" for i in (0, 1))
              + "; while screenshotting " + ", ".join(f"camera {i} {fps[i]:.1f}" for i in (0, 1))
              + f"; preview frames the page skipped while screenshotting (framesDropped): {page_drops}")
        telemetry = {a["index"]: a.get("telemetry") for a in during["agents"]}
        if any(telemetry.values()):
            print("rig during the take (state telemetry): " + "; ".join(
                f"camera {i}: {t['captureFPS']:.1f} fps captured, {t['framesDropped']} dropped" if t else f"camera {i}: none"
                for i, t in telemetry.items()))
        else:
            print("rig during the take: the state gave no telemetry (framesDropped)")
        files = take.get("files") or {}
        manifest_path = os.path.join(files.get("folder", ""), "manifest.json")
        if os.path.isfile(manifest_path):
            with open(manifest_path) as f:
                m = json.load(f)
            cams = ", ".join(f"{c['statistics']['name']} {c['statistics']['framesCaptured']} captured / "
                             f"{c['statistics']['framesDropped']} dropped" for c in m.get("cameras", []))
            comp = m.get("composite", {})
            print(f"rig's frames dropped (manifest, {m.get('durationSeconds', 0):.1f} s take): {cams}; combined file "
                  f"{comp.get('droppedFrames')} dropped, {comp.get('repeats')} repeats of {comp.get('ticks')} ticks")
            rig_dropped = sum(c["statistics"]["framesDropped"] for c in m.get("cameras", []))
        else:
            rig_dropped = None
        browser.close()

    # Every goal of issue 37, one line each, and the exit status from all of them.
    ages_ok = all(a and percentile(a, 95) <= GOAL_P95_MS for a in drawn_ages.values())
    drawn_ok = all(min(quiet_fps[i], fps[i]) >= GOAL_DRAWN_PER_SECOND for i in (0, 1))
    verdicts = [("glass to glass (midpoint median, after-bound p95)", ok_all),
                (f"canvas age p95 <= {GOAL_P95_MS} ms", ages_ok),
                (f">= {GOAL_DRAWN_PER_SECOND} pictures drawn a second, watching and screenshotting", drawn_ok),
                ("0 frames dropped by the rig", rig_dropped == 0)]
    print("\ngoals: " + "; ".join(f"{what}: {'PASS' if good else 'FAIL'}" for what, good in verdicts))
    return 0 if all(good for _, good in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
