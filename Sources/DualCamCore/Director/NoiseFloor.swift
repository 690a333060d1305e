/// A microphone's room noise in the speech band: the lowest power of the last three
/// seconds (minimum statistics, over sub-windows of a quarter second). It falls at once
/// to a quieter block and rises as soon as the quiet block leaves the window, so a
/// louder room is learnt in three seconds, and speech, whose syllables leave gaps, never
/// passes for it. Digital silence (a stream's start before its sound, a muted card)
/// says nothing about the room and is left out: taken as the floor, it would make the
/// room's noise look like a voice for seconds.
struct NoiseFloor: Sendable {
    private(set) var level: Double?
    private var windows: [Double] = []
    private var current = Double.infinity
    private var count = 0

    static let windowBlocks = 25
    static let windowCount = 12
    /// −90 dBFS in power: below this a block is digital silence.
    static let silence = 1e-9

    mutating func add(_ power: Double) {
        guard power >= Self.silence else { return }
        current = min(current, power)
        count += 1
        if count == Self.windowBlocks {
            windows.append(current)
            if windows.count > Self.windowCount { windows.removeFirst() }
            current = .infinity
            count = 0
        }
        level = min(windows.min() ?? .infinity, current)
    }
}
