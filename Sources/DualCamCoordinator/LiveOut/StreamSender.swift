import DualCamCore
import DualCamMedia
import DualCamNet
import Foundation
import Logging

/// Sends the programme to one destination on a thread of its own, so that connecting,
/// a slow uplink or a dead peer never touches the recording: the composite's encoder
/// hands each packet to `offer`, which only queues it (`StreamBacklog`, newest wins),
/// and this thread writes what the network takes, reconnecting with a backoff
/// (`StreamBackoff`) when the destination fails. What happened goes to the log (the
/// key masked) and, at the end, to the manifest (`record`).
final class StreamSender: @unchecked Sendable {
    // Invariant: `backlog`, `stopping`, `status`, `writingSince` and `events` are touched only under
    // `condition`'s lock; the output and the backoff only on the sender's thread.
    private let destination: StreamDestination
    private let header: (video: CodecParameters, audio: AudioParameters?)
    private let logger: Logger
    /// The backlog's limit: four seconds at the ceiling (the socket buffer is one).
    private let budgetBytes: Int
    private let condition = NSCondition()
    private var backlog: StreamBacklog<(EncodedPacket, Bool)>
    private var stopping = false
    /// Ended by the operator (End live) until Go live.
    private var paused = false
    private var status: StreamRecord
    private var thread: Thread?
    /// What the status said last, to give the rate since then.
    private var rateWindow: (instant: Int64, bytes: Int64, kbps: Int) = (0, 0, 0)
    private var state = LiveStreamStatus.State.connecting
    private let started = MonotonicTime.now()
    /// How far behind the programme the queue may fall before it is dropped (newest wins):
    /// a picture group, so that a slow uplink costs pictures, not seconds of delay.
    static let backlogNanoseconds: Int64 = 2_000_000_000
    /// How long a connect or a write may take before the destination counts as gone.
    static let timeoutSeconds = 5.0
    /// A write blocked this long shows the destination as stalled (the network takes
    /// nothing: a cable out, a hung server), before the timeout above gives it up.
    static let stallNanoseconds: Int64 = 2_000_000_000
    /// Since when the write under way has waited (nil: none under way).
    private var writingSince: Int64?

    /// `budgetBytes`: the backlog's limit, a few seconds of the programme at its bitrate.
    init(destination: StreamDestination, video: CodecParameters, audio: AudioParameters?, budgetBytes: Int, logger: Logger) {
        self.destination = destination
        header = (video, audio)
        self.logger = logger
        backlog = StreamBacklog(limitBytes: budgetBytes, limitNanoseconds: Self.backlogNanoseconds)
        self.budgetBytes = budgetBytes
        status = StreamRecord(destination: destination.shown)
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "dualcam.stream"
        self.thread = thread
        thread.start()
    }

    /// A packet of the programme; never waits.
    func offer(_ packet: EncodedPacket, audio: Bool) {
        condition.lock()
        if paused {
            condition.unlock()
            return
        }
        backlog.push((packet, audio), bytes: packet.data.count, video: !audio, keyframe: packet.isKeyframe, at: packet.dtsNanoseconds)
        condition.signal()
        condition.unlock()
    }

    /// End live (false) or Go live (true).
    func setLive(_ on: Bool) {
        condition.lock()
        paused = !on
        if paused { backlog.dropAll() }
        condition.broadcast()
        condition.unlock()
    }

    /// Ends the stream: what is queued still goes out for up to a second, then it closes.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    /// What this destination saw so far (final once the thread has ended).
    var record: StreamRecord {
        condition.lock()
        defer { condition.unlock() }
        var r = status
        r.droppedFrames = backlog.droppedVideoFrames
        r.liveSeconds = liveSecondsNow
        return r
    }

    /// The destination now, for the terminal and the studio.
    var liveStatus: LiveStreamStatus {
        condition.lock()
        defer { condition.unlock() }
        let now = MonotonicTime.now()
        let sent = status.bytes
        if now - rateWindow.instant >= 1_000_000_000 {
            let kbps = rateWindow.instant == 0 ? 0 : Int(Double(sent - rateWindow.bytes) * 8 / (Double(now - rateWindow.instant) / 1e9) / 1000)
            rateWindow = (now, sent, kbps)
        }
        // The kernel takes what it can buffer at once: a write that waits means the
        // network has taken nothing for a while.
        let stalled = state == .live && writingSince.map { now - $0 > Self.stallNanoseconds } ?? false
        return LiveStreamStatus(destination: destination.shown, state: stalled ? .stalled : state,
                                kbps: state == .live && !stalled ? rateWindow.kbps : 0,
                                droppedFrames: backlog.droppedVideoFrames, reconnects: status.reconnects,
                                liveSeconds: liveSecondsNow)
    }

    private func set(_ new: LiveStreamStatus.State) {
        condition.lock()
        state = new
        condition.unlock()
    }

    /// Seconds live so far, the current connection included (under the lock).
    private var liveSecondsNow: Double { status.liveSeconds + (status.liveSince.map { seconds(since: $0) } ?? 0) }

    private func seconds(since instant: Int64) -> Double { Double(MonotonicTime.now() - instant) / 1e9 }

    private func event(_ what: String, warning: Bool = false) {
        condition.lock()
        status.events.append(.init(atSeconds: (seconds(since: started) * 10).rounded() / 10, what: what))
        condition.unlock()
        if warning { logger.warning("stream \(destination.shown): \(what)") } else { logger.notice("stream \(destination.shown): \(what)") }
    }

