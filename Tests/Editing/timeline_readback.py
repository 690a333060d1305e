#!/usr/bin/env python3
"""Reads a DualCam session's exported timelines back with OpenTimelineIO's own adapters
(PyPI opentimelineio, otio-fcpx-xml-adapter, otio-fcp-adapter, otio-cmx3600-adapter) and
checks them against the media files as ffprobe sees them: one track (or lane) per camera
plus the combined file, each clip starting at its file's true place in the session and
lasting as long as its file, to within one frame.

usage: timeline_readback.py SESSION_DIR   (prints what it checked; exit 1 on a mismatch)
"""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from urllib.parse import unquote
from fractions import Fraction

import opentimelineio as otio

failures = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        failures.append(message)


def probe(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "stream=start_time,duration,r_frame_rate:stream_tags=timecode", "-of", "json", path],
                         check=True, capture_output=True, text=True).stdout
    stream = json.loads(out)["streams"][0]
    num, den = stream["r_frame_rate"].split("/")
    return {"start": float(stream["start_time"]), "duration": float(stream["duration"]),
            "fps": float(num) / float(den), "timecode": stream.get("tags", {}).get("timecode")}


def main(session):
    manifest = json.load(open(os.path.join(session, "manifest.json")))
    # The director's cut, when a file of the take was cut by it (the take's, else a render's).
    cut = next((c for c in [manifest["composite"]] + list(reversed(manifest.get("renders") or [])) if c.get("director")), None)
    sid = manifest["sessionID"]
    cameras = [c["file"] for c in manifest["cameras"]]
    combined = manifest["composite"]["file"]
    # An imported video is one more angle (its pictures retimed onto the session).
    videos = [i for i in manifest.get("imports") or [] if i.get("video")]
    files = cameras + [i["video"]["file"] for i in videos] + [combined]
    names = [c.split("_")[1] for c in cameras] + [i["name"] for i in videos] + ["Combined"]
    media = {f: probe(os.path.join(session, f)) for f in files}
    fps = media[combined]["fps"]
    expected = {n: (round(media[f]["start"] * fps), round(media[f]["duration"] * fps)) for n, f in zip(names, files)}
    print("expected (start frame, frames) from ffprobe:", expected)

    def compare(label, found):
        for name, (start, frames) in expected.items():
            got = found.get(name)
            check(got is not None, f"{label}: a track holds {name}")
            if got is None:
                continue
            check(abs(got[0] - start) <= 1, f"{label}: {name} starts at frame {got[0]} (file: {start})")
            check(abs(got[1] - frames) <= 1, f"{label}: {name} lasts {got[1]} frames (file: {frames})")

    def clips_of(tracks, kind=otio.schema.TrackKind.Video, origin=0, whole_rate_durations=False):
        found = {}
        for track in tracks:
            if track.kind != kind:
                continue
            clips = [c for c in track if isinstance(c, otio.schema.Clip)]
            if len(clips) != 1:
                continue
            clip = clips[0]
            place = track.range_of_child(clip)
            frames = place.duration.value
            if whole_rate_durations:
                # otio-fcpx-xml-adapter reads a duration in frames of the rate cut down to a
                # whole number (29 for 29.97) but an offset in frames of the true rate: its
                # durations are turned back into seconds, then into true frames.
                frames = place.duration.value / place.duration.rate * fps
            found[clip.name] = (round(place.start_time.value) - origin, round(frames))
        return found

    # OpenTimelineIO's native format.
    timeline = otio.adapters.read_from_file(os.path.join(session, f"DualCam_{sid}.otio"))
    video = [t for t in timeline.tracks if t.kind == otio.schema.TrackKind.Video and t.name != "Programme"]
    check(len(video) == len(files), f"otio: {len(video)} video tracks for {len(files)} files")
    compare("otio", clips_of(timeline.tracks))
    for track in video:
        clip = [c for c in track if isinstance(c, otio.schema.Clip)][0]
        url = clip.media_reference.target_url
        check(not url.startswith("/") and os.path.exists(os.path.join(session, url)),
              f"otio: {clip.name}'s media {url} is relative and found")

    # FCPXML: lanes 1..N are the cameras, N+1 the combined; offsets count from the
    # sequence's tcStart, which the adapter reads as a frame count too.
    fcpx_path = os.path.join(session, f"DualCam_{sid}.fcpxml")
    collection = otio.adapters.read_from_file(fcpx_path, adapter_name="fcpx_xml")
    projects = list(collection)
    check(len(projects) == (2 if cut else 1), f"fcpxml: {len(projects)} project(s)")
    tree = ET.parse(fcpx_path).getroot()
    sequence = tree.find("./library/event/project/sequence")
    # The adapter counts offsets from the sequence's tcStart in frames of the true rate.
    origin = int(float(Fraction(sequence.get("tcStart").rstrip("s"))) * fps)
    lanes = [t for t in projects[0].tracks if t.kind == otio.schema.TrackKind.Video]
    check(len(lanes) == len(files), f"fcpxml: {len(lanes)} video lanes for {len(files)} files")
    compare("fcpxml", clips_of(projects[0].tracks, origin=origin, whole_rate_durations=True))
    angles = tree.findall("./resources/media/multicam/mc-angle")
    check([a.get("name") for a in angles] == names[:-1], f"fcpxml: multicam angles {[a.get('name') for a in angles]}")
    for angle in angles:
        srcs = [tree.find(f"./resources/asset[@id='{c.get('ref')}']/media-rep").get("src") for c in angle.iter("asset-clip")]
        check(all(os.path.exists(os.path.join(session, s)) for s in srcs), f"fcpxml: angle {angle.get('name')} media {srcs} found")

    # FCP 7 XML (xmeml).
    sequences = otio.adapters.read_from_file(os.path.join(session, f"DualCam_{sid}.xml"), adapter_name="fcp_xml")
    sequence = sequences if isinstance(sequences, otio.schema.Timeline) else list(sequences)[0]
    video = [t for t in sequence.tracks if t.kind == otio.schema.TrackKind.Video]
    check(len(video) == len(files), f"xmeml: {len(video)} video tracks for {len(files)} files")
    compare("xmeml", clips_of(sequence.tracks))
    audio = [t for t in sequence.tracks if t.kind == otio.schema.TrackKind.Audio]
    sounds = [c.get("soundFile") for c in manifest["cameras"] if c.get("soundFile")]
    imports = [i for i in manifest.get("imports") or [] if not i.get("video")]
    check(len(audio) == len(sounds) + len(videos) + len(imports),
          f"xmeml: {len(audio)} audio tracks for {len(sounds)} WAVs, {len(videos)} video imports and {len(imports)} sound imports")
    check_imports(imports, fps, session, sid, timeline, tree, audio)

    edl = otio.adapters.read_from_file(os.path.join(session, f"DualCam_{sid}.edl"), adapter_name="cmx_3600", rate=fps)
    clips = [c for t in edl.tracks if t.kind == otio.schema.TrackKind.Video for c in t if isinstance(c, otio.schema.Clip)]
    edl_audio = {c.name: c for t in edl.tracks if t.kind == otio.schema.TrackKind.Audio for c in t if isinstance(c, otio.schema.Clip)}
    for i in imports:
        name = os.path.basename(i["file"])
        check(name in edl_audio and round(edl_audio[name].range_in_parent().start_time.value) == 0,
              f"edl: import {i['name']} as an audio event from T0")
    if cut:
        check_programme(cut, fps, cameras, session, sid, timeline, projects, sequences, clips, origin)
    # CMX3600 EDL of the combined file (of the director's cut when there is one).
    check(len(clips) == (len(programme_starts(cut, fps)) if cut else 1), f"edl: {len(clips)} event(s)")
    if clips and not cut:
        start, frames = expected["Combined"]
        check(abs(round(clips[0].source_range.duration.value) - frames) <= 1,
              f"edl: the combined lasts {clips[0].source_range.duration.value} frames (file: {frames})")
        tc = media[combined]["timecode"]
        if tc:
            got = otio.opentime.to_timecode(clips[0].source_range.start_time, fps, drop_frame=";" in tc)
            check(got == tc, f"edl: source in {got} is the file's timecode {tc}")

    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)


