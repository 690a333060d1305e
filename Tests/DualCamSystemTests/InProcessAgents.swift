import Crypto
import DualCamCore
import DualCamMedia
import DualCamProtocol
import DualCamTestSupport
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing
@testable import DualCamCoordinator

/// The agents of a take, in this process and on simulated time: each answers what the take
/// sends as `dualcam-agent` would (Ready to Prepare; from StartAt a segment of real TS
/// pictures every `segmentNanoseconds` of simulated time; what is missing at Resume;
/// RecordingFinished once its last segment is out after the Stop). No process, connection
/// or camera: the take is driven from Prepare to its files in a fraction of a second.
///
/// A lost agent records on into its spool and delivers it when the take hears it is back,
/// as a real one does. What the take does in between (reconnecting) is the rig's, not
/// simulated here.
final class InProcessAgents {
    struct Agent {
        var t0: Int64?
        var stop: Int64?
        /// Connected to the take: segments go out as they are cut.
        var connected = true
        /// Segments the take holds (acknowledged as durable).
        var delivered = Set<Int>()
        var finishedSent = false
        var stopped: Bool { stop != nil }
    }

    /// The take, or the one a resuming coordinator made of its folder (nil while the
    /// coordinator is down).
    private(set) var take: Take!
    private var folderLeft: String?
    let clock: SimulatedClock
    let notices: NIOLockedValueBox<[String]>
    private let events: AsyncStream<SessionEvent>
    private let input: AsyncStream<SessionEvent>.Continuation
    private let members: RigMembers
    private(set) var agents: [Agent]
    let segmentNanoseconds: Int64
    private var inbox: [(Int, Dualcam_V1_Envelope.OneOf_Body)] = []
    private var sessionID = ""
    /// Each span's segment, by "first-last" (every agent films the same pictures).
    private var segments: [String: (data: Data, frames: Int)] = [:]

    /// The library folder the take writes into, removed with the agents.
    let out = NSTemporaryDirectory() + "dualcam-inprocess-take-\(UUID().uuidString)"

    /// `agents` names, e.g. ["host", "guest"]; the take records at 160x90, 30 fps.
    init(agents names: [String], segmentNanoseconds: Int64 = 1_000_000_000,
         plan adjust: (inout SessionPlan) -> Void = { _ in }) {
        self.segmentNanoseconds = segmentNanoseconds
        let out = self.out
        let fixture = TakeFixture(out: out, agents: names) { plan in
            (plan.width, plan.height, plan.rate) = (160, 90, .fps30)
            plan.segmentMilliseconds = Int(segmentNanoseconds / 1_000_000)
            plan.startLeadNanoseconds = 500_000_000
            adjust(&plan)
        }
        agents = Array(repeating: Agent(), count: names.count)
        (take, clock, notices) = (fixture.take, fixture.clock, fixture.notices)
        (events, input, members) = (fixture.events, fixture.input, fixture.members)
        take.outbox = { [unowned self] i, body in inbox.append((i, body)) }
    }

    /// The coordinator is killed mid-take: its take is dropped where it stood (its folder,
    /// session.json and the segments it held stay), and every agent records on, unheard.
    func killCoordinator() {
        for i in agents.indices { agents[i].connected = false }
        folderLeft = take.sessionDirectory
        // Its lock goes with it, as with its process.
        take = nil
    }

    /// A new coordinator picks the take up from its folder, as `dualcam-coordinator
    /// resume` does: every agent lost until it reconnects.
    func resumeTake() throws {
        let directory = try #require(folderLeft)
        let record = try SessionRecord.load(from: directory)
        let plan = try record.plan(outputDirectory: out)
        let endpoints = members.map(\.endpoint)
        let notices = self.notices
        take = try Take(resuming: record, plan: plan, sessionDirectory: directory,
                        agents: AgentTracker.resuming(record, endpoints: endpoints), members: members,
                        rigIndices: Array(endpoints.indices), lock: SessionLock(sessionDirectory: directory, purpose: "resuming"),
                        logger: Logger(label: "take-test"), notice: { line in notices.withLockedValue { $0.append(line) } },
                        clock: clock, events: input)
        take.outbox = { [unowned self] i, body in inbox.append((i, body)) }
        take.refileHeld()
    }

