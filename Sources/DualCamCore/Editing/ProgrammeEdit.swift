/// The director's cut as an edit of the camera angles: from each cut to the next, the
/// one camera a single shows (its own file, so the editor can swap the angle or trim the
/// cut), or the combined file where the shot holds more than one camera (a two-shot, the
/// wide shot: only the composite has that picture).
public struct ProgrammeShot: Sendable, Hashable {
    public var startFrame: Int64
    public var durationFrames: Int64
    /// Index into the timeline's cameras; nil: the combined file.
    public var camera: Int?
    /// The node names shown, for the editor's clip names and metadata.
    public var shown: [String]

    public init(startFrame: Int64, durationFrames: Int64, camera: Int?, shown: [String]) {
        self.startFrame = startFrame
        self.durationFrames = durationFrames
        self.camera = camera
        self.shown = shown
    }

    public var endFrame: Int64 { startFrame + durationFrames }

    /// The shots between the cuts (`at` seconds from T0, the cameras shown by index), the
    /// first from frame 0 in the opening wide shot, the last to `endFrame`. A cut lands on
    /// the first frame at or after its instant, as in the composite.
    public static func shots(cuts: [(at: Double, cameras: [Int], names: [String])], rate: FrameRate, cameraCount: Int,
                             endFrame: Int64) -> [ProgrammeShot] {
        var starts: [(frame: Int64, camera: Int?, names: [String])] = [(0, nil, ["wide"])]
        for cut in cuts {
            let frame = rate.firstFrame(atOrAfter: Int64((cut.at * 1e9).rounded()))
            guard frame < endFrame else { break }
            let single = cut.cameras.count == 1 && cut.cameras[0] < cameraCount ? cut.cameras[0] : nil
            if starts.last?.frame == frame { starts.removeLast() }
            starts.append((frame, single, cut.names))
        }
        return starts.enumerated().compactMap { i, s in
            let end = i + 1 < starts.count ? starts[i + 1].frame : endFrame
            return end > s.frame ? ProgrammeShot(startFrame: s.frame, durationFrames: end - s.frame, camera: s.camera, shown: s.names) : nil
        }
    }
}

extension EditTimeline {
    /// The clip a programme shot takes its picture from, and where in that clip's own
    /// time it starts: the camera's file where it covers the shot, else the combined file.
    public func source(of shot: ProgrammeShot) -> (clip: Clip, sourceFrame: Int64) {
        if let i = shot.camera, i < cameras.count, cameras[i].startFrame <= shot.startFrame, cameras[i].endFrame >= shot.endFrame {
            let c = cameras[i]
            return (c, c.sourceStart.frames + shot.startFrame - c.startFrame)
        }
        let c = programmeComposite ?? combined
        return (c, c.sourceStart.frames + max(0, shot.startFrame - c.startFrame))
    }

    /// The clip's name in the programme: who it shows.
    public func programmeName(_ shot: ProgrammeShot) -> String {
        shot.shown.joined(separator: " + ")
    }
}
