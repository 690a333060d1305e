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
        var recorder: SimulatedAgent
        /// Connected to the take: segments go out as they are cut.
        var connected = true
    }

    /// The take, or the one a resuming coordinator made of its folder (nil while the
    /// coordinator is down).
    private(set) var take: Take!
    private var folderLeft: String?
    let clock: SimulatedClock
    let notices: NIOLockedValueBox<[String]>
    private let events: AsyncStream<RigEvent>
    private let input: AsyncStream<RigEvent>.Continuation
    private let members: RigMembers
    private(set) var agents: [Agent]
    let segmentNanoseconds: Int64
    /// What the take sent each agent through its link, not answered yet.
    private let inbox = NIOLockedValueBox<[(Int, Dualcam_V1_Envelope.OneOf_Body)]>([])

    /// The library folder the take writes into, removed with the agents.
    let out = NSTemporaryDirectory() + "dualcam-inprocess-take-\(UUID().uuidString)"

    /// `agents` names, e.g. ["host", "guest"]; the take records at 160x90, 30 fps.
    init(agents names: [String], segmentNanoseconds: Int64 = 1_000_000_000,
         plan adjust: (inout TakePlan) -> Void = { _ in }) {
        self.segmentNanoseconds = segmentNanoseconds
        let out = self.out
        let fixture = TakeFixture(out: out, agents: names) { plan in
            (plan.width, plan.height, plan.rate) = (160, 90, .fps30)
            plan.segmentMilliseconds = Int(segmentNanoseconds / 1_000_000)
            plan.startLeadNanoseconds = 500_000_000
            adjust(&plan)
        }
        agents = names.map { Agent(recorder: SimulatedAgent(name: $0, segmentNanoseconds: segmentNanoseconds)) }
        (take, clock, notices) = (fixture.take, fixture.clock, fixture.notices)
        (events, input, members) = (fixture.events, fixture.input, fixture.members)
        let inbox = self.inbox
        for i in members.indices { members[i].link = InboxLink { body in inbox.withLockedValue { $0.append((i, body)) } } }
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
        ack.recordingSessions = agents[i].recorder.recordingSessions
        try take.handle(.connected(ack), from: i, now: clock.now)
        try pump()
    }

    /// Waits for the files the take finishes beside the loop, and tells it, as the rig does.
    func finalised() async -> TakeResult? {
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
        func next() -> (Int, Dualcam_V1_Envelope.OneOf_Body)? {
            inbox.withLockedValue { $0.isEmpty ? nil : $0.removeFirst() }
        }
        repeat {
            while let (i, body) = next() {
                for event in try agents[i].recorder.receive(body) { try take.handle(event, from: i, now: clock.now) }
            }
            for i in agents.indices where agents[i].connected {
                for event in try agents[i].recorder.due(now: clock.now) { try take.handle(event, from: i, now: clock.now) }
            }
        } while !inbox.withLockedValue(\.isEmpty)
    }
}

/// The take's link to an in-process agent: what the take sends goes to the test's inbox.
private final class InboxLink: RigLink {
    private let sent: @Sendable (Dualcam_V1_Envelope.OneOf_Body) -> Void

    init(_ sent: @escaping @Sendable (Dualcam_V1_Envelope.OneOf_Body) -> Void) { self.sent = sent }

    var generation: Int { 0 }
    var state: CoordinatorConnectionStateMachine.State { .established(.idle) }
    func start() {}
    func send(_ body: Dualcam_V1_Envelope.OneOf_Body) throws(ProtocolError) { sent(body) }
    func finish() {}
    func close() {}
}
