/// A CMX3600 EDL of the combined file, the fallback every editor reads: one event, the
/// whole file from its start timecode, recorded at its place on the session's timeline.
/// With the director, the EDL is its cut instead: an event per shot, from the file of the
/// camera it shows (the composite for a group or wide shot). Imported recorders' sound
/// follows as audio events from T0.
public enum EDLWriter {
    public static func text(_ timeline: EditTimeline) -> String {
        let t = timeline
        let c = t.combined
        let sourceIn = c.sourceStart
        let sourceOut = c.sourceStart.adding(frames: c.durationFrames)
        let recordIn = t.start.adding(frames: c.startFrame)
        let recordOut = recordIn.adding(frames: c.durationFrames)
        // Titles and clip names are one line each: a line break in a name would start a
        // new (bogus) event.
        let title = t.name.filter { $0 != "\n" && $0 != "\r" }
        let file = XMEMLWriter.lastComponent(c.path).filter { $0 != "\n" && $0 != "\r" }
        if !t.programme.isEmpty { return programme(t, title: title) }
        return """
        TITLE: \(title)
        FCM: \(t.start.dropFrame ? "DROP FRAME" : "NON-DROP FRAME")

        001  AX       V     C        \(sourceIn) \(sourceOut) \(recordIn) \(recordOut)
        * FROM CLIP NAME: \(file)

        """ + imports(t, from: 2)
    }

    /// An audio event per imported recorder, from T0 (its time reference) for its length.
    private static func imports(_ t: EditTimeline, from first: Int) -> String {
        var lines: [String] = []
        for (i, imported) in t.imports.enumerated() {
            let digits = String((first + i) % 1000)
            let number = String(repeating: "0", count: 3 - digits.count) + digits
            let end = t.start.adding(frames: imported.durationFrames)
            // A track of its own each (A, A2, A3…): they all start at T0.
            let channel = i == 0 ? "A" : "A\(i + 1)"
            lines.append("\(number)  AX       \(channel + String(repeating: " ", count: max(1, 6 - channel.count)))C        \(t.start) \(end) \(t.start) \(end)")
            lines.append("* FROM CLIP NAME: " + XMEMLWriter.lastComponent(imported.sound.path).filter { $0 != "\n" && $0 != "\r" })
            lines.append("")
        }
        return lines.map { $0 + "\n" }.joined()
    }

    private static func programme(_ t: EditTimeline, title: String) -> String {
        var lines = ["TITLE: \(title)", "FCM: \(t.start.dropFrame ? "DROP FRAME" : "NON-DROP FRAME")", ""]
        for (i, shot) in t.programme.enumerated() {
            let (clip, from) = t.source(of: shot)
            let sourceIn = SMPTETimecode(frames: from, rate: t.rate)
            let recordIn = t.start.adding(frames: shot.startFrame)
            let digits = String((i + 1) % 1000)
            let number = String(repeating: "0", count: 3 - digits.count) + digits
            lines.append("\(number)  AX       V     C        \(sourceIn) \(sourceIn.adding(frames: shot.durationFrames)) "
                + "\(recordIn) \(recordIn.adding(frames: shot.durationFrames))")
            lines.append("* FROM CLIP NAME: " + XMEMLWriter.lastComponent(clip.path).filter { $0 != "\n" && $0 != "\r" })
            lines.append("* SHOT: " + t.programmeName(shot).filter { $0 != "\n" && $0 != "\r" })
            lines.append("")
        }
        return lines.joined(separator: "\n") + "\n" + imports(t, from: t.programme.count + 1)
    }
}
