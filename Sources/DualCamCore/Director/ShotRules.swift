/// The shot rules, one analysis block at a time: given who speaks, what goes on air.
///
/// - A voice believed for the switch delay (`SpeakingTracker.believed`) alone: a single
///   of that person.
/// - Two or more believed together for `twoShotAfter`: a shot of those people (of all
///   of them: the wide shot). A shorter overlap (a laugh, an interruption that gives up)
///   changes nothing.
/// - Nobody speaking for `silenceAfter`: stay, or go wide.
/// - One person on a single for `reactionAfter` while still speaking: the last other
///   person to speak, for `reactionLength`, then back.
/// - Whatever is wanted waits until the shot on air has had `minShot` (except the
///   opening wide shot, which the first speaker ends at once).
///
/// Pure and deterministic: the same blocks give the same cuts, live or afterwards.
struct ShotRules: Sendable {
    let people: Int
    let tuning: DirectorTuning
    private(set) var onAir: Shot = .wide
    private var onAirSince = 0
    private var groupSince: Int?
    private var lastSpeech = 0
    /// The people in the order they last held a single, most recent last.
    private var speakers: [Int] = []
    private var reaction: (person: Int, until: Int)?

    init(people: Int, tuning: DirectorTuning) {
        self.people = people
        self.tuning = tuning
    }

    private func blocks(_ seconds: Double) -> Int { Int((seconds / DirectorTuning.blockSeconds).rounded()) }

    /// Decides at the end of block `index`; returns the new shot when it cuts.
    /// `voicedRecently`: the person's voice was heard in the last quarter second, not
    /// only within the hangover: a turn that has just ended is no reason to cut to it.
    mutating func decide(at index: Int, speaking: [Bool], believed: [Bool], voicedRecently: [Bool]) -> Shot? {
        if speaking.contains(true) { lastSpeech = index }
        let voices = (0..<people).filter { believed[$0] }
        if voices.count >= 2 { groupSince = groupSince ?? index } else { groupSince = nil }
        var wanted = want(at: index, voices: voices)
        if case .people(let shown) = wanted, shown.count == 1, voices == shown, !voicedRecently[shown[0]] { wanted = onAir }
        // The opening wide shot is the take's, not a shot the director chose: the first
        // speaker is cut to as soon as believed.
        let opening = onAirSince == 0 && onAir == .wide
        guard wanted != onAir, opening || index + 1 - onAirSince >= blocks(tuning.minShot) else { return nil }
        onAir = wanted
        onAirSince = index + 1
        if case .people(let shown) = wanted, shown.count == 1, voices == shown {
            speakers.removeAll { $0 == shown[0] }
            speakers.append(shown[0])
        }
        return wanted
    }

    private mutating func want(at index: Int, voices: [Int]) -> Shot {
        if let r = reaction {
            if index < r.until && !(voices.count == 1 && voices[0] != onAirSpeaker) { return .single(r.person) }
            reaction = nil
        }
        switch voices.count {
        case 0:
            return tuning.silenceGoesWide && index - lastSpeech >= blocks(tuning.silenceAfter) ? .wide : onAir
        case 1:
            let person = voices[0]
            if let after = tuning.reactionAfter, onAir == .single(person),
               index + 1 - onAirSince >= max(blocks(after), blocks(tuning.minShot)),
               let listener = speakers.last(where: { $0 != person }) ?? (0..<people).first(where: { $0 != person }) {
                reaction = (listener, index + 1 + blocks(tuning.reactionLength))
                return .single(listener)
            }
            return .single(person)
        default:
            guard let since = groupSince, index - since >= blocks(tuning.twoShotAfter) else { return onAir }
            // Everybody at once above two cameras is the wide shot (the grid); two voices
            // are always a two-shot, whatever the take's own layout.
            return voices.count == people && people > 2 ? .wide : .people(voices)
        }
    }

    /// The person of a single on air (the speaker a reaction shot returns to).
    private var onAirSpeaker: Int? { speakers.last }
}
