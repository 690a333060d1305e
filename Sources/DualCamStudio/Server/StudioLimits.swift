/// What one browser, or one stranger, may cost the studio (issue 36). The rig shares the
/// process: its links, clock and segment files need descriptors and time that a page
/// open in a browser must never take from them.
public struct StudioLimits: Sendable {
    /// Connections that have not yet made a request with a session (or, on loopback, any
    /// request): at most this many from one address, and in all. A full budget closes
    /// the oldest stranger of the busiest address (`ConnectionAdmission`), so a flood
    /// evicts itself and a browser with the cookie still gets in.
    public var strangersPerAddress: Int
    public var strangers: Int
    /// A connection that has made no request with a session this long after it opened
    /// is closed: idle sockets from anywhere must not sit on descriptors.
    public var strangerSeconds: Double
    /// A browser's HTTP connection with nothing to do for this long is closed (it opens
    /// another when it needs one); a WebSocket is not idle while it receives states.
    public var idleSeconds: Double
    /// A viewer's WebSocket messages: `viewerBurst` at once, then `viewerMessagesPerSecond`;
    /// a viewer beyond that is told why and closed. The page sends a handful a minute.
    public var viewerMessagesPerSecond: Double
    public var viewerBurst: Double
    /// Wrong tokens or session cookies from one address: `guessBurst` at once, then one
    /// every `guessIntervalSeconds`; the rest are answered 429 without being checked.
    public var guessBurst: Double
    public var guessIntervalSeconds: Double

    public init(strangersPerAddress: Int = 16, strangers: Int = 64, strangerSeconds: Double = 10, idleSeconds: Double = 60,
                viewerMessagesPerSecond: Double = 20, viewerBurst: Double = 100, guessBurst: Double = 10,
                guessIntervalSeconds: Double = 2) {
        precondition(strangersPerAddress >= 1 && strangers >= 1 && strangerSeconds > 0 && idleSeconds > 0)
        precondition(viewerMessagesPerSecond > 0 && viewerBurst >= 1 && guessBurst >= 1 && guessIntervalSeconds > 0)
        self.strangersPerAddress = strangersPerAddress
        self.strangers = strangers
        self.strangerSeconds = strangerSeconds
        self.idleSeconds = idleSeconds
        self.viewerMessagesPerSecond = viewerMessagesPerSecond
        self.viewerBurst = viewerBurst
        self.guessBurst = guessBurst
        self.guessIntervalSeconds = guessIntervalSeconds
    }
}

/// A token bucket: `burst` at once, refilled at `perSecond`. Time is passed in, so the
/// owner decides which clock counts.
struct TokenBucket: Sendable {
    let burst: Double
    let perSecond: Double
    private(set) var tokens: Double
    /// The last take, in nanoseconds of the owner's `TimeSource`.
    private var last: Int64

    init(burst: Double, perSecond: Double, now: Int64) {
        self.burst = burst
        self.perSecond = perSecond
        tokens = burst
        last = now
    }

    /// Takes one token; false when there is none.
    mutating func take(now: Int64) -> Bool {
        let seconds = Double(now - last) / 1e9
        last = now
        tokens = min(burst, tokens + seconds * perSecond)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Whether the bucket has filled up again since `now`'s last take (a burst is over).
    func isFull(now: Int64) -> Bool {
        let seconds = Double(now - last) / 1e9
        return tokens + seconds * perSecond >= burst
    }
}
