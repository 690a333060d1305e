#!/usr/bin/env python3
"""The conversation generator, checked on a short three-person script (a few seconds):
the files' format, the levels each microphone hears (own voice, crosstalk, room noise),
the truth's turns, events, overlaps and silences, determinism, and the script's errors."""

import importlib.util
import json
import math
import os
import shutil
import sys
import tempfile
import unittest
import wave
from array import array

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("make_conversation", os.path.join(HERE, "make-conversation.py"))
generator = importlib.util.module_from_spec(spec)
spec.loader.exec_module(generator)

SCRIPT = """
person anna en-gb+f2
person ben  en-us+m3
person cleo en-us+f4
0.5        anna  say    Good morning.
end+0.4    ben   say    Hello there, how are you today?
start+0.6  cleo  mmhm
end+0.3    cleo  say    Very well, thank you.
end-0.8    anna  say    Lovely to hear.
start+0.2  ben   cough
end+2.0    ben   say    Shall we start?
end+0.1    cleo  laugh
"""


def read(path):
    with wave.open(path, "rb") as w:
        fmt = (w.getframerate(), w.getnchannels(), w.getsampwidth())
        data = array("h", w.readframes(w.getnframes()))
    if sys.byteorder == "big":
        data.byteswap()
    return fmt, [v / 32768 for v in data]


def rms_dbfs(x, start, end):
    part = x[int(start * 48_000):int(end * 48_000)]
    return 10 * math.log10(sum(v * v for v in part) / len(part) + 1e-20)


@unittest.skipIf(shutil.which("espeak-ng") is None, "espeak-ng is not installed (deploy/install-deps.sh installs it)")
class GeneratorTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="dualcam-conversation-")
        cls.script = os.path.join(cls.folder, "short.txt")
        with open(cls.script, "w") as f:
            f.write(SCRIPT)
        cls.out = os.path.join(cls.folder, "out")
        assert generator.main([cls.script, "--out", cls.out, "--crosstalk-db", "10", "--tail", "1.0"]) == 0
        with open(os.path.join(cls.out, "truth.json")) as f:
            cls.truth = json.load(f)
        cls.sound = {p: read(os.path.join(cls.out, p + ".wav")) for p in ("anna", "ben", "cleo")}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.folder, ignore_errors=True)

    def test_one_48khz_mono_file_per_person_as_long_as_the_conversation(self):
        for name, (fmt, samples) in self.sound.items():
            self.assertEqual(fmt, (48_000, 1, 2), name)
            self.assertAlmostEqual(len(samples) / 48_000, self.truth["durationSeconds"], delta=0.01)

    def test_turns_events_overlaps_and_silences_are_in_the_truth(self):
        t = self.truth
        self.assertEqual([x["person"] for x in t["turns"]], ["anna", "ben", "cleo", "anna", "ben"])
        self.assertEqual([(e["person"], e["kind"], e["turn"]) for e in t["events"]],
                         [("cleo", "backchannel", False), ("ben", "cough", False), ("cleo", "laughter", False)])
        # 'end-0.8': Anna starts 0.8 s before Cleo stops.
        cleo, anna = t["turns"][2], t["turns"][3]
        self.assertAlmostEqual(anna["start"], cleo["end"] - 0.8, delta=0.002)
        self.assertEqual(len(t["overlaps"]), 1)
        self.assertEqual(t["overlaps"][0]["people"], ["anna", "cleo"])
        self.assertAlmostEqual(t["overlaps"][0]["end"] - t["overlaps"][0]["start"], 0.8, delta=0.002)
        # 'end+2.0' after both stopped: a silence of 2 s.
        gaps = [s["end"] - s["start"] for s in t["silences"]]
        self.assertTrue(any(abs(g - 2.0) < 0.002 for g in gaps), gaps)
        self.assertEqual(t["speaking"]["ben"], [[x["start"], x["end"]] for x in t["turns"] if x["person"] == "ben"])

    def test_each_microphone_hears_its_person_loud_the_others_down_and_the_room(self):
        first = self.truth["turns"][0]  # Anna alone
        own = rms_dbfs(self.sound["anna"][1], first["start"], first["end"])
        self.assertAlmostEqual(own, -20, delta=2.5)
        for other in ("ben", "cleo"):
            heard = rms_dbfs(self.sound[other][1], first["start"], first["end"])
            self.assertAlmostEqual(own - heard, 10, delta=0.5, msg=other)
        silence = next(s for s in self.truth["silences"] if s["end"] - s["start"] > 1.5)
        for name, (_, samples) in self.sound.items():
            self.assertAlmostEqual(rms_dbfs(samples, silence["start"] + 0.1, silence["end"] - 0.1), -45, delta=1.0, msg=name)

    def test_the_same_script_gives_the_same_files(self):
        again = os.path.join(self.folder, "again")
        self.assertEqual(generator.main([self.script, "--out", again, "--crosstalk-db", "10", "--tail", "1.0"]), 0)
        for name in ("anna.wav", "ben.wav", "cleo.wav", "truth.json"):
            with open(os.path.join(self.out, name), "rb") as a, open(os.path.join(again, name), "rb") as b:
                self.assertEqual(a.read(), b.read(), name)

    def test_a_wrong_script_says_where_and_what_to_write(self):
        cases = [
            ("person a en-us\n0.5 a say Hi.\n", "2, 3 or 4 people"),
            ("person a en-us\nperson b en-us\n0.5 c say Hi.\n", ":3: c is not a person"),
            ("person a en-us\nperson b en-us\nsoon a say Hi.\n", ":3: the time 'soon'"),
            ("person a en-us\nperson b en-us\n0.5 a sing Hi.\n", "'sing' is not one of"),
        ]
        for text, expected in cases:
            with self.assertRaises(generator.ScriptError) as caught:
                generator.parse_script(text, "bad.txt")
            self.assertIn(expected, str(caught.exception))

    def test_the_shipped_scripts_parse_with_their_people(self):
        for name, count in (("interview.txt", 2), ("panel.txt", 4)):
            with open(os.path.join(HERE, name)) as f:
                people, lines = generator.parse_script(f.read(), name)
            self.assertEqual(len(people), count)
            self.assertEqual({l["kind"] for l in lines}, {"say", "mmhm", "cough", "laugh"})


if __name__ == "__main__":
    unittest.main()
