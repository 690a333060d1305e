import DualCamCore

/// How the director is asked to cut a combined file (`--director auto`, its tuning).
public struct DirectorSettings: Sendable, Hashable {
    public var tuning: DirectorTuning
    public var style: DirectorTuning.Style

    public init(style: DirectorTuning.Style = .standard, tuning: DirectorTuning? = nil) {
        self.style = style
        self.tuning = tuning ?? DirectorTuning(style: style)
    }
}

/// The director at work inside one combined file: fed every camera's sound as the
/// renderer gets it, asked before each frame for the cuts up to that frame's instant,
/// which it writes into the layout timeline while it has the programme. The operator can
/// take it over (a layout chosen by hand) and hand it back; it keeps listening meanwhile.
///
/// A frame waits for every camera that has sound to have delivered it up to the frame's
/// instant, so that the cut depends on the sound alone and not on when it arrived: the
/// live composite and a recompose of the same take cut on the same frames. A camera
/// whose sound is more than `patienceNanoseconds` behind is taken as silent.
struct CompositeDirection {
    let settings: DirectorSettings
    private(set) var director: Director?
    /// The operator's layout: a wide shot is drawn in it.
    var base: LayoutSpec
    /// False while the operator has taken over.
    private(set) var following = true
    private let cameras: Int
    private var sampleRate = 0
    /// The cuts it made in the file, in order, and the instants of the timeline changes
    /// that are its own.
    private(set) var cuts: [DirectorCut] = []
    private(set) var ownChanges = Set<Int64>()
    static let patienceNanoseconds: Int64 = 1_000_000_000

    init(settings: DirectorSettings, base: LayoutSpec, cameras: Int) {
        self.settings = settings
        self.base = base
        self.cameras = cameras
    }

    /// The cameras' sound is known: the director starts listening. Until then (and in a
    /// take without sound) it holds nothing back and cuts nothing.
    mutating func listen(sampleRate: Int) {
        guard director == nil, sampleRate >= 8000 else { return }
        self.sampleRate = sampleRate
        director = Director(people: cameras, sampleRate: sampleRate, tuning: settings.tuning)
    }

    mutating func push(stream: Int, startPosition: Int64, samples: [Float], channels: Int) {
        director?.push(stream: stream, startPosition: startPosition, samples: samples, channels: channels)
    }

    private func sample(_ nanoseconds: Int64) -> Int64 { max(0, nanoseconds) * Int64(sampleRate) / 1_000_000_000 }

    /// Whether the frame at `instant` may be composed now: every camera in `awaited` (those
    /// whose sound has come and not ended) has delivered up to it, or is too far behind to
    /// wait for (`finishing`: nothing more comes).
    func mayCompose(at instant: Int64, finishing: Bool, awaited: [Int]) -> Bool {
        guard let director, !finishing else { return true }
        let delivered = director.delivered(by: awaited)
        if delivered >= sample(instant) { return true }
        // Not worth holding pictures for: a camera whose sound lags this far has lost it.
        let newest = awaited.map { director.delivered(by: [$0]) }.max() ?? delivered
        return newest - delivered > sample(Self.patienceNanoseconds)
    }

    /// Analyses up to the frame at `instant` and writes the cuts decided before it into
    /// `timeline` while the director has the programme.
    mutating func beforeFrame(at instant: Int64, timeline: inout LayoutTimeline) {
        guard var director else { return }
        let decided = director.advance(to: sample(instant))
        self.director = director
        if let at = takeOverAt, at <= instant { following = false; takeOverAt = nil }
        if let at = handBackAt, at <= instant {
            handBackAt = nil
            following = true
            // Back on air with what it would show now.
            put(DirectorCut(atNanoseconds: instant, shot: director.shot), into: &timeline)
            return
        }
        guard following else { return }
        for cut in decided { put(cut, into: &timeline) }
    }

    private mutating func put(_ cut: DirectorCut, into timeline: inout LayoutTimeline) {
        cuts.append(cut)
        ownChanges.insert(cut.atNanoseconds)
        timeline.change(at: cut.atNanoseconds, to: cut.shot.layout(base: base, cameras: cameras))
    }

    private var takeOverAt: Int64?
    private var handBackAt: Int64?

    /// The operator chose a layout by hand for the frame at `instant` on: it is the
    /// programme until handed back, and the layout wide shots are drawn in after that.
    mutating func takeOver(at instant: Int64, base: LayoutSpec) {
        self.base = LayoutSpec(kind: base.kind, fit: base.fit, anchor: base.anchor, pip: base.pip)
        takeOverAt = instant
        handBackAt = nil
    }

    /// The director has the programme again from the frame at `instant` (where an
    /// operator's layout may have gone in, even when the take-over had not begun yet).
    mutating func handBack(at instant: Int64) {
        guard !following || takeOverAt != nil else { return }
        takeOverAt = nil
        handBackAt = instant
    }

    /// Per camera: voice heard in the last block, and in a turn (for the studio).
    var speaking: [Bool] { director?.speaking ?? [] }
    var shot: Shot? { director?.shot }
}

extension DirectorSettings {
    /// The settings from `--director auto|off`, `--style`, `--min-shot` and
    /// `--switch-delay` (or the same keys of coordinator.conf): nil when the director is
    /// off. A tuning flag without `--director auto` is refused, so it never silently does
    /// nothing.
    public static func parse(mode: String?, style: String?, minShot: Double?, switchDelay: Double?) throws -> DirectorSettings? {
        switch mode?.lowercased() {
        case "auto", "on":
            break
        case nil, "off":
            if style != nil || minShot != nil || switchDelay != nil {
                throw CoordinatorError("--style, --min-shot and --switch-delay tune the director: add --director auto (it is off by default)")
            }
            return nil
        case let other?:
            throw CoordinatorError("--director \(other): expected auto (cut to whoever speaks) or off")
        }
        let chosen: DirectorTuning.Style
        if let style {
            guard let parsed = DirectorTuning.Style(rawValue: style.lowercased()) else {
                throw CoordinatorError("--style \(style): expected "
                    + DirectorTuning.Style.allCases.map(\.rawValue).joined(separator: ", "))
            }
            chosen = parsed
        } else {
            chosen = .standard
        }
        var tuning = DirectorTuning(style: chosen)
        if let minShot { tuning.minShot = minShot }
        if let switchDelay { tuning.switchDelay = switchDelay }
        do { try tuning.check() } catch { throw CoordinatorError("\(error)") }
        return DirectorSettings(style: chosen, tuning: tuning)
    }

    /// What the terminal says at the start.
    public var summary: String {
        "director on (\(style.rawValue): switch delay \(tuning.switchDelay) s, minimum shot \(tuning.minShot) s)"
    }
}
