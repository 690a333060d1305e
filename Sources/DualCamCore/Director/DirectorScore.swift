/// How well a run of cuts followed a conversation whose turns are known: the figures the
/// director's test and benchmark print (issue 31's goals: ≥ 95 % of speaking time shows
/// the speaker once the switch delay has passed; median cut delay ≤ 0.7 s; no shot under
/// the minimum; no cut on a cough or a back-channel; a two-shot for every overlap ≥ 2 s).
public struct DirectorScore: Sendable, CustomStringConvertible {
    /// A known turn: `person` speaks from `start` to `end` (seconds from T0).
    public struct Turn: Sendable, Hashable {
        public var person: Int
        public var start: Double
        public var end: Double
        public init(person: Int, start: Double, end: Double) {
            self.person = person
            self.start = start
            self.end = end
        }
    }

    /// Share of speaking time, from each turn's start plus the switch delay, on which a
    /// shot of the speaker was on air (a single, or a group that holds them; the wide
    /// shot counts only while two or more speak).
    public var shownShare: Double
    /// Per turn that changes speaker: from the turn's start to the first cut to a shot
    /// that holds the new speaker.
    public var cutDelays: [Double]
    public var shortestShot: Double
    /// Cuts to a person within an event that is not a turn (a cough, an "mm-hm", a laugh).
    public var cutsOnNonTurns: Int
    /// Overlaps of two or more seconds, and how many of them got a shot of both.
    public var longOverlaps: Int
    public var longOverlapsShownTogether: Int

    public var medianCutDelay: Double {
        guard !cutDelays.isEmpty else { return 0 }
        let sorted = cutDelays.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    public var description: String {
        let percent = (shownShare * 1000).rounded() / 10
        return "speaker shown \(percent) % of speaking time after the switch delay; cut delay median "
            + "\(millis(medianCutDelay)) ms over \(cutDelays.count) turn changes (max \(millis(cutDelays.max() ?? 0)) ms); "
            + "shortest shot \(millis(shortestShot)) ms; cuts on coughs/back-channels \(cutsOnNonTurns); "
            + "overlaps ≥ 2 s shown together \(longOverlapsShownTogether) of \(longOverlaps)"
    }

    private func millis(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }

    /// Scores `cuts` (in order, the first shot `.wide` from 0) over a take of `length`
    /// seconds against `turns` and the non-turn events (`person`, start, end).
    public init(cuts: [DirectorCut], turns: [Turn], nonTurns: [Turn], switchDelay: Double, length: Double) {
        var shots: [(start: Double, end: Double, shot: Shot)] = []
        var at = 0.0, current = Shot.wide
        for cut in cuts {
            let time = Double(cut.atNanoseconds) / 1e9
            shots.append((at, time, current))
            at = time
            current = cut.shot
        }
        shots.append((at, length, current))

        func speakers(at t: Double) -> Int { turns.filter { $0.start <= t && t < $0.end }.count }
        func shows(_ shot: Shot, _ person: Int, at t: Double) -> Bool {
            switch shot {
            case .wide: speakers(at: t) >= 2
            case .people(let shown): shown.contains(person)
            }
        }
        // Shown share on a 10 ms grid: fine next to any shot, cheap next to any take.
        var total = 0, shown = 0
        for turn in turns {
            var t = turn.start + switchDelay
            while t < turn.end {
                total += 1
                if let shot = shots.last(where: { $0.start <= t })?.shot, shows(shot, turn.person, at: t) { shown += 1 }
                t += 0.01
            }
        }
        shownShare = total == 0 ? 1 : Double(shown) / Double(total)

        cutDelays = []
        let ordered = turns.sorted { $0.start < $1.start }
        for (i, turn) in ordered.enumerated() where i > 0 {
            let before = ordered[..<i]
            // A change of speaker: the last turn to start was someone else's, no turn of this
            // person is still going, and nobody else's either (an interruption is an
            // overlap, scored by its two-shot).
            guard before.last?.person != turn.person,
                  !before.contains(where: { $0.end > turn.start }) else { continue }
            // Until a shot that holds the speaker is on air (none needed if one already is).
            if let shot = shots.first(where: { $0.end > turn.start && shows($0.shot, turn.person, at: max($0.start, turn.start)) }) {
                cutDelays.append(max(0, shot.start - turn.start))
            }
        }
        // The last shot runs to the end of the take, which is not the director's doing.
        shortestShot = shots.dropLast().dropFirst().map { $0.end - $0.start }.min() ?? length

        cutsOnNonTurns = 0
        for event in nonTurns {
            let window = (event.start, event.end + 1.0)
            let ownTurn = turns.contains { $0.person == event.person && $0.start < window.1 && $0.end > window.0 }
            guard !ownTurn else { continue }
            cutsOnNonTurns += cuts.filter { cut in
                let t = Double(cut.atNanoseconds) / 1e9
                guard t >= window.0 && t <= window.1, case .people(let shown) = cut.shot else { return false }
                return shown.contains(event.person)
            }.count
        }

        longOverlaps = 0
        longOverlapsShownTogether = 0
        for (i, a) in turns.enumerated() {
            for b in turns[(i + 1)...] where a.person != b.person {
                let start = max(a.start, b.start), end = min(a.end, b.end)
                guard end - start >= 2 else { continue }
                longOverlaps += 1
                let together = shots.contains { shot in
                    shot.start < end && shot.end > start && (shot.shot == .wide
                        || (shot.shot.shown(of: Int.max).contains(a.person) && shot.shot.shown(of: Int.max).contains(b.person)))
                }
                if together { longOverlapsShownTogether += 1 }
            }
        }
    }
}
