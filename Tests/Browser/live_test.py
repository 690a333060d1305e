#!/usr/bin/env python3
"""Live out in the studio, in a real browser (headless Chromium through Playwright): a
demo rig that streams its programme to an `ffmpeg -listen 1` RTMP receiver on loopback
(`demo --studio --stream rtmp://…`). Go live with no take streams without recording
(ON AIR · not recording) and End live leaves nothing in the library. Stop recording,
stay live keeps the take's files and streams on (the gap in the programme is printed).
Recording from the page puts the ON AIR mark in the
header and the destination's health (live, kbit/s) in the take panel, the stream key
shows nowhere on the page or in its state, and the mark goes when the take ends. A layout
clicked mid-take shows in what the receiver got: its pictures are the take's first layout
(pip: the host's code in the middle of the frame), then the one clicked (split-horizontal:
the host's code in the middle of the left half), read by tools/dctc_read.py.

usage: live_test.py   (exit 1 on a failed check)
"""
import os
import random
import subprocess
import sys
import tempfile
import time

from playwright.sync_api import sync_playwright

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import dctc_read  # noqa: E402
from studio_common import Checks, Demo, launch_chromium, open_demo_page, run_test  # noqa: E402

check = Checks()
KEY = f"live-test-{random.randint(100000, 999999)}-secret"


def main():
    started = time.monotonic()
    work = tempfile.mkdtemp(prefix="dualcam-live-browser-")
    port = random.randint(40000, 49999)
    url = f"rtmp://127.0.0.1:{port}/live/{KEY}"
    received = os.path.join(work, "received.flv")

    def listen(path):  # ffmpeg -listen 1 takes one connection: a new one for Go live
        return subprocess.Popen(["ffmpeg", "-hide_banner", "-loglevel", "quiet", "-listen", "1", "-i", url, "-c", "copy",
                                 "-y", path], stdin=subprocess.DEVNULL)
    live_only = os.path.join(work, "live-only.flv")
    receiver = listen(live_only)
    time.sleep(1)
    try:
        with sync_playwright() as p:
            browser = launch_chromium(p)
            try:
                with Demo(size="640x360", name="studio-live", extra=["--stream", url]) as demo:
                    page, errors = open_demo_page(browser, demo)
                    check(page.is_hidden("#on-air-mark"), "before a take: no ON AIR mark")
                    live_without_recording(page, demo, receiver)
                    receiver = listen(received)
                    time.sleep(1)
                    page.click("#record")
                    page.wait_for_selector("#record[data-state='recording']", timeout=60_000)
                    page.wait_for_selector("#on-air-mark:not([hidden])", timeout=30_000)
                    check(True, "recording with --stream: the header shows ON AIR")
                    page.wait_for_function("[...document.querySelectorAll('#live-out li')].some(l => l.dataset.state === 'live'"
                                           " && / [1-9][0-9]* kbit\\/s/.test(l.textContent))", timeout=15_000)
                    line = page.text_content("#live-out li")
                    print(f"  the take panel says: {line}")
                    check(f"rtmp://127.0.0.1:{port}/live/****" in line, "the destination is named with its key masked")
                    state = page.evaluate("fetch('/api/state').then(r => r.text())")
                    check(KEY not in page.content() and KEY not in state, "the key is nowhere on the page or in its state")
                    # The stream follows the combined picture, which is built from the
                    # segments (seconds behind): the new layout needs that long to go out.
                    page.click('button[data-layout="split-horizontal"]')
                    time.sleep(7)
                    page.click("#live-toggle")
                    page.wait_for_selector("#on-air-mark", state="hidden", timeout=10_000)
                    page.wait_for_function("[...document.querySelectorAll('#live-out li')].every(l => l.dataset.state === 'off')",
                                           timeout=10_000)
                    check(page.text_content("#live-toggle") == "Go live", "End live: off the air, the take still recording")
                    check(page.get_attribute("#record", "data-state") == "recording", "the take records on")
                    receiver.wait(timeout=10)
                    receiver = listen(os.path.join(work, "again.flv"))
                    page.click("#live-toggle")
                    page.wait_for_selector("#on-air-mark:not([hidden])", timeout=30_000)
                    check(True, "Go live: on the air again")
                    time.sleep(2)
                    asked = []
                    page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
                    page.click("#stop")
                    time.sleep(1)
                    check(len(asked) == 1 and "Stop ends the live stream too" in asked[0]
                          and "Stop recording, stay live" in asked[0],
                          f"Stop on the air asked first, saying the stream ends with the take ({asked})")
                    check(page.get_attribute("#record", "data-state") == "recording", "answered no: the take records on")
                    stay_live(page, demo, receiver, listen, work)
                    check(not errors, f"no JavaScript errors ({errors})")
            finally:
                browser.close()
    finally:
        try:
            receiver.wait(timeout=10)
        except subprocess.TimeoutExpired:
            receiver.kill()
    # Each connection (live only, before End live, after Go live, after Stop recording)
    # delivered pictures (how many is the page's timing: the first lasts from ON AIR to the click).
    names = ("live-only.flv", "received.flv", "again.flv", "after-recording.flv")
    sizes = [os.path.getsize(os.path.join(work, f)) if os.path.exists(os.path.join(work, f)) else 0 for f in names]
    check(all(size > 20_000 for size in sizes),
          f"the receiver got the programme live without recording, before End live, after Go live and after "
          f"Stop recording ({sizes} bytes)")
    gap = programme_gap(os.path.join(work, "again.flv"), os.path.join(work, "after-recording.flv"))
    print(f"  Stop recording, stay live: the stream skipped {gap:.2f} s of the programme" if gap is not None
          else "  Stop recording, stay live: the gap could not be read")
    check(gap is not None and 0 < gap < 10, f"the stream went on after Stop recording, with a gap under 10 s ({gap})")
    layouts = layouts_received(received)
    print(f"  layouts in what the receiver got, in order (runs of frames): {layouts}")
    names = [name for name, _ in layouts if name != "unread"]
    check(names[:1] == ["pip"] and "split-horizontal" in names
          and sum(n for name, n in layouts if name == "split-horizontal") >= 30,
          "the layout clicked mid-take shows in the stream: pip, then at least a second of split-horizontal")
    print(f"\nstudio live-out browser test: {len(check.passed)} checks passed in {time.monotonic() - started:.0f} s")


