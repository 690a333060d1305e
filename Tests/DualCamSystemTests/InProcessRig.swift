import DualCamCore
import DualCamProtocol
import DualCamTestSupport
import Foundation
import Logging
import NIOConcurrencyHelpers
@testable import DualCamCoordinator
@testable import DualCamNet

/// A whole rig on simulated time: the production `Rig` (its loop, links' lives, takes,
/// reconnecting and files) with its links opened to `SimulatedAgent`s in this process
/// instead of over TLS. A test cuts an agent off, brings it back or leaves it gone, and
/// moves time on; the rig's timers (ticks, countdown, reconnect schedule, graces) run on
/// the `SimulatedClock`, so minutes of a take pass in a fraction of a second.
final class InProcessRig: Sendable {
    let clock: SimulatedClock
    let rig: Rig
    let agents: InProcessAgentWorld
    /// Every line the rig told its screens.
    let notices = NIOLockedValueBox<[String]>([])
    /// The library folder the takes write into, removed with the rig that made it (not
    /// with one that was killed: the next coordinator finishes what it left).
    let out: String
    private let ownsOut: NIOLockedValueBox<Bool>
    private let loop: Task<Void, Never>
    private let listener: Task<Void, Never>

    /// `agents`: names (the first the host); `lag`: how long after its end each segment is
    /// handed in; `forgetter`: where the rig asks agents to free a spool (nil: the network's).
    convenience init(agents names: [String], lag: Int64 = 0, forgetter: (any SpoolForgetting)? = nil) {
        self.init(world: InProcessAgentWorld(names: names, lag: lag), clock: SimulatedClock(),
                  out: NSTemporaryDirectory() + "dualcam-inprocess-rig-\(UUID().uuidString)", forgetter: forgetter)
    }

    /// A rig (a coordinator) for agents and a library that may have known another one:
    /// after `kill()`, the next coordinator of the same agents.
    init(world: InProcessAgentWorld, clock: SimulatedClock, out: String, forgetter: (any SpoolForgetting)? = nil) {
        agents = world
        self.clock = clock
        self.out = out
        ownsOut = NIOLockedValueBox(true)
        let names = world.names
        let endpoints = names.indices.map { k in
            AgentEndpoint(host: "10.0.0.\(k + 1)", port: 7000, deviceID: DeviceID(bytes: Array(repeating: UInt8(k + 1), count: 32)))
        }
        let identity = try! DeviceIdentity.generate(commonName: "dualcam-coordinator")
        rig = Rig(agents: endpoints, identity: identity, logger: Logger(label: "rig-test"), clock: clock, dialer: agents,
                  forgetter: forgetter)
        let rig = self.rig
        loop = Task { await rig.run() }
        let (stream, notices) = (rig.notices(), self.notices)
        listener = Task { for await line in stream { notices.withLockedValue { $0.append(line) } } }
    }

    deinit {
        rig.shutdown(sendShutdown: false)
        loop.cancel()
        listener.cancel()
        guard ownsOut.withLockedValue({ $0 }) else { return }
        if ProcessInfo.processInfo.environment["DUALCAM_KEEP_TEST_FILES"] == nil { try? FileManager.default.removeItem(atPath: out) }
    }

    /// The coordinator dies (SIGKILL, a closed laptop): its loop stops where it is, its
    /// links go without a word to anyone, and the agents record on. Its take, and the
    /// session's lock with it, go once the caller drops this rig. The library stays.
    func kill() {
        loop.cancel()
        agents.coordinatorGone()
        ownsOut.withLockedValue { $0 = false }
    }

    /// A take of 160x90 at 30 fps in 1 s segments, into `out`.
    func plan(seconds: Double?, _ adjust: (inout TakePlan) -> Void = { _ in }) -> TakePlan {
        var plan = TakePlan(agents: [], outputDirectory: out, durationSeconds: seconds)
        (plan.width, plan.height, plan.rate) = (160, 90, .fps30)
        plan.segmentMilliseconds = 1000
        plan.startLeadNanoseconds = 500_000_000
        plan.compositePreset = "ultrafast"
        adjust(&plan)
        return plan
    }

