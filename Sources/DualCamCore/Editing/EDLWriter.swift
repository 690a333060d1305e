/// A CMX3600 EDL of the combined file, the fallback every editor reads: one event, the
/// whole file from its start timecode, recorded at its place on the session's timeline.
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
        return """
        TITLE: \(title)
        FCM: \(t.start.dropFrame ? "DROP FRAME" : "NON-DROP FRAME")

        001  AX       V     C        \(sourceIn) \(sourceOut) \(recordIn) \(recordOut)
        * FROM CLIP NAME: \(file)

        """
    }
}
