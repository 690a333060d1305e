#!/usr/bin/env python3
"""Live out in the studio, in a real browser (headless Chromium through Playwright): a
demo rig that streams its programme to an `ffmpeg -listen 1` RTMP receiver on loopback
(`demo --studio --stream rtmp://…`). Recording from the page puts the ON AIR mark in the
header and the destination's health (live, kbit/s) in the take panel, the stream key
shows nowhere on the page or in its state, and the mark goes when the take ends.

usage: live_test.py   (exit 1 on a failed check)
"""
import os
import random
import subprocess
import sys
import tempfile
import time

from playwright.sync_api import sync_playwright

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
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
    receiver = listen(received)
    time.sleep(1)
    try:
        with sync_playwright() as p:
            browser = launch_chromium(p)
            try:
                with Demo(size="640x360", name="studio-live", extra=["--stream", url]) as demo:
                    page, errors = open_demo_page(browser, demo)
                    check(page.is_hidden("#on-air-mark"), "before a take: no ON AIR mark")
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
                    page.click("#stop")
                    page.wait_for_selector("#record[data-state='done']", timeout=120_000)
                    page.wait_for_selector("#on-air-mark", state="hidden", timeout=10_000)
                    check(True, "the take ended: the ON AIR mark is gone")
                    check(not errors, f"no JavaScript errors ({errors})")
            finally:
                browser.close()
    finally:
        try:
            receiver.wait(timeout=10)
        except subprocess.TimeoutExpired:
            receiver.kill()
    # Each connection, before End live and after Go live, delivered pictures (how many is
    # the page's timing: the first lasts from ON AIR to the click).
    sizes = [os.path.getsize(f) if os.path.exists(f) else 0 for f in (received, os.path.join(work, "again.flv"))]
    check(all(size > 20_000 for size in sizes), f"the receiver got the programme before End live and after Go live ({sizes} bytes)")
    print(f"\nstudio live-out browser test: {len(check.passed)} checks passed in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    run_test("studio live-out browser test", main, check)
