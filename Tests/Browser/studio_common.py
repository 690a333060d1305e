"""What the studio's browser test and latency bench share: a demo rig with the studio
(dualcam-coordinator demo --studio) started and ended by them, and headless Chromium."""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
COORDINATOR = os.environ.get("DUALCAM_COORDINATOR", os.path.join(ROOT, ".build", "debug", "dualcam-coordinator"))
CHROMIUM = os.environ.get("DUALCAM_CHROMIUM", "/usr/bin/chromium")


def mono_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


class Demo:
    """`demo --studio` in its own process group, with its own --state and --out folders
    under a temporary folder (removed afterwards unless it failed or DUALCAM_KEEP_DEMO is
    set). Its stderr is kept (self.log) and watched for the studio's URL. Ended with
    SIGINT (the coordinator then stops its agents), SIGKILL if it hangs; agents still
    alive after that are killed by the pids it printed."""

    def __init__(self, listen="127.0.0.1:0", size=None, extra=(), name="demo"):
        self.dir = tempfile.mkdtemp(prefix=f"dualcam-{name}-")
        self.state = os.path.join(self.dir, "state")
        self.out = os.path.join(self.dir, "out")
        self.args = [COORDINATOR, "demo", "--studio", "--listen", listen, "--state", self.state, "--out", self.out]
        if size:
            self.args += ["--size", size]
        self.args += list(extra)
        self.lines = []
        self.agent_pids = []
        self.url = None
        self.proc = None
        self._changed = threading.Condition()

    @property
    def log(self):
        return "".join(self.lines)

    def start(self, timeout=90):
        """Starts it and waits for `studio: open URL`. A binary being rebuilt meanwhile
        (briefly missing) or a start that fails is retried, twice."""
        last = ""
        for attempt in range(3):
            deadline = time.monotonic() + 60
            while not os.path.exists(COORDINATOR) and time.monotonic() < deadline:
                time.sleep(1)
            try:
                self._spawn()
            except OSError as e:  # ENOENT/ETXTBSY while the binary is replaced
                last = str(e)
                time.sleep(3)
                continue
            if self._wait_url(timeout):
                return self
            last = self.log[-2000:]
            self.stop()
            time.sleep(2)
        raise RuntimeError(f"the demo did not print its studio URL: {' '.join(self.args)}\n{last}")

    def _spawn(self):
        self.lines, self.agent_pids, self.url = [], [], None
        self.proc = subprocess.Popen(self.args, cwd=self.dir, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, start_new_session=True)
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()

    def _read(self, proc):
        for line in proc.stdout:
            with self._changed:
                self.lines.append(line)
                m = re.search(r"started agent \S+ \(pid (\d+)", line)
                if m:
                    self.agent_pids.append(int(m.group(1)))
                m = re.search(r"studio: open (\S+)", line)
                if m and self.url is None:
                    self.url = m.group(1)
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def _wait_url(self, timeout):
        deadline = time.monotonic() + timeout
        with self._changed:
            while self.url is None and self.proc.poll() is None and time.monotonic() < deadline:
                self._changed.wait(0.5)
        return self.url is not None

    def wait_for_line(self, pattern, timeout=10, after=0):
        """The first log line from index `after` on that matches, or None."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for line in self.lines[after:]:
                    if re.search(pattern, line):
                        return line
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    return None
                self._changed.wait(min(left, 0.5))

    @property
    def port(self):
        return int(re.match(r"https?://[^/]*:(\d+)/", self.url).group(1))

    def local_url(self, path="/"):
        """The studio on this machine (the printed URL names the host, which may not resolve)."""
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGINT)
                self.proc.wait(15)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait(5)
        # --exit-with-parent ends the agents with the coordinator; make sure, by their pids.
        deadline = time.monotonic() + 5
        for pid in self.agent_pids:
            while _is_agent(pid) and time.monotonic() < deadline:
                time.sleep(0.1)
            if _is_agent(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def __enter__(self):
        return self.start()

    def __exit__(self, kind, value, tb):
        self.stop()
        if kind is None and not os.environ.get("DUALCAM_KEEP_DEMO"):
            shutil.rmtree(self.dir, ignore_errors=True)
            # The demo's agents keep their state and spools in /tmp/dualcam-demo-PID-*, which
            # the coordinator leaves behind when Ctrl-C ends it.
            for leftover in glob.glob(os.path.join(tempfile.gettempdir(), f"dualcam-demo-{self.proc.pid}-*")):
                shutil.rmtree(leftover, ignore_errors=True)
        else:
            code = self.proc.returncode if self.proc else None
            tail = "".join(self.lines[-15:])
            print(f"(the demo exited with {code}; its folders are kept in {self.dir}; the end of its log:)\n{tail}",
                  file=sys.stderr)


def _is_agent(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"dualcam-agent" in f.read()
    except OSError:
        return False


def launch_chromium(playwright):
    # The system's Chromium (deploy/install-deps.sh), never a downloaded one; as root
    # without the right to raise its own priority, as a desktop user's (chromium-as-user.sh).
    executable = CHROMIUM
    if os.geteuid() == 0 and shutil.which("setpriv"):
        executable = os.path.join(os.path.dirname(os.path.abspath(__file__)), "chromium-as-user.sh")
        os.environ["DUALCAM_CHROMIUM"] = CHROMIUM
    # DUALCAM_CHROMIUM_ARGS adds flags for an experiment (e.g. --disable-gpu).
    return playwright.chromium.launch(executable_path=executable, headless=True,
                                      args=["--no-sandbox"] + os.environ.get("DUALCAM_CHROMIUM_ARGS", "").split())


def canvas_size(locator):
    return tuple(locator.evaluate("c => [c.width, c.height]"))


class Checks:
    """An assert that also lists what passed: `check(condition, what)`."""

    def __init__(self):
        self.passed = []

    def __call__(self, condition, what):
        print(("ok   " if condition else "FAIL ") + what, flush=True)
        if not condition:
            raise AssertionError(what)
        self.passed.append(what)


def run_test(title, main, checks):
    """Runs `main`; a failed check or a timeout prints the trace and exits 1."""
    import traceback
    try:
        main()
    except Exception as e:  # an assert, or a timeout waiting for the page
        traceback.print_exc()
        passed = len(getattr(checks, "passed", checks))
        print(f"\n{title} FAILED after {passed} checks passed: {e}", file=sys.stderr)
        sys.exit(1)


def open_demo_page(browser, demo):
    """A page on the demo's studio, its link live; JavaScript errors collect in the list."""
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(demo.local_url(), wait_until="load")
    page.wait_for_selector("#link[data-state='live']", timeout=30_000)
    return page, errors
