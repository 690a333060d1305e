#!/usr/bin/env python3
"""Renders a scripted conversation as the microphones of a DualCam rig would hear it.

From a script (the format is in tools/conversation/README.md; interview.txt is the
default), espeak-ng speaks each person's lines in a voice of their own, and one WAV per
node is written (48 kHz mono, 16-bit): each node's microphone hears its own person at
full level and every other person CROSSTALK dB down (and a little later: the sound
travels), plus room noise. Coughs are noise bursts, laughter a few short voiced bursts,
back-channel words ("mm-hm") short utterances: none of them is a turn. Beside the WAVs,
truth.json says who speaks when: the turns per person, the events that are not turns,
the overlaps and the silences, which is what a speaker detector is measured against.

Deterministic: the same script and options give the same files (the noise is seeded;
espeak-ng renders the same text the same way). Python 3 standard library only, so that
the demo can run it on a machine with no test dependencies.

    make-conversation.py [SCRIPT] --out DIR [--crosstalk-db 10] [--noise-dbfs -45] [--seed 1]
"""

import argparse
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import wave
from array import array

RATE = 48_000
# Where each person's speech sits: RMS −20 dBFS, the level of a well-set microphone, its
# peaks kept 4 dB below full scale (espeak-ng's plosives peak ~20 dB above its RMS).
SPEECH_RMS_DBFS = -20.0
SPEECH_PEAK_DBFS = -4.0
# A cough is louder than speech and sharp; laughter a little quieter.
COUGH_PEAK_DBFS = -8.0
LAUGH_PEAK_DBFS = -14.0
# Sound reaching another person's microphone arrives later: ~70 cm at 343 m/s.
CROSSTALK_DELAY_S = 0.002
# Below this level (relative to an utterance's peak) espeak-ng's lead-in and tail count as
# silence, so that a turn starts where its voice does.
TRIM_DB = -40.0
# Gaps between turns shorter than this are pauses inside speech, not silences.
SILENCE_MIN_S = 1.0

KINDS = {"say", "mmhm", "cough", "laugh"}


class ScriptError(Exception):
    pass


def db(value):
    return 10 ** (value / 20)


# ---------------------------------------------------------------- the script

def parse_script(text, name="script"):
    """People (name, voice) in node order, and lines (at, who, kind, text), in order."""
    people, lines = [], []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{name}:{number}"
        words = line.split(None, 3)
        if words[0] == "person":
            if len(words) != 3:
                raise ScriptError(f"{where}: write 'person NAME VOICE', e.g. 'person host en-us+m3'")
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]{0,31}", words[1]):
                raise ScriptError(f"{where}: a person's name is letters, digits, - and _ (it names a file)")
            if any(p["name"] == words[1] for p in people):
                raise ScriptError(f"{where}: {words[1]} is named twice")
            people.append({"name": words[1], "voice": words[2]})
            continue
        if len(words) < 3:
            raise ScriptError(f"{where}: write 'AT WHO WHAT [TEXT]', e.g. '0.5 host say Hello.'")
        at, who, kind = words[0], words[1], words[2]
        if not re.fullmatch(r"(\d+(\.\d+)?|(end|start)[+-]\d+(\.\d+)?)", at):
            raise ScriptError(f"{where}: the time '{at}' is seconds (12.5), or end+0.5 / end-2 (from where the "
                              "turns so far ended) / start+3 (from the start of the last line said)")
        if kind not in KINDS:
            raise ScriptError(f"{where}: '{kind}' is not one of {', '.join(sorted(KINDS))}")
        if not any(p["name"] == who for p in people):
            raise ScriptError(f"{where}: {who} is not a person of the script (declare 'person {who} VOICE' first)")
        said = words[3] if len(words) > 3 else ""
        if kind == "say" and not said:
            raise ScriptError(f"{where}: 'say' needs the words to say")
        lines.append({"at": at, "who": who, "kind": kind, "text": said})
    if not 2 <= len(people) <= 4:
        raise ScriptError(f"{name}: a conversation has 2, 3 or 4 people; this one has {len(people)}")
    if not lines:
        raise ScriptError(f"{name}: nothing is said")
    return people, lines


