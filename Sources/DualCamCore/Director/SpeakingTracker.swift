/// One person's turn, from their own-voice blocks: a run of speech that a pause shorter
/// than the hangover does not end. The shot rules ask two things of it: is this person
/// speaking now, and has their voice gone on long enough (and densely enough) to be a
/// turn rather than a cough, a laugh or an "mm-hm".
struct SpeakingTracker: Sendable {
    private(set) var runStart: Int?
    private(set) var lastActive = Int.min / 2
    private var activeInRun = 0
    let hangoverBlocks: Int
    let switchBlocks: Int

    init(hangoverBlocks: Int, switchBlocks: Int) {
        self.hangoverBlocks = hangoverBlocks
        self.switchBlocks = switchBlocks
    }

    mutating func block(_ index: Int, active: Bool) {
        guard active else {
            if runStart != nil && index - lastActive > hangoverBlocks { runStart = nil; activeInRun = 0 }
            return
        }
        if runStart == nil || index - lastActive > hangoverBlocks {
            runStart = index
            activeInRun = 0
        }
        lastActive = index
        activeInRun += 1
    }

    func speaking(at index: Int) -> Bool {
        runStart != nil && index - lastActive <= hangoverBlocks
    }

    /// Speaking, over at least the switch delay from first to latest voiced block, and
    /// voiced in at least 40% of it (speech is; a hum with one click at each end is not).
    func believed(at index: Int) -> Bool {
        guard let runStart, speaking(at: index) else { return false }
        let span = lastActive - runStart + 1
        return span >= switchBlocks && activeInRun * 5 >= span * 2
    }
}
