import DualCamCore
import NIOConcurrencyHelpers

/// Wrong one-time tokens and session cookies, counted per source address. Both are 128
/// random bits, so guessing cannot succeed, but 3,750 guesses a second were answered
/// with no slowdown and nothing in the log. Beyond `burst` wrong ones an address gets one
/// try every `interval`; the rest are refused without being checked. The log says so
/// once per burst, not once per request: a flood must not flood the journal.
final class TokenGuesses: Sendable {
    private struct Entry {
        var bucket: TokenBucket
        /// The log spoke of this address's burst.
        var logged = false
    }

    private let burst: Double
    private let perSecond: Double
    private let entries = NIOLockedValueBox<[String: Entry]>([:])
    private let clock: any TimeSource
    /// Addresses remembered at most; the quiet ones are forgotten first.
    static let maxAddresses = 4096

    init(burst: Double, intervalSeconds: Double, clock: any TimeSource) {
        self.clock = clock
        self.burst = burst
        perSecond = 1 / intervalSeconds
    }

    /// Seconds until `address` may try again; nil when it may now.
    func waitBeforeTrying(_ address: String) -> Int? {
        let now = clock.now
        return entries.withLockedValue { all in
            guard let entry = all[address], entry.bucket.tokens < 1 else { return nil }
            // Peeking must not spend: a copy takes the token, the stored bucket does not.
            var probe = entry.bucket
            if probe.take(now: now) { return nil }
            return max(1, Int((1 / perSecond).rounded(.up)))
        }
    }

    /// A wrong token or cookie from `address`. Returns what to log, once per burst: when
    /// the address first runs out of tries.
    func wrong(_ address: String) -> String? {
        let now = clock.now
        return entries.withLockedValue { all in
            if all[address] == nil && all.count >= Self.maxAddresses {
                all = all.filter { !$0.value.bucket.isFull(now: now) }
                if all.count >= Self.maxAddresses { all.removeAll() }
            }
            var entry = all[address] ?? Entry(bucket: TokenBucket(burst: burst, perSecond: perSecond, now: now))
            if entry.logged && entry.bucket.isFull(now: now) {
                entry.logged = false  // quiet long enough: a new burst
            }
            _ = entry.bucket.take(now: now)
            var words: String?
            if entry.bucket.tokens < 1 && !entry.logged {
                entry.logged = true
                words = "studio: \(Int(burst)) wrong tokens or session cookies from \(address) in a row; its further tries "
                    + "are refused (429) but one every \(Int((1 / perSecond).rounded(.up))) s. Someone there may be guessing the link"
            }
            all[address] = entry
            return words
        }
    }
}