def resolve_time(at, previous, quiet):
    """Seconds from the start: absolute; start±S from the start of the last 'say' line;
    end±S from where the turns so far have all ended (`quiet`), so that after two
    people talk over each other 'end+0.5' is half a second after both have stopped."""
    match = re.fullmatch(r"(end|start)([+-]\d+(?:\.\d+)?)", at)
    if not match:
        return float(at)
    if previous is None:
        raise ScriptError(f"'{at}' needs a line spoken before it")
    base = quiet if match.group(1) == "end" else previous["start"]
    return max(0.0, base + float(match.group(2)))


# ---------------------------------------------------------------- sounds

def espeak(text, voice, speed, workdir):
    """The words in `voice`, at 48 kHz, lead-in and tail trimmed, at speech level."""
    path = os.path.join(workdir, "say.wav")
    try:
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", path, text],
                       check=True, capture_output=True)
    except FileNotFoundError:
        raise ScriptError("espeak-ng is not installed: sudo apt-get install espeak-ng (deploy/install-deps.sh does it)")
    except subprocess.CalledProcessError as error:
        raise ScriptError(f"espeak-ng failed for voice {voice}: {error.stderr.decode(errors='replace').strip()}")
    with wave.open(path, "rb") as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1:
            raise ScriptError("espeak-ng wrote a WAV other than 16-bit mono")
        rate = w.getframerate()
        raw = array("h", w.readframes(w.getnframes()))
    if sys.byteorder == "big":
        raw.byteswap()
    samples = resample([s / 32768 for s in raw], rate, RATE)
    return level(trim(samples), SPEECH_RMS_DBFS)


def resample(x, source, target):
    """Linear interpolation: espeak-ng's 22 kHz speech has nothing near the band edge."""
    if source == target or not x:
        return list(x)
    step = source / target
    n = int(len(x) / step)
    last = len(x) - 1
    out = []
    append = out.append
    for i in range(n):
        p = i * step
        k = int(p)
        f = p - k
        a = x[k]
        append(a + (x[k + 1] - a) * f if k < last else a)
    return out


def trim(x):
    peak = max((abs(v) for v in x), default=0)
    if peak == 0:
        return []
    floor = peak * db(TRIM_DB)
    first = next(i for i, v in enumerate(x) if abs(v) > floor)
    last = len(x) - next(i for i, v in enumerate(reversed(x)) if abs(v) > floor)
    return x[first:last]


def level(x, rms_dbfs):
    """At `rms_dbfs`, unless its peaks would then pass SPEECH_PEAK_DBFS."""
    if not x:
        return x
    rms = math.sqrt(sum(v * v for v in x) / len(x))
    peak = max(abs(v) for v in x)
    gain = min(db(rms_dbfs) / max(rms, 1e-9), db(SPEECH_PEAK_DBFS) / peak)
    return [v * gain for v in x]


def cough(rng):
    """Two noise bursts (the second weaker), sharp attack and fast decay, ~0.35 s."""
    out = []
    for length, peak, tau in ((0.16, 1.0, 0.045), (0.12, 0.55, 0.035)):
        n = int(length * RATE)
        low = 0.0
        for i in range(n):
            # One-pole low-pass: a throat, not a hiss.
            low += 0.35 * ((rng.random() * 2 - 1) - low)
            attack = min(1.0, i / (0.006 * RATE))
            out.append(peak * attack * math.exp(-i / (tau * RATE)) * low)
        out += [0.0] * int(0.06 * RATE)
    peak = max(abs(v) for v in out)
    return [v * db(COUGH_PEAK_DBFS) / peak for v in out]


