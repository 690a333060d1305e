#!/usr/bin/env python3
"""The director in the studio, in a real browser (headless Chromium through Playwright):
a demo rig whose two agents play a scripted espeak-ng conversation as their microphones
(`demo --studio --director auto --audio-files`), recorded from the page. The Director
panel shows whom it hears speaking and whose shot is on air, the programme preview cuts
to a single camera and then to the other, and Take over / Hand back change who has the
programme.

usage: director_test.py   (exit 1 on a failed check)
"""
import os
import subprocess
import sys
import tempfile
import time

from playwright.sync_api import sync_playwright

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from studio_common import ROOT, Checks, Demo, launch_chromium, open_demo_page, run_test  # noqa: E402

SCRIPT = """person host  en-us+m3
person guest en-gb+f2

0.6        host   say    Welcome back. Today my guest builds cameras that keep perfect time, and we talk about it.
end+0.5    guest  say    Thank you for having me. It is a real pleasure to be here with you today, truly.
end+0.6    host   say    So tell me, why does the timing matter so much when you film a conversation?
end+0.5    guest  say    Because every camera has its own clock, and none of them agree with each other.
"""

check = Checks()



def main():
    started = time.monotonic()
    work = tempfile.mkdtemp(prefix="dualcam-director-browser-")
    with open(os.path.join(work, "script.txt"), "w") as f:
        f.write(SCRIPT)
    subprocess.run([sys.executable, os.path.join(ROOT, "tools/conversation/make-conversation.py"),
                    os.path.join(work, "script.txt"), "--out", os.path.join(work, "talk")], check=True, capture_output=True)
    files = ",".join(os.path.join(work, "talk", n + ".wav") for n in ("host", "guest"))
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            with Demo(size="640x360", name="studio-director", extra=["--director", "auto", "--audio-files", files]) as demo:
                page, errors = open_demo_page(browser, demo)
                check(page.is_hidden("#director"), "before a take: no Director panel")
                page.click("#record")
                page.wait_for_selector("#record[data-state='recording']", timeout=60_000)
                page.wait_for_selector("#director:not([hidden])", timeout=15_000)
                check(True, "recording with --director auto: the Director panel is shown")
                # Watch the panel and the programme preview for the conversation's turns.
                page.evaluate("""() => {
                    window.__director = {speaking: new Set(), onAir: [], shown: []};
                    const note = () => {
                        for (const v of document.querySelectorAll('#director-voices .voice')) {
                            if (v.dataset.speaking === 'true') window.__director.speaking.add(v.dataset.camera);
                            if (v.dataset.onAir === 'true') {
                                const a = window.__director.onAir;
                                if (a[a.length - 1] !== v.dataset.camera) a.push(v.dataset.camera);
                            }
                        }
                        const s = document.getElementById('composite').dataset.shown;
                        const list = window.__director.shown;
                        if (list[list.length - 1] !== s) list.push(s);
                    };
                    setInterval(note, 50);
                    note();
                }""")
                deadline = time.monotonic() + 40
                seen = None
                while time.monotonic() < deadline:
                    seen = page.evaluate("({speaking: [...window.__director.speaking], onAir: window.__director.onAir,"
                                         " shown: window.__director.shown})")
                    if len(seen["speaking"]) >= 2 and len([s for s in seen["shown"] if s and " " not in s]) >= 2:
                        break
                    time.sleep(0.5)
                print(f"  heard speaking: cameras {seen['speaking']}; on air: {seen['onAir']}; programme preview: {seen['shown']}")
                check(sorted(seen["speaking"]) == ["0", "1"], "the panel lit each camera's speaker in turn")
                singles = [s for s in seen["shown"] if s and " " not in s]
                check(len(singles) >= 2 and singles[0] != singles[1],
                      f"the programme preview cut from the wide shot to one camera, then to the other ({seen['shown']})")
                check(seen["onAir"][:2] == singles[:2], "the panel's on-air mark follows the cuts")

                page.click("#director-take-over")
                page.wait_for_selector("#director-hand-back:not([hidden])", timeout=10_000)
                check("You have the programme" in page.text_content("#director-status"),
                      "Take over: the operator has the programme, and the page says so")
                page.wait_for_function("document.getElementById('composite').dataset.shown.includes(' ')", timeout=10_000)
                check(True, "taken over: the programme preview is the operator's layout (both cameras)")
                page.click("#director-hand-back")
                page.wait_for_selector("#director-take-over:not([hidden])", timeout=10_000)
                check("The director cuts" in page.text_content("#director-status"), "Hand back: the director has it again")
                page.click("#stop")
                page.wait_for_selector("#record[data-state='done']", timeout=120_000)
                check(not errors, f"no JavaScript errors ({errors})")
        finally:
            browser.close()
    print(f"\nstudio director browser test: {len(check.passed)} checks passed in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    run_test("studio director browser test", main, check)
