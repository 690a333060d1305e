/// FCPXML 1.10 for Final Cut Pro and DaVinci Resolve 18.5+: the cameras as one multicam
/// clip (an angle per camera, named by its role, its WAV beside it), the combined file as
/// a clip of its own, and a project that lays them all out in sync: a gap as the primary
/// storyline with each file connected on a lane of its own at its place on the session's
/// timeline (cameras on lanes 1…N, the combined above them, the WAVs below, then the
/// imported recorders' sound).
public enum FCPXMLWriter {
    public static func text(_ timeline: EditTimeline) -> String {
        let t = timeline
        let tcFormat = t.start.dropFrame ? "DF" : "NDF"
        let tcStart = t.fcpxTime(t.start.frames)
        var ids = 1
        func nextID() -> String { ids += 1; return "r\(ids)" }
        var resources = ["    <format id=\"r1\" name=\"\(formatName(t))\" frameDuration=\"\(t.frameDuration)\" width=\"\(t.width)\" height=\"\(t.height)\"/>"]
        var videoIDs: [String] = []
        var soundIDs: [String?] = []
        for clip in t.cameras + [t.combined] {
            let id = nextID()
            videoIDs.append(id)
            resources.append(asset(id: id, name: clip.name, path: clip.path, start: t.fcpxTime(clip.sourceStart.frames),
                                   duration: t.fcpxTime(clip.durationFrames), video: true, audio: clip.hasAudio,
                                   channels: clip.sound?.channels ?? 2, sampleRate: clip.sound?.sampleRate ?? 48_000))
            if let sound = clip.sound {
                let soundID = nextID()
                soundIDs.append(soundID)
                resources.append(asset(id: soundID, name: clip.name + " sound", path: sound.path, start: "0s",
                                       duration: t.fcpxTime(t.durationFrames), video: false, audio: true,
                                       channels: sound.channels, sampleRate: sound.sampleRate))
            } else {
                soundIDs.append(nil)
            }
        }
        // Imports are Broadcast Waves whose time reference is T0's timecode, which is where
        // an editor starts them.
        let importIDs = t.imports.map { imported -> String in
            let id = nextID()
            resources.append(asset(id: id, name: imported.name, path: imported.sound.path, start: tcStart,
                                   duration: t.fcpxTime(imported.durationFrames), video: false, audio: true,
                                   channels: imported.sound.channels, sampleRate: imported.sound.sampleRate))
            return id
        }
        let multicamID = nextID()
        let name = MarkupText.escaped(t.name)
        var angles: [String] = []
        for (i, clip) in t.cameras.enumerated() {
            var lines = ["        <mc-angle name=\"\(MarkupText.escaped(clip.name))\" angleID=\"\(MarkupText.escaped(clip.role))-\(i + 1)\">"]
            if clip.startFrame > 0 {
                lines.append("          <gap name=\"Gap\" offset=\"\(tcStart)\" start=\"3600s\" duration=\"\(t.fcpxTime(clip.startFrame))\"/>")
            }
            let clipStart = t.fcpxTime(clip.sourceStart.frames)
            lines.append("          <asset-clip ref=\"\(videoIDs[i])\" name=\"\(MarkupText.escaped(clip.name))\" offset=\"\(t.fcpxTime(t.start.frames + clip.startFrame))\" start=\"\(clipStart)\" duration=\"\(t.fcpxTime(clip.durationFrames))\" tcFormat=\"\(tcFormat)\">")
            if let soundID = soundIDs[i] {
                // The WAV starts at T0; the clip's own time starts at its first frame.
                lines.append("            <asset-clip ref=\"\(soundID)\" lane=\"-1\" name=\"\(MarkupText.escaped(clip.name)) sound\" offset=\"\(t.fcpxTime(clip.sourceStart.frames - clip.startFrame))\" start=\"0s\" duration=\"\(t.fcpxTime(t.durationFrames))\"/>")
            }
            lines.append("          </asset-clip>")
            lines.append("        </mc-angle>")
            angles.append(lines.joined(separator: "\n"))
        }
        resources.append("""
            <media id="\(multicamID)" name="\(name) Multicam">
              <multicam format="r1" tcStart="\(tcStart)" tcFormat="\(tcFormat)">
        \(angles.joined(separator: "\n"))
              </multicam>
            </media>
        """)
        let combinedIndex = t.cameras.count
        let c = t.combined
        var lanes: [String] = []
        for (i, clip) in (t.cameras + [c]).enumerated() {
            lanes.append("            <asset-clip ref=\"\(videoIDs[i])\" lane=\"\(i + 1)\" name=\"\(MarkupText.escaped(clip.name))\" offset=\"\(t.fcpxTime(t.start.frames + clip.startFrame))\" start=\"\(t.fcpxTime(clip.sourceStart.frames))\" duration=\"\(t.fcpxTime(clip.durationFrames))\" tcFormat=\"\(tcFormat)\"/>")
        }
        for (i, clip) in t.cameras.enumerated() {
            guard let soundID = soundIDs[i] else { continue }
            lanes.append("            <asset-clip ref=\"\(soundID)\" lane=\"-\(i + 1)\" name=\"\(MarkupText.escaped(clip.name)) sound\" offset=\"\(tcStart)\" start=\"0s\" duration=\"\(t.fcpxTime(t.durationFrames))\"/>")
        }
        for (k, imported) in t.imports.enumerated() {
            lanes.append("            <asset-clip ref=\"\(importIDs[k])\" lane=\"-\(t.cameras.count + k + 1)\" name=\"\(MarkupText.escaped(imported.name))\" offset=\"\(tcStart)\" start=\"\(tcStart)\" duration=\"\(t.fcpxTime(imported.durationFrames))\"/>")
        }
        let total = t.fcpxTime(t.durationFrames)
        var programmeCompositeID: String?
        if let render = t.programmeComposite, !t.programme.isEmpty {
            let id = nextID()
            programmeCompositeID = id
            resources.append(asset(id: id, name: render.name, path: render.path, start: t.fcpxTime(render.sourceStart.frames),
                                   duration: t.fcpxTime(render.durationFrames), video: true, audio: render.hasAudio,
                                   channels: 2, sampleRate: 48_000))
        }
        let programme = programmeProject(t, multicamID: multicamID, combinedID: videoIDs[combinedIndex],
                                         renderID: programmeCompositeID, tcFormat: tcFormat)
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE fcpxml>
        <fcpxml version="1.10">
          <resources>
        \(resources.joined(separator: "\n"))
          </resources>
          <library>
            <event name="\(name)">
              <mc-clip ref="\(multicamID)" name="\(name) Multicam" offset="0s" start="\(tcStart)" duration="\(total)" tcFormat="\(tcFormat)"/>
              <asset-clip ref="\(videoIDs[combinedIndex])" name="\(MarkupText.escaped(c.name))" offset="0s" start="\(t.fcpxTime(c.sourceStart.frames))" duration="\(t.fcpxTime(c.durationFrames))" tcFormat="\(tcFormat)"/>
              <project name="\(name)">
                <sequence format="r1" duration="\(total)" tcStart="\(tcStart)" tcFormat="\(tcFormat)">
                  <spine>
                    <gap name="Gap" offset="\(tcStart)" start="\(tcStart)" duration="\(total)">
        \(lanes.joined(separator: "\n"))
                    </gap>
                  </spine>
                </sequence>
              </project>
        \(programme)    </event>
          </library>
        </fcpxml>

        """
    }

    /// The director's cut as a project of its own: each single a cut of the multicam clip
    /// to that camera's angle (so the editor switches or trims angles as in any multicam
    /// edit), each group or wide shot the composite.
    private static func programmeProject(_ t: EditTimeline, multicamID: String, combinedID: String, renderID: String?,
                                         tcFormat: String) -> String {
        guard !t.programme.isEmpty else { return "" }
        let name = MarkupText.escaped(t.name)
        let clips = t.programme.map { shot -> String in
            let offset = t.fcpxTime(t.start.frames + shot.startFrame), duration = t.fcpxTime(shot.durationFrames)
            let shown = MarkupText.escaped(t.programmeName(shot))
            let (clip, from) = t.source(of: shot)
            if let i = t.cameras.firstIndex(where: { $0.path == clip.path }) {
                let angle = "\(MarkupText.escaped(t.cameras[i].role))-\(i + 1)"
                return """
                              <mc-clip ref="\(multicamID)" name="\(shown)" offset="\(offset)" start="\(offset)" duration="\(duration)" tcFormat="\(tcFormat)">
                                <mc-source angleID="\(angle)" srcEnable="video"/>
                              </mc-clip>
                """
            }
            let ref = clip.path == t.combined.path ? combinedID : (renderID ?? combinedID)
            return """
                          <asset-clip ref="\(ref)" name="\(shown)" offset="\(offset)" start="\(t.fcpxTime(from))" duration="\(duration)" tcFormat="\(tcFormat)"/>
            """
        }
        return """
              <project name="\(name) Programme">
                <sequence format="r1" duration="\(t.fcpxTime(t.durationFrames))" tcStart="\(t.fcpxTime(t.start.frames))" tcFormat="\(tcFormat)">
                  <spine>
        \(clips.joined(separator: "\n"))
                  </spine>
                </sequence>
              </project>

        """
    }

    private static func asset(id: String, name: String, path: String, start: String, duration: String, video: Bool,
                              audio: Bool, channels: Int, sampleRate: Int) -> String {
        let format = video ? " format=\"r1\"" : ""
        let sound = audio ? " audioSources=\"1\" audioChannels=\"\(channels)\" audioRate=\"\(sampleRate)\"" : ""
        return """
            <asset id="\(id)" name="\(MarkupText.escaped(name))" start="\(start)" duration="\(duration)" hasVideo="\(video ? 1 : 0)" hasAudio="\(audio ? 1 : 0)"\(format)\(sound)>
              <media-rep kind="original-media" src="\(MarkupText.escaped(MarkupText.url(path)))"/>
            </asset>
        """
    }

    /// Final Cut's name for a standard format, e.g. FFVideoFormat1080p2997; other sizes get
    /// FFVideoFormatRateUndefined, which Final Cut reads from the frame size and duration.
    static func formatName(_ t: EditTimeline) -> String {
        let rate = t.rate.denominator == 1 ? "\(t.rate.numerator)" : t.rate.decimalText.replacingDot()
        switch (t.width, t.height) {
        case (1920, 1080), (1280, 720), (3840, 2160): return "FFVideoFormat\(t.height)p\(rate)"
        default: return "FFVideoFormatRateUndefined"
        }
    }
}

private extension String {
    func replacingDot() -> String { String(self.filter { $0 != "." }) }
}
