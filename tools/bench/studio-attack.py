#!/usr/bin/env python3
"""The studio under attack during a take (issue 36): what strangers and one misbehaving
viewer cost a rig that records.

A synthetic demo rig with the studio listening beyond loopback (dualcam-coordinator demo
--studio --listen 0.0.0.0:0, so a token is required) records a take started through the
studio's own API. While it records:

  1. N idle TCP connections (default 1,100) are opened to the studio from this host,
     which has no token: how many it holds after a second and after its deadline, and the
     coordinator's open descriptors (/proc/PID/fd) at the peak;
  2. one authenticated WebSocket sends M preview toggles (default 20,000) as fast as it
     can: whether it is told and closed, and the slowest GET /api/state meanwhile;
  3. G wrong tokens (default 1,000): how many are answered 429 without being checked, and
     how many log lines they cost;
then the take is stopped: its phase, its warnings and "files final … after the stop".

  usage: tools/bench/studio-attack.py [--idle 1100] [--toggles 20000] [--guesses 1000] [--take 20]
  goal:  the take ends done; idle connections held <= 16 and none after 10 s; the flood
         closed; GET /api/state under 1 s throughout
"""
import argparse
import json
import os
import re
import resource
import socket
import struct
import sys
import threading
import time
import urllib.error
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "Tests", "Browser"))
from studio_common import Demo  # noqa: E402


class Studio:
    def __init__(self, demo):
        self.port = demo.port
        token = re.search(r"token=([0-9a-f]+)", demo.url).group(1)
        status, headers, _ = self.request("GET", f"/?token={token}")
        assert status == 303, f"the token was refused: {status}"
        self.cookie = headers["Set-Cookie"].split(";")[0]
        self.csrf = self.json("GET", "/api/state")["csrf"]

    def request(self, method, path, body=None, cookie=True, timeout=30):
        conn_headers = {"Host": f"127.0.0.1:{self.port}"}
        if cookie and getattr(self, "cookie", None):
            conn_headers["Cookie"] = self.cookie
        if body is not None:
            conn_headers["Content-Type"] = "application/json"
            conn_headers["X-DualCam-CSRF"] = self.csrf
        import http.client
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=conn_headers)
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()

    def json(self, method, path, body=None):
        status, _, data = self.request(method, path, body)
        assert status == 200, f"{method} {path}: {status} {data[:300]!r}"
        return json.loads(data)

    def timed_state(self):
        started = time.monotonic()
        status, _, _ = self.request("GET", "/api/state")
        return status, time.monotonic() - started


def open_fds(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def idle_connections(studio, pid, n, deadline_s):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    before = open_fds(pid)
    sockets, refused = [], 0
    for _ in range(n):
        try:
            sockets.append(socket.create_connection(("127.0.0.1", studio.port), timeout=5))
        except OSError:
            refused += 1
    peak = open_fds(pid)

    def still_open():
        alive = 0
        for s in sockets:
            s.setblocking(False)
            try:
                alive += 0 if s.recv(1) == b"" else 1
            except BlockingIOError:
                alive += 1
            except OSError:
                pass
        return alive

    time.sleep(1)
    after_1s = still_open()
    status, took = studio.timed_state()
    time.sleep(deadline_s + 1)
    after_deadline = still_open()
    for s in sockets:
        s.close()
    print(f"  {n} idle connections ({refused} refused by the kernel): {after_1s} held after 1 s, "
          f"{after_deadline} after {deadline_s + 2:.0f} s; coordinator descriptors {before} before, {peak} at the peak; "
          f"GET /api/state with the cookie meanwhile {status} in {took * 1000:.0f} ms")
    return after_1s, after_deadline


def ws_frame(text):
    payload = text.encode()
    mask = os.urandom(4)
    return bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def flood(studio, toggles):
    s = socket.create_connection(("127.0.0.1", studio.port), timeout=15)
    s.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{studio.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
               f"Origin: http://127.0.0.1:{studio.port}\r\nCookie: {studio.cookie}\r\n\r\n").encode())
    data = b""
    while b"\r\n\r\n" not in data:
        data += s.recv(4096)
    assert data.startswith(b"HTTP/1.1 101"), data[:200]
    heard = {"notice": None, "closed": False}
    rest = [data.split(b"\r\n\r\n", 1)[1]]

    def read():
        buffer = rest[0]
        while True:
            try:
                chunk = s.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                heard["closed"] = True
                return
            buffer += chunk
            while len(buffer) >= 2:
                length, offset = buffer[1] & 0x7F, 2
                if length == 126:
                    if len(buffer) < 4:
                        break
                    length, offset = struct.unpack(">H", buffer[2:4])[0], 4
                elif length == 127:
                    if len(buffer) < 10:
                        break
                    length, offset = struct.unpack(">Q", buffer[2:10])[0], 10
                if len(buffer) < offset + length:
                    break
                opcode, payload = buffer[0] & 0x0F, buffer[offset:offset + length]
                buffer = buffer[offset + length:]
                if opcode == 1 and b'"notice"' in payload and b"closed this page" in payload:
                    heard["notice"] = json.loads(payload)["text"]
                if opcode == 8:
                    heard["closed"] = True

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    frames = [ws_frame(json.dumps({"type": "preview", "format": "h264" if i % 2 == 0 else "none"})) for i in range(toggles)]
    sent = [0]

    def write():
        for frame in frames:
            try:
                s.sendall(frame)
            except OSError:
                return
            sent[0] += 1

    writer = threading.Thread(target=write, daemon=True)
    started = time.monotonic()
    writer.start()
    slowest = 0.0
    while time.monotonic() - started < 5 or (writer.is_alive() and time.monotonic() - started < 120):
        status, took = studio.timed_state()
        slowest = max(slowest, took)
        time.sleep(0.05)
    reader.join(5)
    s.close()
    print(f"  {toggles} preview toggles from one viewer: {sent[0]} written; closed: {heard['closed']}; "
          f"told: {heard['notice']!r}; slowest GET /api/state over {time.monotonic() - started:.1f} s: {slowest * 1000:.0f} ms")
    return heard["closed"], slowest


