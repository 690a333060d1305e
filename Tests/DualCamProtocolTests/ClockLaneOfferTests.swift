import Foundation
import Testing
@testable import DualCamProtocol

/// The clock lane's offer (§20): valid in any phase, its terms checked before the agent
/// opens a socket on them, never sent by an agent.
@Suite struct ClockLaneOfferTests {
    static func offer(port: UInt32 = 40_000, key: Int = WireProtocol.clockLaneKeyBytes, lane: UInt64 = 9) -> Dualcam_V1_ClockLaneOffer {
        var offer = Dualcam_V1_ClockLaneOffer()
        offer.port = port
        offer.key = Data(repeating: 7, count: key)
        offer.laneID = lane
        return offer
    }

    @Test func anOfferReachesTheAgentWhileRecording() throws {
        var pair = MachinePair()
        try pair.startRecording("take-1")
        try pair.coordinatorSends(.clockLaneOffer(Self.offer()))
        try pair.pump()
        #expect(pair.agentEvents.last == .clockLaneOffered(Self.offer()))
        #expect(pair.agent.state == .established(.recording(sessionID: "take-1")))
    }

    @Test func badTermsAreRefused() throws {
        for bad in [Self.offer(port: 0), Self.offer(port: 65_536), Self.offer(key: 0), Self.offer(key: 31), Self.offer(key: 33),
                    Self.offer(lane: 0)] {
            var agent = HostileInputTests().establishedAgent()
            let actions = agent.receive(Envelopes.envelope(.clockLaneOffer(bad), sequence: 2), now: 2)
            HostileInputTests().expectRefused(actions, agent, mentioning: "ClockLaneOffer")
            var pair = MachinePair()
            try pair.connect()
            #expect(throws: ProtocolError.self) { try pair.coordinatorSends(.clockLaneOffer(bad)) }
        }
    }

    @Test func agentsDoNotOfferLanes() throws {
        var pair = MachinePair()
        try pair.connect()
        #expect(throws: ProtocolError.self) { try pair.agentSends(.clockLaneOffer(Self.offer())) }
        let actions = pair.coordinator.receive(Envelopes.envelope(.clockLaneOffer(Self.offer()), sequence: 1_000), now: pair.now)
        #expect(actions.sentError()?.code == .errorBadMessage, "\(actions)")
    }
}