    /// Moves time on by `step`, lets the agents deliver what they cut by then, and waits
    /// until the rig's loop has handled all of it.
    func step(_ step: Int64 = 100_000_000) async {
        clock.advance(by: step)
        agents.deliverDue(now: clock.now)
        await rig.settled()
    }

    /// Steps until `task` ends (its files are written in real time, off the loop: time is
    /// not moved while the take finalises), at most `limit` of simulated time; waiting for
    /// the files gives up a minute of real time after the drive began.
    func drive<T: Sendable>(_ task: Task<T, any Error>, limit: Int64 = 120_000_000_000) async throws -> T {
        let done = NIOLockedValueBox(false)
        let watcher = Task { _ = try? await task.value; done.withLockedValue { $0 = true } }
        defer { watcher.cancel() }
        let end = clock.now + limit
        let began = ContinuousClock.now
        while !done.withLockedValue({ $0 }) {
            if await rig.snapshot().take?.phase == .finalising {
                guard ContinuousClock.now - began < .seconds(60) else { throw RigTestTimeout(seconds: 60, files: true) }
                try await Task.sleep(nanoseconds: 2_000_000)
                continue
            }
            guard clock.now < end else { throw RigTestTimeout(seconds: Double(limit) / 1e9) }
            await step()
        }
        return try await task.value
    }

    /// Steps for `duration` of simulated time.
    func run(for duration: Int64) async {
        let end = clock.now + duration
        while clock.now < end { await step() }
    }
}

struct RigTestTimeout: Error, CustomStringConvertible {
    let seconds: Double
    /// The take's files were not finished in that much real time.
    var files = false
    var description: String {
        files ? "the take's files were not finished within \(seconds) s" : "nothing ended within \(seconds) s of simulated time"
    }
}

/// The agents behind an `InProcessRig`'s links, and the network between them and the rig:
/// an agent can be cut off (its link closes as a reset; new ones are refused) and brought
/// back. A cut agent records on, as a real one does, and delivers its spool when its link
/// is back.
final class InProcessAgentWorld: LinkDialer {
    private struct State {
        var agents: [SimulatedAgent]
        var reachable: [Bool]
        /// Each agent's open link, and where its events go.
        var links: [(link: InProcessLink, events: AsyncStream<RigEvent>.Continuation)?]
        var now: Int64 = 0
    }

    private let state: NIOLockedValueBox<State>

    let names: [String]

    init(names: [String], lag: Int64) {
        self.names = names
        state = NIOLockedValueBox(State(agents: names.map { SimulatedAgent(name: $0, segmentNanoseconds: 1_000_000_000, lagNanoseconds: lag) },
                                        reachable: names.map { _ in true }, links: names.map { _ in nil }))
    }

    /// What agent `i` has recorded and the coordinator holds.
    func agent(_ i: Int) -> SimulatedAgent { state.withLockedValue { $0.agents[i] } }

    /// Agent `i`'s network goes: its link closes as a reset, and it is unreachable.
    func cut(_ i: Int) {
        let closing = state.withLockedValue { s -> (InProcessLink, AsyncStream<RigEvent>.Continuation)? in
            s.reachable[i] = false
            defer { s.links[i] = nil }
            return s.links[i].map { ($0.link, $0.events) }
        }
        if let (link, events) = closing { events.yield(.closed(agent: i, generation: link.generation, "connection reset by peer")) }
    }

    /// The coordinator's process is gone: its links close with nobody told (the agents see
    /// their connections drop and record on), and a new coordinator may connect.
    func coordinatorGone() {
        state.withLockedValue { s in
            for i in s.links.indices { s.links[i] = nil }
        }
    }

    /// Agent `i` is reachable again: the rig's next try gets through.
    func restore(_ i: Int) {
        state.withLockedValue { $0.reachable[i] = true }
    }