def wav_seconds(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=duration", "-of", "json", path],
                         check=True, capture_output=True, text=True).stdout
    return float(json.loads(out)["streams"][0]["duration"])


def check_imports(imports, fps, session, sid, timeline, fcpx_tree, xmeml_audio):
    """Each import (another recorder's aligned sound, a BWF from T0) on an audio track of its
    own from frame 0, as long as its file, in OTIO, FCPXML and xmeml."""
    for i in imports:
        frames = wav_seconds(os.path.join(session, i["file"])) * fps
        track = next((t for t in timeline.tracks if t.kind == otio.schema.TrackKind.Audio and t.name == i["name"]), None)
        check(track is not None, f"otio: an audio track for the import {i['name']}")
        if track is not None:
            clip = [c for c in track if isinstance(c, otio.schema.Clip)][0]
            place = track.range_of_child(clip)
            check(round(place.start_time.value) == 0 and abs(place.duration.value - frames) <= 1,
                  f"otio: {i['name']} from frame {place.start_time.value} for {place.duration.value} frames (file: {frames:.1f})")
            url = unquote(clip.media_reference.target_url)
            check(os.path.exists(os.path.join(session, url)), f"otio: {i['name']}'s media {url} found")
        srcs = [a.find("media-rep").get("src") for a in fcpx_tree.findall("./resources/asset")]
        check(any(unquote(s).endswith(i["file"]) for s in srcs), f"fcpxml: an asset for the import {i['name']}")
        check(any(c.name == i["name"] for t in xmeml_audio for c in t if isinstance(c, otio.schema.Clip)),
              f"xmeml: an audio clip for the import {i['name']}")