    private var isStopping: Bool { condition.lock(); defer { condition.unlock() }; return stopping }

    private func run() {
        var backoff = StreamBackoff()
        while !isStopping {
            if waitWhilePaused() { break }
            let output: LiveStreamOutput
            set(.connecting)
            do {
                // Half a second of the ceiling, which the kernel doubles: a programme well
                // under its ceiling (the demo's 640x360 sends 450 of 1500 kbit/s) filled a
                // buffer of a second of the ceiling in 6.5 s of a cut cable before any
                // write waited. Enough still for the ceiling over a round trip of up to a second.
                output = try LiveStreamOutput(url: destination.url, shownAs: destination.shown, video: header.video,
                                              audio: header.audio, timeoutSeconds: Self.timeoutSeconds,
                                              sendBufferBytes: max(budgetBytes / 8, 32_768), now: MonotonicTime.now)
            } catch {
                let wait = backoff.failed()
                set(.retrying)
                event("could not connect (\(error)); trying again in \(Int(wait)) s", warning: true)
                pause(seconds: wait)
                continue
            }
            backoff.connected()
            condition.lock()
            // A connection after a lost one starts at the next key frame: the queue holds
            // the rest of a picture group the last one began. The first starts at the
            // first key frame, which the backlog waited for.
            if status.connections > 0 { backlog.dropAll() }
            status.liveSince = MonotonicTime.now()
            status.connections += 1
            state = .live
            let first = status.connections == 1  // read under the lock, as every field of `status`
            condition.unlock()
            event(first ? "live" : "live again")
            let failure = send(to: output)
            output.close()
            condition.lock()
            if let since = status.liveSince { status.liveSeconds += seconds(since: since) }
            status.liveSince = nil
            condition.unlock()
            guard let failure else {
                if isStopping { break }
                event("ended live (the operator); the take records on")
                continue  // End live: wait for Go live
            }
            condition.lock()
            status.reconnects += 1
            state = .retrying
            condition.unlock()
            let wait = backoff.failed()
            event("lost (\(failure)); trying again in \(Int(wait)) s", warning: true)
            pause(seconds: wait)
        }
        set(.ended)
        event("ended")
    }

    /// Writes until stopped (nil) or the destination fails (why).
    private func send(to output: LiveStreamOutput) -> String? {
        var drainUntil: Int64?
        while true {
            condition.lock()
            while backlog.isEmpty && !stopping && !paused { _ = condition.wait(until: Date(timeIntervalSinceNow: 0.25)) }
            if paused && !stopping {
                condition.unlock()
                return nil
            }
            if stopping && drainUntil == nil { drainUntil = MonotonicTime.now() + 1_000_000_000 }
            let next = backlog.pop()
            if next != nil { writingSince = MonotonicTime.now() }
            condition.unlock()
            guard let (packet, audio) = next else { return nil }
            if let drainUntil, MonotonicTime.now() > drainUntil { return nil }
            var failure: String?
            do {
                if audio { try output.writeAudio(packet) } else { try output.writeVideo(packet) }
            } catch {
                failure = "\(error)"
            }
            condition.lock()
            writingSince = nil
            if failure == nil { status.bytes += Int64(packet.data.count) }
            condition.unlock()
            if let failure { return failure }
        }
    }

    /// While ended by the operator: off, until Go live (false) or the take's end (true).
    private func waitWhilePaused() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard paused && !stopping else { return stopping }
        state = .off
        while paused && !stopping { condition.wait() }
        return stopping
    }

    /// Waits `seconds`, or less when stopped.
    private func pause(seconds: Double) {
        condition.lock()
        let until = Date(timeIntervalSinceNow: seconds)
        while !stopping && Date() < until { _ = condition.wait(until: until) }
        condition.unlock()
    }
}

/// One destination's history in the manifest (`liveOut`).
public struct StreamRecord: Codable, Sendable, Equatable {
    public struct Event: Codable, Sendable, Equatable {
        /// Seconds since the stream was started (the composite's first frame).
        public var atSeconds: Double
        public var what: String
    }

    /// The URL, its key masked.
    public var destination: String
    public var connections = 0
    public var reconnects = 0
    public var liveSeconds = 0.0
    public var droppedFrames = 0
    public var bytes: Int64 = 0
    public var events: [Event] = []
    /// While live: since when (not stored).
    var liveSince: Int64?

    init(destination: String) { self.destination = destination }

    enum CodingKeys: String, CodingKey {
        case destination, connections, reconnects, liveSeconds, droppedFrames, bytes, events
    }
}

/// One destination as the terminal and the studio show it while the take records.
public struct LiveStreamStatus: Sendable, Equatable, Encodable {
    public enum State: String, Sendable, Encodable {
        /// Connecting (the first time, or again after a wait).
        case connecting
        /// On air.
        case live
        /// Lost or refused; waiting to try again.
        case retrying
        /// Connected, but a write has waited over 2 s: the network takes nothing (a cable
        /// out, a hung server). Given up, and retried, once the write times out.
        case stalled
        /// Ended by the operator (End live); Go live sends again.
        case off
        case ended
    }

    /// The URL, its key masked.
    public var destination: String
    public var state: State
    /// What went out over the last second or so.
    public var kbps: Int
    /// Pictures not sent because the uplink fell behind (the recording has them all).
    public var droppedFrames: Int
    public var reconnects: Int
    public var liveSeconds: Double
}
