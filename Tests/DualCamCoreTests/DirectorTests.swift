import Testing
@testable import DualCamCore

/// The director on simulated conversations, in simulated time: the whole take's sound
/// fed in pieces, as the live composite feeds it, and the cuts scored against the turns.
@Suite struct DirectorTests {
    /// The two standard conversations rendered once for every test that hears them (the
    /// rendering is deterministic, and the debug build's slowest part of these tests).
    static let cache: [String: [[Float]]] = {
        var out: [String: [[Float]]] = [:]
        for db in [6.0, 10.0, 12.0] {
            out["interview \(db)"] = SimulatedConversation.interview.render(crosstalkDB: db)
            if db != 10 { out["round table \(db)"] = SimulatedConversation.roundTable.render(crosstalkDB: db) }
        }
        return out
    }()

    static func rendered(_ talk: SimulatedConversation, crosstalkDB: Double) -> [[Float]] {
        talk.name.flatMap { cache["\($0) \(crosstalkDB)"] } ?? talk.render(crosstalkDB: crosstalkDB)
    }

    func direct(_ talk: SimulatedConversation, crosstalkDB: Double, tuning: DirectorTuning = DirectorTuning(),
                piece: Int = 1024) -> [DirectorCut] {
        let mics = Self.rendered(talk, crosstalkDB: crosstalkDB)
        var director = Director(people: talk.people, sampleRate: talk.sampleRate, tuning: tuning)
        var cuts: [DirectorCut] = []
        var at = 0
        while at < mics[0].count {
            let end = min(at + piece, mics[0].count)
            for (stream, mic) in mics.enumerated() {
                director.push(stream: stream, startPosition: Int64(at), samples: Array(mic[at..<end]), channels: 1)
            }
            cuts += director.advance(to: Int64(end))
            at = end
        }
        return cuts
    }

    func score(_ talk: SimulatedConversation, crosstalkDB: Double, tuning: DirectorTuning = DirectorTuning()) -> DirectorScore {
        DirectorScore(cuts: direct(talk, crosstalkDB: crosstalkDB, tuning: tuning), turns: talk.turns,
                      nonTurns: talk.nonTurns, switchDelay: tuning.switchDelay, length: talk.length)
    }

    /// The goals, on two people and on four, with crosstalk 6 and 12 dB down and
    /// room noise at −45 dBFS.
    @Test(arguments: [("interview", 6.0), ("interview", 12.0), ("round table", 6.0), ("round table", 12.0)])
    func aConversationIsFollowed(name: String, crosstalkDB: Double) {
        let talk = name == "interview" ? SimulatedConversation.interview : .roundTable
        let tuning = DirectorTuning()
        let result = score(talk, crosstalkDB: crosstalkDB, tuning: tuning)
        #expect(result.shownShare >= 0.95, "\(result)")
        #expect(result.medianCutDelay <= 0.7, "\(result)")
        #expect(result.cutDelays.count == (name == "interview" ? 5 : 4), "\(result)")
        #expect(result.shortestShot >= tuning.minShot - 0.0101, "\(result)")
        #expect(result.cutsOnNonTurns == 0, "\(result)")
        #expect(result.longOverlaps == 1 && result.longOverlapsShownTogether == 1, "\(result)")
    }

    @Test func thePiecesTheSoundComesInChangeNoCut() {
        let whole = direct(.interview, crosstalkDB: 10, piece: 1 << 20)
        #expect(direct(.interview, crosstalkDB: 10, piece: 333) == whole)
        #expect(!whole.isEmpty)
    }

    @Test func aCameraWithoutSoundIsSilenceAndTheOthersAreStillFollowed() {
        let talk = SimulatedConversation.interview
        let mics = Self.rendered(talk, crosstalkDB: 10)
        var director = Director(people: 3, sampleRate: talk.sampleRate)
        for (stream, mic) in mics.enumerated() { director.push(stream: stream, startPosition: 0, samples: mic, channels: 1) }
        let cuts = director.advance(to: Int64(mics[0].count))
        let result = DirectorScore(cuts: cuts, turns: talk.turns, nonTurns: talk.nonTurns, switchDelay: 0.6, length: talk.length)
        #expect(result.shownShare >= 0.95, "\(result)")
        #expect(!cuts.contains { $0.shot.shown(of: 3).contains(2) && $0.shot != .wide })
    }

