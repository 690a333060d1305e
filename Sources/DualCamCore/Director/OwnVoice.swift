/// Who is speaking in one short block, from every node's microphone at once.
///
/// In one room every mic hears every voice: the guest's voice reaches the host's mic some
/// 6–12 dB down. A mic's level alone therefore says "somebody speaks", not "its person
/// speaks". Each person's own voice power is solved from all the mics at once, knowing
/// what each voice leaks into each other mic: `leak(i → j)` is a coupling (a power ratio,
/// learnt while one person clearly holds the floor) times voice i's power. A voice counts when
/// it stands well above the room's noise floor *and* at least as high as the leak it was
/// told apart from, so a misjudged coupling leaves a listener silent rather than speaking.
///
/// Pure: powers in, decisions out, one block at a time (`DirectorTuning.blockSeconds`).
public struct OwnVoice: Sendable {
    public let people: Int
    /// Per mic: the room's noise in the band (`NoiseFloor`).
    private var floors: [NoiseFloor]
    /// Until a mic has heard anything but digital silence, nothing in it is a voice.
    public var noiseFloors: [Double] { floors.map { $0.level ?? .infinity } }
    /// coupling[i][j]: the share of mic i's power that mic j hears of the same voice.
    public private(set) var coupling: [[Double]]
    /// Per mic, the band power smoothed over a few blocks: syllables, not samples.
    private var smoothed: [Double]
    private var blocks = 0

    /// The leak assumed before any is measured: the loud end of the crosstalk we expect
    /// (−6 dB), so the first seconds err towards "listening" rather than "speaking".
    static let assumedCoupling = 0.25
    /// Own voice must stand this far above the noise floor (×, power): 10 dB.
    static let aboveNoise = 10.0
    /// … and this far above the predicted leak: 3 dB, the margin a coupling learnt a
    /// little low still leaves.
    static let aboveLeak = 2.0
    /// No mic is quieter than this (−100 dBFS in power): digital silence still has a floor.
    static let quietest = 1e-10

    public init(people: Int) {
        self.people = people
        floors = Array(repeating: NoiseFloor(), count: people)
        coupling = (0..<people).map { i in (0..<people).map { $0 == i ? 1 : Self.assumedCoupling } }
        smoothed = Array(repeating: 0, count: people)
    }

    /// Takes one block's band power per mic; returns per person whether their own voice
    /// is in it.
    public mutating func block(powers: [Double]) -> [Bool] {
        precondition(powers.count == people, "one power per mic")
        blocks += 1
        for j in 0..<people {
            let p = max(powers[j], Self.quietest)
            // Three-block smoothing: a plosive's spike or a 10 ms dropout decides nothing.
            let before = smoothed[j]
            smoothed[j] = blocks == 1 ? p : smoothed[j] * 0.6 + p * 0.4
            // The floor hears pairs of blocks: one block's dip (the first packet's fade-in
            // of an AAC stream) is not the room.
            if blocks > 1 { floors[j].add(max(before, smoothed[j])) }
        }
        learnCoupling()
        let own = ownPowers()
        let noiseFloors = self.noiseFloors
        return (0..<people).map { j in
            var leak = 0.0
            for i in 0..<people where i != j { leak += coupling[i][j] * own[i] }
            return own[j] > Self.aboveNoise * noiseFloors[j] && own[j] > Self.aboveLeak * leak
        }
    }

    /// Each person's voice power at their own mic: the non-negative solution of
    /// `mic j = voice j + Σ coupling(i → j) · voice i`, by a few Gauss–Seidel sweeps.
    /// Subtracting the other *mics* instead would count a third mic's leak twice: with
    /// four people at −6 dB, two speaking at once would both be taken for listeners.
    private func ownPowers() -> [Double] {
        var own = smoothed
        for _ in 0..<4 {
            for j in 0..<people {
                var leak = 0.0
                for i in 0..<people where i != j { leak += coupling[i][j] * own[i] }
                own[j] = max(0, smoothed[j] - leak)
            }
        }
        return own
    }

    /// While mic i is far above its floor and far above every other mic, the others hear
    /// only i's voice (and their room): their ratio to mic i is the coupling. It is tracked
    /// as a lower third (down twice as fast as up), because a listener's own murmur only ever
    /// raises the ratio; clamped to the −3…−30 dB a room can give.
    private mutating func learnCoupling() {
        let noiseFloors = self.noiseFloors
        for i in 0..<people where smoothed[i] > 1000 * noiseFloors[i] {
            for j in 0..<people where j != i && noiseFloors[j].isFinite {
                let ratio = (smoothed[j] - noiseFloors[j]) / smoothed[i]
                guard ratio < 0.5 else { continue }
                let step = ratio < coupling[i][j] ? 0.02 : 0.01
                coupling[i][j] = min(0.5, max(0.001, coupling[i][j] + step * (ratio - coupling[i][j])))
            }
        }
    }
}
