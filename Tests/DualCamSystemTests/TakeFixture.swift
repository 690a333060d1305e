import DualCamCore
import DualCamNet
import DualCamProtocol
import DualCamTestSupport
import Foundation
import Logging
import NIOConcurrencyHelpers
@testable import DualCamCoordinator

/// A take of in-process agents with no connection, on simulated time: what its agents'
/// connections would deliver is handed to `Take.handle`, and what it decides is read
/// from its machine and notices.
struct TakeFixture {
    let take: Take
    let notices = NIOLockedValueBox<[String]>([])
    let clock = SimulatedClock()
    /// What the take tells the rig's loop (its files finished), and its sending end.
    let events: AsyncStream<RigEvent>
    let input: AsyncStream<RigEvent>.Continuation
    let members: RigMembers

    /// `plan` adjusts the take's settings (1080p30, no composite measurement, by default).
    init(out: String, agents names: [String], plan adjust: (inout TakePlan) -> Void = { _ in }) {
        var plan = TakePlan(agents: [], outputDirectory: out, durationSeconds: nil)
        (plan.width, plan.height, plan.rate) = (1920, 1080, .fps30)
        // No composite measurement: these tests are about the agents.
        plan.compositePreset = "ultrafast"
        adjust(&plan)
        let agents = names.enumerated().map { k, name in
            var tracker = AgentTracker(endpoint: AgentEndpoint(host: "127.0.0.1", port: 9000 + k,
                                                               deviceID: DeviceID(bytes: Array(repeating: UInt8(k + 1), count: 32))))
            tracker.name = name
            return tracker
        }
        let (notices, clock) = (self.notices, self.clock)
        let (events, input) = AsyncStream.makeStream(of: RigEvent.self)
        (self.events, self.input) = (events, input)
        let members = RigMembers(agents.map { Rig.Member(endpoint: $0.endpoint, name: $0.name) })
        self.members = members
        take = Take(plan: plan, agents: agents, members: members, rigIndices: Array(names.indices), logger: Logger(label: "take-test"),
                    notice: { line in notices.withLockedValue { $0.append(line) } }, clock: clock, events: input)
    }

    /// Started, every clock locked: Prepare has gone to every agent.
    func prepare(at now: Int64 = 0) {
        take.feed(.start(now: now))
        for i in take.agents.indices {
            take.feed(.clock(agent: i, locked: true, boundNanoseconds: 50_000, now: now + 1_000_000))
        }
    }

    /// The Ready an agent answers the take's Prepare with.
    static func ready(_ take: Take) -> CoordinatorEvent {
        var ready = Dualcam_V1_Ready()
        ready.sessionID = take.sessionID
        return .ready(ready)
    }
}
