/// Every choice the director makes by rule, with a default for an ordinary two-person
/// interview and two styles: `calm` (longer shots, slower cuts: a conversation with long
/// answers) and `lively` (quick cuts, wide shots in silences, reaction shots).
public struct DirectorTuning: Sendable, Hashable {
    /// How long a new voice must go on (from its first to its latest syllable) before the
    /// director believes it: what keeps a cough or an "mm-hm" off the screen.
    public var switchDelay: Double
    /// No shot is shorter: a cut waits until the shot on air has had this long.
    public var minShot: Double
    /// Two voices together this long (after each is believed) give a shot of both.
    public var twoShotAfter: Double
    /// Nobody speaking this long: `silenceGoesWide` decides whether to go wide or stay.
    public var silenceAfter: Double
    public var silenceGoesWide: Bool
    /// A monologue on one shot this long gets a reaction shot of the listener…
    public var reactionAfter: Double?
    /// … held this long, then back to the speaker.
    public var reactionLength: Double

    public init(switchDelay: Double = 0.6, minShot: Double = 1.5, twoShotAfter: Double = 1.0,
                silenceAfter: Double = 6.0, silenceGoesWide: Bool = false,
                reactionAfter: Double? = nil, reactionLength: Double = 2.0) {
        self.switchDelay = switchDelay
        self.minShot = minShot
        self.twoShotAfter = twoShotAfter
        self.silenceAfter = silenceAfter
        self.silenceGoesWide = silenceGoesWide
        self.reactionAfter = reactionAfter
        self.reactionLength = reactionLength
    }

    public enum Style: String, CaseIterable, Sendable {
        case standard, calm, lively
    }

    public init(style: Style) {
        switch style {
        case .standard: self.init()
        case .calm: self.init(switchDelay: 0.9, minShot: 3.5, twoShotAfter: 1.5, silenceAfter: 8, silenceGoesWide: false)
        case .lively: self.init(switchDelay: 0.45, minShot: 1.2, twoShotAfter: 0.8, silenceAfter: 4, silenceGoesWide: true,
                                reactionAfter: 12, reactionLength: 1.5)
        }
    }

    /// The analysis block: 10 ms, short next to a syllable, long next to a sample.
    public static let blockSeconds = 0.01
    /// A voice that stops for longer than this has finished its turn (a breath between
    /// sentences is shorter).
    public static let hangover = 0.5

    /// Refuses values a person could not mean, with what is allowed.
    public func check() throws(DirectorError) {
        func within(_ value: Double, _ range: ClosedRange<Double>, _ name: String) throws(DirectorError) {
            guard range.contains(value) else {
                throw DirectorError("\(name) \(value) s is outside \(range.lowerBound)–\(range.upperBound) s")
            }
        }
        try within(switchDelay, 0.1...5, "--switch-delay")
        try within(minShot, 0.2...60, "--min-shot")
        try within(twoShotAfter, 0.1...30, "the two-shot delay")
        try within(silenceAfter, 0.5...600, "the silence delay")
        if let reactionAfter { try within(reactionAfter, 2...600, "the reaction-shot interval") }
        try within(reactionLength, 0.5...30, "the reaction-shot length")
    }
}

/// What was wrong with a director setting, in words a user can act on.
public struct DirectorError: Error, Hashable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