    deinit {
        if ProcessInfo.processInfo.environment["DUALCAM_KEEP_TEST_FILES"] == nil { try? FileManager.default.removeItem(atPath: out) }
    }

    /// Started, clocks locked, every agent Ready: the countdown runs.
    func start() throws {
        take.feed(.start(now: clock.now))
        for i in agents.indices {
            take.feed(.clock(agent: i, locked: true, boundNanoseconds: 50_000, now: clock.now))
        }
        try pump()
    }

    /// Moves simulated time on in steps of `step`, ticking the take and letting the agents
    /// answer and deliver at each.
    func run(for duration: Int64, step: Int64 = 100_000_000) throws {
        let end = clock.now + duration
        while clock.now < end {
            clock.advance(to: min(end, clock.now + step))
            take?.feed(.tick(now: clock.now))
            try pump()
        }
    }

    /// The operator's stop.
    func stop() throws {
        take.feed(.stop(now: clock.now, reason: "stopped by the operator"))
        try pump()
    }

    /// Agent `i`'s connection is cut: it records on, delivering nothing.
    func lose(_ i: Int) {
        agents[i].connected = false
        take.lost(i, reason: "connection reset by peer", now: clock.now)
    }

    /// Agent `i` is reachable again, still recording this take (not restarted).
    func reconnect(_ i: Int) throws {
        agents[i].connected = true
        var ack = Dualcam_V1_HelloAck()
        ack.nodeName = take.agents[i].name
        if agents[i].t0 != nil, !agents[i].finishedSent { ack.recordingSessions = [sessionID] }
        try take.handle(.connected(ack), from: i, now: clock.now)
        try pump()
    }

    /// Waits for the files the take finishes beside the loop, and tells it, as the rig does.
    func finalised() async -> SessionResult? {
        // nil rather than a wait forever when the take is not finishing its files.
        guard case .finalising = take.machine.phase, take.finishing != nil else { return nil }
        for await event in events {
            guard case .finalised(let result, let failure) = event else { continue }
            take.result = result
            take.feed(.finalised(ok: result != nil, reason: failure))
            return result
        }
        return nil
    }

    /// Answers every message the take sent, then delivers what each connected agent has
    /// cut by now; again while answers bring more messages.
    func pump() throws {
        repeat {
            while !inbox.isEmpty {
                let (i, body) = inbox.removeFirst()
                try answer(body, from: i)
            }
            for i in agents.indices where agents[i].connected { try deliver(i) }
        } while !inbox.isEmpty
    }

    private func answer(_ body: Dualcam_V1_Envelope.OneOf_Body, from i: Int) throws {
        let now = clock.now
        switch body {
        case .prepare(let prepare):
            sessionID = prepare.sessionID
            var ready = Dualcam_V1_Ready()
            ready.sessionID = prepare.sessionID
            try take.handle(.ready(ready), from: i, now: now)
        case .startAt(let start):
            agents[i].t0 = start.t0SharedNs
            if start.stopSharedNs > 0 { agents[i].stop = start.stopSharedNs }
        case .stop(let stop):
            agents[i].stop = min(agents[i].stop ?? .max, stop.stopSharedNs)
            if agents[i].t0 == nil { try finish(i) }  // prepared, never started: nothing recorded
        case .resume(let resume):
            agents[i].delivered = Set(resume.held.map(Int.init))
        default:
            break
        }
    }