def laugh(rng, pitch):
    """A few short voiced bursts ('ha ha ha'), falling in pitch, with breath between."""
    out = []
    bursts = 4 + rng.randrange(2)
    for b in range(bursts):
        f0 = pitch * (1.25 - 0.06 * b)
        n = int((0.09 + 0.02 * rng.random()) * RATE)
        for i in range(n):
            t = i / RATE
            envelope = math.sin(math.pi * i / n) ** 2
            voiced = sum(math.sin(2 * math.pi * f0 * h * t) / h for h in range(1, 6))
            out.append(envelope * (0.8 * voiced + 0.3 * (rng.random() * 2 - 1)))
        gap = int((0.10 + 0.03 * rng.random()) * RATE)
        out += [0.04 * (rng.random() * 2 - 1) for _ in range(gap)]
    peak = max(abs(v) for v in out)
    return [v * db(LAUGH_PEAK_DBFS) / peak for v in out]


# ---------------------------------------------------------------- the conversation

VOICE_PITCH = {"f": 210.0, "m": 120.0}


def render(people, lines, speed, seed, workdir):
    """Each line's sound and its place: the timeline of the conversation."""
    rng = random.Random(seed)
    previous, quiet = None, 0.0
    placed = []
    for line in lines:
        start = resolve_time(line["at"], previous, quiet)
        person = next(p for p in people if p["name"] == line["who"])
        if line["kind"] == "say":
            sound = espeak(line["text"], person["voice"], speed, workdir)
        elif line["kind"] == "mmhm":
            # A back-channel word: short, quieter than a turn.
            sound = [v * db(-4) for v in espeak(line["text"] or "mm hm", person["voice"], speed, workdir)]
        elif line["kind"] == "cough":
            sound = cough(rng)
        else:
            female = "+f" in person["voice"]
            sound = laugh(rng, VOICE_PITCH["f" if female else "m"])
        item = {"who": line["who"], "kind": line["kind"], "text": line["text"], "start": start,
                "end": start + len(sound) / RATE, "sound": sound}
        placed.append(item)
        if line["kind"] == "say":
            previous = item
            quiet = max(quiet, item["end"])
    return placed


def mix(people, placed, crosstalk_db, noise_dbfs, seed, duration):
    """One track per node: its person at full level, the others crosstalk_db down and
    delayed, room noise (white, seeded per node) at noise_dbfs RMS."""
    n = int(duration * RATE)
    delay = int(CROSSTALK_DELAY_S * RATE)
    tracks = {}
    for index, person in enumerate(people):
        rng = random.Random(seed * 1000 + index)
        # Uniform noise: RMS = half-width / sqrt(3).
        width = db(noise_dbfs) * math.sqrt(3)
        track = [(rng.random() * 2 - 1) * width for _ in range(n)]
        for item in placed:
            own = item["who"] == person["name"]
            gain = 1.0 if own else db(-crosstalk_db)
            at = int(round(item["start"] * RATE)) + (0 if own else delay)
            sound = item["sound"][: max(0, n - at)]
            track[at:at + len(sound)] = [t + gain * s for t, s in zip(track[at:at + len(sound)], sound)]
        tracks[person["name"]] = track
    return tracks


def write_wav(path, samples):
    peak = max((abs(v) for v in samples), default=0)
    if peak >= 1:
        raise ScriptError(f"{path}: the mix clips (peak {peak:.2f}); lower the levels or spread the events")
    data = array("h", (int(round(v * 32767)) for v in samples))
    if sys.byteorder == "big":
        data.byteswap()
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(data.tobytes())