def programme_starts(cut, fps):
    """Each shot's first frame: 0 (the opening wide shot), then each cut's first frame at or after it."""
    starts = [0]
    for c in cut["director"]["cuts"]:
        frame = int(-(-round(c["at"] * 1e9) * fps // 1e9))
        if frame == starts[-1]:
            starts.pop()
        starts.append(frame)
    return starts


def check_programme(cut, fps, cameras, session, sid, timeline, projects, sequences, edl_clips, origin):
    """The director's cut in every format: a shot per cut, starting on the cut's frame (±1),
    a single taken from the file of the camera it shows."""
    starts = programme_starts(cut, fps)
    shots = [["wide"]] + [c["shot"] for c in cut["director"]["cuts"]]
    names = {c["statistics"]["name"]: c["file"] for c in json.load(open(os.path.join(session, "manifest.json")))["cameras"]}
    track = next((t for t in timeline.tracks if t.name == "Programme"), None)
    check(track is not None, "otio: a Programme track")
    if track is not None:
        clips = [c for c in track if isinstance(c, otio.schema.Clip)]
        check(len(clips) == len(starts), f"otio: {len(clips)} programme shots for {len(starts)}")
        for clip, start, shot in zip(clips, starts, shots):
            at = round(track.range_of_child(clip).start_time.value)
            check(abs(at - start) <= 1, f"otio: shot {clip.name} at frame {at} (cut: {start})")
            if len(shot) == 1 and shot[0] in names:
                url = clip.media_reference.target_url
                check(url.endswith(names[shot[0]]), f"otio: single of {shot[0]} from {url}")
    # The adapter reads no multicam edits (mc-clip), which Final Cut Pro and Resolve do:
    # the programme project is read from the XML itself.
    root = ET.parse(os.path.join(session, f"DualCam_{sid}.fcpxml")).getroot()
    programme = [p for p in root.findall("./library/event/project") if p.get("name", "").endswith(" Programme")]
    check(len(programme) == 1, "fcpxml: a Programme project")
    if programme:
        sequence = programme[0].find("sequence")
        tc_start = Fraction(sequence.get("tcStart").rstrip("s"))
        shots = list(sequence.find("spine"))
        check(len(shots) == len(starts), f"fcpxml: {len(shots)} programme shots for {len(starts)}")
        angles = {a.get("angleID"): a for a in root.findall("./resources/media/multicam/mc-angle")}
        for shot, start in zip(shots, starts):
            at = round((Fraction(shot.get("offset").rstrip("s")) - tc_start) * Fraction(fps).limit_denominator(1001))
            check(abs(at - start) <= 1, f"fcpxml: {shot.tag} {shot.get('name')} at frame {at} (cut: {start})")
            if shot.tag == "mc-clip":
                angle = shot.find("mc-source").get("angleID")
                check(angle in angles, f"fcpxml: {shot.get('name')} switches to angle {angle} of the multicam")
    seqs = [sequences] if isinstance(sequences, otio.schema.Timeline) else list(sequences)
    check(len(seqs) == 2, f"xmeml: {len(seqs)} sequences (the takes and the programme)")
    if len(seqs) == 2:
        clips = [c for t in seqs[1].tracks for c in t if isinstance(c, otio.schema.Clip)]
        check(len(clips) == len(starts), f"xmeml: {len(clips)} programme shots for {len(starts)}")
        for clip, start in zip(clips, starts):
            at = round(clip.range_in_parent().start_time.value)
            check(abs(at - start) <= 1, f"xmeml: shot {clip.name} at frame {at} (cut: {start})")
    for clip, start in zip(edl_clips, starts):
        at = round(clip.range_in_parent().start_time.value)
        check(abs(at - start) <= 1, f"edl: shot at frame {at} (cut: {start})")


if __name__ == "__main__":
    main(sys.argv[1])