def live_without_recording(page, demo, receiver):
    """Go live with no take: the programme streams, the page says nothing is recorded,
    and End live leaves no session in the library."""
    check(page.text_content("#live-toggle") == "Go live" and page.is_visible("#live-toggle"),
          "before a take, with --stream: Go live is offered")
    page.click("#live-toggle")
    page.wait_for_selector("#on-air-mark:not([hidden])", timeout=60_000)
    check(page.text_content("#on-air-mark") == "ON AIR · not recording", "Go live with no take: ON AIR, not recording")
    check(page.text_content("#phase") == "Live, not recording" and page.is_enabled("#record")
          and not page.is_enabled("#stop"), "the page says nothing is recorded, and Record is there to keep it")
    time.sleep(3)
    page.click("#live-toggle")
    page.wait_for_selector("#record[data-state='done']", timeout=60_000)
    page.wait_for_selector("#on-air-mark", state="hidden", timeout=10_000)
    said = page.text_content("#take-text")
    check(said.startswith("Live ended. Nothing was kept"), f"the take panel says nothing was kept, not that files are ready ({said!r})")
    receiver.wait(timeout=15)
    left = [n for n in os.listdir(demo.out) if not n.startswith(".")] if os.path.isdir(demo.out) else []
    check(left == [], f"End live: the take that was only live left nothing in the library ({left})")
    check(any("nothing kept: this take was live without recording" in line for line in demo.lines),
          "the terminal says nothing was kept")
    freed = [line for line in demo.lines if "removed its spooled copy" in line]
    check(len(freed) == 2, f"each agent freed its spool of it ({freed})")