    @Test func silenceStaysOrGoesWideByStyle() {
        let talk = SimulatedConversation(people: 2, length: 20, events: [
            .init(person: 1, start: 0.5, end: 5, sound: .turn),
        ])
        let calm = direct(talk, crosstalkDB: 10, tuning: DirectorTuning(style: .calm))
        #expect(calm.map(\.shot) == [.single(1)])
        let lively = direct(talk, crosstalkDB: 10, tuning: DirectorTuning(style: .lively))
        #expect(lively.map(\.shot) == [.single(1), .wide])
        // Wide once nobody has spoken for the style's 4 s: the last syllable ends at 4.9 s,
        // the turn 0.5 s (the hangover) later, and the fades of a syllable decide ±0.1 s.
        #expect(abs(Double(lively[1].atNanoseconds) / 1e9 - 9.4) < 0.1, "\(lively)")
    }

    @Test func aLongMonologueGetsReactionShotsInTheLivelyStyle() {
        let talk = SimulatedConversation(people: 2, length: 40, events: [
            .init(person: 1, start: 0.5, end: 3, sound: .turn),
            .init(person: 0, start: 3.5, end: 40, sound: .turn),
        ])
        let tuning = DirectorTuning(style: .lively)
        let cuts = direct(talk, crosstalkDB: 10, tuning: tuning)
        let reactions = zip(cuts, cuts.dropFirst()).filter { $0.0.shot == .single(1) && $0.1.shot == .single(0) && $0.0.atNanoseconds > 5_000_000_000 }
        #expect(reactions.count == 2, "\(cuts)")
        for (away, back) in reactions {
            #expect(abs(Double(back.atNanoseconds - away.atNanoseconds) / 1e9 - tuning.reactionLength) < 0.02)
        }
        #expect(direct(talk, crosstalkDB: 10).filter { $0.atNanoseconds > 5_000_000_000 }.isEmpty)
    }
}

@Suite struct DirectorShotLayoutTests {
    @Test func aShownSubsetIsParsedWrittenAndDrawnAlone() throws {
        let spec = try LayoutSpec(parsing: "split-horizontal:show=2")
        #expect(spec.shown == [1])
        #expect(spec.description == "split-horizontal:show=2")
        #expect(try LayoutSpec(parsing: spec.description) == spec)
        let slots = LayoutGeometry.slots(for: spec, outputWidth: 1280, outputHeight: 720, streamCount: 2)
        #expect(slots.map(\.stream) == [1] && slots[0].rect == PixelRect(x: 0, y: 0, width: 1280, height: 720))
        let pair = try LayoutSpec(parsing: "equal:show=3+1")
        #expect(LayoutGeometry.slots(for: pair, outputWidth: 1280, outputHeight: 720, streamCount: 4).map(\.stream) == [2, 0])
        #expect(throws: LayoutError.self) { try LayoutSpec(parsing: "pip:show=0") }
        #expect(throws: LayoutError.self) { try LayoutSpec(parsing: "pip:show") }
        // A camera number the take does not have draws every camera rather than none.
        #expect(LayoutGeometry.slots(for: try LayoutSpec(parsing: "grid:show=9"), outputWidth: 640, outputHeight: 360,
                                     streamCount: 2).count == 2)
    }

    @Test func shotsBecomeLayoutsOverTheTakesOwn() throws {
        let base = try LayoutSpec(parsing: "pip:position=top-left")
        #expect(Shot.single(1).layout(base: base, cameras: 2).shown == [1])
        #expect(Shot.people([0, 1]).layout(base: base, cameras: 2).kind == .equal)
        #expect(Shot.wide.layout(base: base, cameras: 2) == base)
        #expect(Shot.wide.layout(base: base, cameras: 4).kind == .grid)
        #expect(Shot.people([0, 2, 3]).layout(base: base, cameras: 4).shown == [0, 2, 3])
    }
}

@Suite struct ProgrammeEditTests {
    @Test func cutsBecomeShotsOnTheFramesTheCompositeCutsOn() {
        let shots = ProgrammeShot.shots(
            cuts: [(1.2, [0], ["host"]), (6.18, [1], ["guest"]), (16.04, [0, 1], ["host", "guest"]), (30, [0], ["host"])],
            rate: .fps30, cameraCount: 2, endFrame: 600)
        #expect(shots.map(\.startFrame) == [0, 36, 186, 482])
        #expect(shots.map(\.camera) == [nil, 0, 1, nil])
        #expect(shots.last?.endFrame == 600)
        #expect(shots.reduce(0) { $0 + $1.durationFrames } == 600)
    }
}