    /// Every connected agent delivers what it has cut by `now`.
    func deliverDue(now: Int64) {
        let sends = state.withLockedValue { s -> [(Int, [CoordinatorEvent])] in
            s.now = now
            return s.agents.indices.compactMap { i in
                guard s.links[i] != nil, let events = try? s.agents[i].due(now: now), !events.isEmpty else { return nil }
                return (i, events)
            }
        }
        for (i, events) in sends { yield(events, from: i) }
    }

    // MARK: LinkDialer

    func open(index: Int, generation: Int, endpoint: AgentEndpoint, events: AsyncStream<RigEvent>.Continuation,
              previews: PreviewHub, clock: any TimeSource) async throws -> any RigLink {
        let link = InProcessLink(index: index, generation: generation, world: self)
        let opened = state.withLockedValue { s -> Bool in
            guard s.reachable[index] else { return false }
            s.links[index] = (link, events)
            return true
        }
        guard opened else { throw TransportError("cannot connect to \(endpoint.host):\(endpoint.port): connection refused", unreachable: true) }
        return link
    }

    func watchAnnouncements(of id: DeviceID, into announced: NIOLockedValueBox<AgentEndpoint?>) async {}

    // MARK: What the links carry

    /// The agent answers the rig's Hello: its HelloAck and a locked clock.
    fileprivate func hello(_ i: Int, generation: Int) {
        let ack = state.withLockedValue { s -> Dualcam_V1_HelloAck in
            var ack = Dualcam_V1_HelloAck()
            ack.nodeName = s.agents[i].name
            ack.role = i == 0 ? .host : .guest
            ack.version.major = WireProtocol.major
            ack.version.minor = WireProtocol.minor
            ack.recordingSessions = s.agents[i].recordingSessions
            ack.capabilities.maxWidth = 1920
            ack.capabilities.maxHeight = 1080
            ack.capabilities.maxFps = 60
            ack.capabilities.freeDiskBytes = 100_000_000_000
            return ack
        }
        var clock = Dualcam_V1_ClockStatus()
        clock.state = .clockLocked
        clock.errorBoundNs = 50_000
        yield([.connected(ack), .clockStatus(clock)], from: i, generation: generation)
    }

    fileprivate func received(_ body: Dualcam_V1_Envelope.OneOf_Body, by i: Int, generation: Int) {
        let answers = state.withLockedValue { s -> [CoordinatorEvent] in
            guard s.links[i]?.link.generation == generation else { return [] }
            return (try? s.agents[i].receive(body)) ?? []
        }
        yield(answers, from: i, generation: generation)
    }

    fileprivate func ended(_ i: Int, generation: Int, reason: String?) {
        let events = state.withLockedValue { s -> AsyncStream<RigEvent>.Continuation? in
            guard let open = s.links[i], open.link.generation == generation else { return nil }
            s.links[i] = nil
            return open.events
        }
        events?.yield(.closed(agent: i, generation: generation, reason))
    }

    private func yield(_ events: [CoordinatorEvent], from i: Int, generation: Int? = nil) {
        guard !events.isEmpty else { return }
        let (open, now) = state.withLockedValue { ($0.links[i], $0.now) }
        guard let open, generation == nil || open.link.generation == generation else { return }
        for event in events {
            open.events.yield(.event(agent: i, generation: open.link.generation, Delivery(event: event, receivedAtNanoseconds: now)))
        }
    }
}

/// A link to an in-process agent: what the rig sends is handed to the agent, whose answers
/// come back into the rig's events as a real link's would.
final class InProcessLink: RigLink {
    let index: Int
    let generation: Int
    private unowned let world: InProcessAgentWorld

    init(index: Int, generation: Int, world: InProcessAgentWorld) {
        (self.index, self.generation, self.world) = (index, generation, world)
    }

    /// Always free for a new take between takes: the agents finish each take they record.
    var state: CoordinatorConnectionStateMachine.State { .established(.idle) }

    func start() { world.hello(index, generation: generation) }

    func send(_ body: Dualcam_V1_Envelope.OneOf_Body) throws(ProtocolError) {
        world.received(body, by: index, generation: generation)
    }

    func finish() { world.ended(index, generation: generation, reason: nil) }

    func close() { world.ended(index, generation: generation, reason: "closed") }
}