def merged(intervals):
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def truth(people, placed, duration, options):
    """Who speaks when: what a speaker detector is judged by."""
    r = lambda v: round(v, 3)
    turns = [{"person": i["who"], "start": r(i["start"]), "end": r(i["end"]), "text": i["text"]}
             for i in placed if i["kind"] == "say"]
    kinds = {"mmhm": "backchannel", "cough": "cough", "laugh": "laughter"}
    events = [{"person": i["who"], "kind": kinds[i["kind"]], "start": r(i["start"]), "end": r(i["end"]), "turn": False}
              for i in placed if i["kind"] != "say"]
    speaking = {p["name"]: [[r(s), r(e)] for s, e in merged((t["start"], t["end"]) for t in turns if t["person"] == p["name"])]
                for p in people}
    # Overlaps: where two people's turns cover the same time.
    overlaps = []
    for a_index, a in enumerate(people):
        for b in people[a_index + 1:]:
            for s1, e1 in speaking[a["name"]]:
                for s2, e2 in speaking[b["name"]]:
                    s, e = max(s1, s2), min(e1, e2)
                    if e > s:
                        overlaps.append({"people": [a["name"], b["name"]], "start": r(s), "end": r(e)})
    overlaps.sort(key=lambda o: o["start"])
    anyone = merged((t["start"], t["end"]) for t in turns)
    silences, cursor = [], 0.0
    for s, e in anyone + [[duration, duration]]:
        if s - cursor >= SILENCE_MIN_S:
            silences.append({"start": r(cursor), "end": r(s)})
        cursor = max(cursor, e)
    return {
        "sampleRate": RATE,
        "durationSeconds": r(duration),
        "crosstalkDB": options.crosstalk_db,
        "noiseDBFS": options.noise_dbfs,
        "crosstalkDelaySeconds": CROSSTALK_DELAY_S,
        "seed": options.seed,
        "people": [{"name": p["name"], "voice": p["voice"], "file": p["name"] + ".wav"} for p in people],
        "turns": turns,
        "events": events,
        "speaking": speaking,
        "overlaps": overlaps,
        "silences": silences,
    }


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("script", nargs="?", default=os.path.join(here, "interview.txt"),
                        help="the conversation's script (default: the 2-person interview.txt)")
    parser.add_argument("--out", required=True, help="folder for PERSON.wav (one per node) and truth.json")
    parser.add_argument("--crosstalk-db", type=float, default=10.0,
                        help="how far down another person is in a node's microphone, dB (default 10; try 6 and 12)")
    parser.add_argument("--noise-dbfs", type=float, default=-45.0, help="room noise RMS, dBFS (default -45)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the noise, coughs and laughter (default 1)")
    parser.add_argument("--speed", type=int, default=165, help="espeak-ng words per minute (default 165)")
    parser.add_argument("--tail", type=float, default=1.5, help="seconds of room after the last sound (default 1.5)")
    options = parser.parse_args(argv)
    if not 0 <= options.crosstalk_db <= 60:
        parser.error("--crosstalk-db is 0 to 60")
    if not -90 <= options.noise_dbfs <= -20:
        parser.error("--noise-dbfs is -90 to -20")
    try:
        with open(options.script, encoding="utf-8") as f:
            people, lines = parse_script(f.read(), os.path.basename(options.script))
        if shutil.which("espeak-ng") is None:
            raise ScriptError("espeak-ng is not installed: sudo apt-get install espeak-ng (deploy/install-deps.sh does it)")
        os.makedirs(options.out, exist_ok=True)
        with tempfile.TemporaryDirectory() as workdir:
            placed = render(people, lines, options.speed, options.seed, workdir)
        duration = max(i["end"] for i in placed) + options.tail
        tracks = mix(people, placed, options.crosstalk_db, options.noise_dbfs, options.seed, duration)
        for person in people:
            write_wav(os.path.join(options.out, person["name"] + ".wav"), tracks[person["name"]])
        facts = truth(people, placed, duration, options)
        with open(os.path.join(options.out, "truth.json"), "w", encoding="utf-8") as f:
            json.dump(facts, f, indent=1)
            f.write("\n")
    except (OSError, ScriptError) as error:
        print(f"make-conversation: {error}", file=sys.stderr)
        return 1
    longest = max((o["end"] - o["start"] for o in facts["overlaps"]), default=0)
    print(f"{len(people)} people, {duration:.1f} s, {len(facts['turns'])} turns, {len(facts['events'])} other sounds, "
          f"longest overlap {longest:.1f} s, {len(facts['silences'])} silences: "
          + ", ".join(os.path.join(options.out, p["name"] + ".wav") for p in people))
    return 0


if __name__ == "__main__":
    sys.exit(main())