    /// Segments cut by now that the take does not hold, then RecordingFinished once the
    /// stop's segment is out.
    private func deliver(_ i: Int) throws {
        guard let t0 = agents[i].t0, !agents[i].finishedSent else { return }
        let end = min(clock.now, agents[i].stop ?? .max)
        guard end > t0 else {
            if agents[i].stopped, clock.now >= agents[i].stop! { try finish(i) }
            return
        }
        let total = segmentCount(i, upTo: end)
        for k in 0..<total where !agents[i].delivered.contains(k) {
            try send(segment: k, to: i, until: end - t0)
        }
        if let stop = agents[i].stop, clock.now >= stop { try finish(i) }
    }

    /// Segments whole by `instant` (all of them, the last one short, once stopped there).
    private func segmentCount(_ i: Int, upTo instant: Int64) -> Int {
        let t0 = agents[i].t0!
        let elapsed = instant - t0
        let whole = Int(elapsed / segmentNanoseconds)
        guard let stop = agents[i].stop, instant >= stop else { return whole }
        return elapsed % segmentNanoseconds == 0 ? whole : whole + 1
    }

    private func finish(_ i: Int) throws {
        guard !agents[i].finishedSent else { return }
        agents[i].finishedSent = true
        var finished = Dualcam_V1_RecordingFinished()
        finished.sessionID = sessionID
        if let t0 = agents[i].t0, let stop = agents[i].stop, stop > t0 {
            finished.segmentCount = UInt32(segmentCount(i, upTo: stop))
            finished.framesCaptured = UInt64(framesBetween(0, stop - t0))
        }
        try take.handle(.recordingFinished(finished), from: i, now: clock.now)
    }

    private func send(segment k: Int, to i: Int, until end: Int64) throws {
        let first = Int64(k) * segmentNanoseconds
        let last = min(first + segmentNanoseconds, end)
        let (data, frames) = try Self.encoded(from: first, to: last, cache: &segments)
        var offer = Dualcam_V1_SegmentOffer()
        offer.sessionID = sessionID
        offer.index = UInt32(k)
        offer.size = UInt64(data.count)
        offer.sha256 = Data(SHA256.hash(data: data))
        offer.firstPtsNs = first
        offer.durationNs = last - first
        offer.frameCount = UInt32(frames)
        try take.handle(.segmentOffered(offer), from: i, now: clock.now)
        var chunk = Dualcam_V1_SegmentData()
        chunk.sessionID = sessionID
        chunk.index = UInt32(k)
        chunk.data = data
        chunk.last = true
        try take.handle(.segmentData(chunk), from: i, now: clock.now)
        agents[i].delivered.insert(k)
    }

    private func framesBetween(_ from: Int64, _ to: Int64) -> Int {
        let rate = take.plan.rate
        return Int(rate.firstFrame(atOrAfter: to) - rate.firstFrame(atOrAfter: from))
    }

    /// The TS segment of the pictures from `first` to `last` (from T0), encoded once.
    private static func encoded(from first: Int64, to last: Int64,
                                cache: inout [String: (data: Data, frames: Int)]) throws -> (Data, Int) {
        let key = "\(first)-\(last)"
        if let hit = cache[key] { return hit }
        let rate = FrameRate.fps30
        let settings = VideoEncoderSettings(width: 160, height: 90, rate: rate, preset: "ultrafast", gopFrames: 300, threads: 1)
        let encoder = try VideoEncoder(settings: settings)
        let path = NSTemporaryDirectory() + "dualcam-inprocess-\(UUID().uuidString).ts"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try SegmentWriter(path: path, parameters: encoder.parameters)
        var picture = YUV420Image(width: 160, height: 90)
        var frames = 0
        for frame in rate.firstFrame(atOrAfter: first)..<rate.firstFrame(atOrAfter: last) {
            for j in picture.y.indices { picture.y[j] = UInt8(truncatingIfNeeded: 16 + Int(frame) * 3 + j % 160) }
            for packet in try encoder.encode(picture, ptsNanoseconds: rate.instant(ofFrame: frame), forceKeyframe: frames == 0) {
                try writer.write(packet)
            }
            frames += 1
        }
        for packet in try encoder.flush() { try writer.write(packet) }
        _ = try writer.finish()
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        cache[key] = (data, frames)
        return (data, frames)
    }
}