def guesses(studio, demo, n):
    lines_before = len(demo.lines)
    started = time.monotonic()
    counts = {}
    for i in range(n):
        status, _, _ = studio.request("GET", f"/?token=guess{i}", cookie=False)
        counts[status] = counts.get(status, 0) + 1
    took = time.monotonic() - started
    logged = sum(1 for line in demo.lines[lines_before:] if "wrong tokens" in line)
    print(f"  {n} wrong tokens in {took:.1f} s ({n / took:.0f} a second): answers {counts}; log lines about them: {logged}")
    return counts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--idle", type=int, default=1100)
    parser.add_argument("--toggles", type=int, default=20000)
    parser.add_argument("--guesses", type=int, default=1000)
    parser.add_argument("--take", type=float, default=20, help="seconds the take records at least")
    args = parser.parse_args()
    with Demo(listen="0.0.0.0:0", name="studio-attack") as demo:
        studio = Studio(demo)
        pid = demo.proc.pid
        limit = next((line.split()[3:5] for line in open(f"/proc/{pid}/limits") if line.startswith("Max open files")), "?")
        print(f"studio {demo.url} (coordinator pid {pid}, open-file limit soft/hard {'/'.join(limit)})")
        studio.json("POST", "/api/command", {"command": "start"})
        deadline = time.monotonic() + 60
        while studio.json("GET", "/api/state")["take"]["phase"] != "recording":
            assert time.monotonic() < deadline, "the take did not start recording"
            time.sleep(0.2)
        recording = time.monotonic()
        print("recording")
        held, left = idle_connections(studio, pid, args.idle, 10)
        closed, slowest = flood(studio, args.toggles)
        counts = guesses(studio, demo, args.guesses)
        time.sleep(max(0, recording + args.take - time.monotonic()))
        studio.json("POST", "/api/command", {"command": "stop"})
        stopped = time.monotonic()
        while not studio.json("GET", "/api/state")["take"]["isOver"]:
            assert time.monotonic() - stopped < 180, "the take did not end"
            time.sleep(0.2)
        take = studio.json("GET", "/api/state")["take"]
        final = demo.wait_for_line(r"files final", timeout=5)
        print(f"take {take['sessionID']}: {take['phase']} {time.monotonic() - stopped:.1f} s after the stop; "
              f"{(final or '').strip()}; warnings {take['warnings']}")
        ok = (take["phase"] == "done" and held <= 16 and left == 0 and closed and slowest < 1
              and counts.get(429, 0) >= args.guesses - 20)
        print("studio attack: " + ("goal met" if ok else "GOAL NOT MET"))
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
