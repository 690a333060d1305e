/// OpenTimelineIO (`.otio`, JSON) for Resolve, Kdenlive and every OTIO tool: a video
/// track per camera and one for the combined file, each clip after a gap as long as its
/// place on the session's timeline, and an audio track per camera's WAV and per import. The timeline's
/// `global_start_time` is the timecode at T0; each media's available range starts at its
/// file's own start timecode. With the director, a "Programme" track on top holds its cut.
public enum OTIOWriter {
    public static func text(_ timeline: EditTimeline) -> String {
        let t = timeline
        var tracks: [String] = []
        for clip in t.cameras + [t.combined] {
            var children: [String] = []
            if clip.startFrame > 0 { children.append(gap(clip.startFrame, t)) }
            children.append(otioClip(name: clip.name, path: clip.path, sourceStart: clip.sourceStart.frames,
                                     duration: clip.durationFrames, t: t, metadata: "{\"dualcam\": {\"role\": \(MarkupText.json(clip.role))}}"))
            tracks.append(track(name: clip.name, kind: "Video", children: children))
        }
        if !t.programme.isEmpty {
            // The director's cut on top: each shot from the camera it shows, as an editor
            // would cut the angles (a group or wide shot from the composite).
            let children = t.programme.map { shot -> String in
                let (clip, from) = t.source(of: shot)
                let shown = "[" + shot.shown.map(MarkupText.json).joined(separator: ", ") + "]"
                return otioClip(name: t.programmeName(shot), path: clip.path, sourceStart: from, duration: shot.durationFrames, t: t,
                                metadata: "{\"dualcam\": {\"role\": \(MarkupText.json(clip.role)), \"shot\": \(shown)}}")
            }
            tracks.append(track(name: "Programme", kind: "Video", children: children))
        }
        for clip in t.cameras {
            guard let sound = clip.sound else { continue }
            let child = otioClip(name: clip.name + " sound", path: sound.path, sourceStart: 0, duration: t.durationFrames, t: t,
                                 metadata: "{\"dualcam\": {\"role\": \(MarkupText.json(clip.role))}}")
            tracks.append(track(name: clip.name + " sound", kind: "Audio", children: [child]))
        }
        for imported in t.imports {
            let child = otioClip(name: imported.name, path: imported.sound.path, sourceStart: 0, duration: imported.durationFrames,
                                 t: t, metadata: "{\"dualcam\": {\"role\": \"import\"}}")
            tracks.append(track(name: imported.name, kind: "Audio", children: [child]))
        }
        return """
        {
          "OTIO_SCHEMA": "Timeline.1",
          "name": \(MarkupText.json(t.name)),
          "metadata": {"dualcam": {"startTimecode": \(MarkupText.json(t.start.description))}},
          "global_start_time": \(time(t.start.frames, t)),
          "tracks": {
            "OTIO_SCHEMA": "Stack.1",
            "name": "tracks",
            "metadata": {},
            "source_range": null,
            "effects": [],
            "markers": [],
            "enabled": true,
            "children": [
        \(tracks.joined(separator: ",\n"))
            ]
          }
        }

        """
    }

    static func time(_ frames: Int64, _ t: EditTimeline) -> String {
        "{\"OTIO_SCHEMA\": \"RationalTime.1\", \"rate\": \(t.rateValue), \"value\": \(frames).0}"
    }

    static func range(_ start: Int64, _ duration: Int64, _ t: EditTimeline) -> String {
        "{\"OTIO_SCHEMA\": \"TimeRange.1\", \"start_time\": \(time(start, t)), \"duration\": \(time(duration, t))}"
    }

    static func gap(_ frames: Int64, _ t: EditTimeline) -> String {
        """
                  {"OTIO_SCHEMA": "Gap.1", "name": "", "metadata": {}, "source_range": \(range(0, frames, t)), "effects": [], "markers": [], "enabled": true}
        """
    }

    static func otioClip(name: String, path: String, sourceStart: Int64, duration: Int64, t: EditTimeline, metadata: String) -> String {
        """
                  {
                    "OTIO_SCHEMA": "Clip.2",
                    "name": \(MarkupText.json(name)),
                    "metadata": \(metadata),
                    "source_range": \(range(sourceStart, duration, t)),
                    "effects": [],
                    "markers": [],
                    "enabled": true,
                    "media_references": {
                      "DEFAULT_MEDIA": {
                        "OTIO_SCHEMA": "ExternalReference.1",
                        "name": \(MarkupText.json(XMEMLWriter.lastComponent(path))),
                        "metadata": {},
                        "available_range": \(range(sourceStart, duration, t)),
                        "available_image_bounds": null,
                        "target_url": \(MarkupText.json(MarkupText.url(path)))
                      }
                    },
                    "active_media_reference_key": "DEFAULT_MEDIA"
                  }
        """
    }

    static func track(name: String, kind: String, children: [String]) -> String {
        """
              {
                "OTIO_SCHEMA": "Track.1",
                "name": \(MarkupText.json(name)),
                "metadata": {},
                "source_range": null,
                "effects": [],
                "markers": [],
                "enabled": true,
                "kind": "\(kind)",
                "children": [
        \(children.joined(separator: ",\n"))
                ]
              }
        """
    }
}