def stay_live(page, demo, receiver, listen, work):
    """Stop recording, stay live: the take's files are kept, and the programme goes on
    streaming from a take that is only live (a new connection); End live then keeps
    nothing more."""
    check(page.is_visible("#stop-recording"), "while recording and live: Stop recording, stay live is offered")
    ended_with = receiver
    receiver = listen(os.path.join(work, "after-recording.flv"))
    time.sleep(1)
    clicked = time.monotonic()
    page.click("#stop-recording")
    page.wait_for_function("document.getElementById('on-air-mark').textContent === 'ON AIR · not recording'"
                           " && !document.getElementById('on-air-mark').hidden", timeout=60_000)
    print(f"  Stop recording to ON AIR · not recording on the page: {time.monotonic() - clicked:.1f} s")
    check(page.is_hidden("#stop-recording") and page.is_enabled("#record"),
          "only live now: Record is offered again, Stop recording is not")
    # The take that is only live has a folder too while it runs (deleted as it ends).
    kept = [n for n in os.listdir(demo.out) if os.path.exists(os.path.join(demo.out, n, "manifest.json"))]
    check(len(kept) == 1, f"the recorded take's files are in the library ({kept})")
    ended_with.wait(timeout=15)
    time.sleep(3)
    page.click("#live-toggle")
    page.wait_for_selector("#record[data-state='done']", timeout=60_000)
    page.wait_for_selector("#on-air-mark", state="hidden", timeout=10_000)
    left = [n for n in os.listdir(demo.out) if not n.startswith(".")]
    check(left == kept, f"End live: only the recorded take stays ({left})")
    receiver.wait(timeout=15)


def programme_gap(before, after, size=(640, 360)):
    """Seconds of the programme between the last picture of one connection and the first
    of the next: the host's DCTC codes (split-horizontal, the layout clicked, which the
    take that is only live goes on with), each taken only where the next or last picture
    reads a frame apart (a code read right)."""
    w, h = size

    def codes(path):
        return [dctc_read.read_code(y, slot=(0, 0, w // 2, h), source=size) for y in dctc_read.frames(path)]
    try:
        a, b = codes(before), codes(after)
    except Exception as e:  # noqa: BLE001 (a file that does not decode has no gap to read)
        print(f"  reading the programme's codes failed: {e}")
        return None
    def step(x, y):
        return 300 <= dctc_read.signed_diff(y, x) <= 367
    last = next((a[i] for i in range(len(a) - 1, 0, -1) if step(a[i - 1], a[i])), None)
    first = next((b[i] for i in range(len(b) - 1) if step(b[i], b[i + 1])), None)
    if last is None or first is None:
        return None
    return dctc_read.signed_diff(first, last) / 10_000


def layouts_received(path, size=(640, 360)):
    """Runs of (layout, frames) in a received stream, each frame's layout told by where
    the host's DCTC code reads as a code: codes that advance by one frame (33.3 ms) from
    the frame before, in the middle of the picture (pip) or of its left half
    (split-horizontal); a frame that fits neither is "unread"."""
    w, h = size
    slots = {"pip": None, "split-horizontal": (0, 0, w // 2, h)}
    previous = {name: None for name in slots}
    runs = []
    for y in dctc_read.frames(path):
        fits = []
        for name, slot in slots.items():
            code = dctc_read.read_code(y, slot=slot, source=size if slot else None)
            last = previous[name]
            previous[name] = code
            if last is not None and 300 <= dctc_read.signed_diff(code, last) <= 367:
                fits.append(name)
        name = fits[0] if len(fits) == 1 else "unread"
        if runs and runs[-1][0] == name:
            runs[-1][1] += 1
        else:
            runs.append([name, 1])
    return [(name, n) for name, n in runs]


if __name__ == "__main__":
    run_test("studio live-out browser test", main, check)
