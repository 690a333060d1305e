import Foundation
import SwiftProtobuf
import Testing
@testable import DualCamProtocol

/// Protocol 1.8's `source_problem` and SourceStatus (PROTOCOL.md §4.1): carried by
/// HelloAck's Capabilities and, as it changes, by SourceStatus in any phase; bounded like
/// every sentence, and harmless to a peer that does not know them.
@Suite struct SourceProblemTests {
    static let missing = "camera /dev/video9 is missing: plug it in, or set `device =` in agent.conf"

    @Test func itRoundTripsInCapabilitiesAndSourceStatus() throws {
        var caps = Dualcam_V1_Capabilities()
        caps.maxWidth = 1920
        caps.sourceProblem = Self.missing
        let decodedCaps = try Dualcam_V1_Capabilities(serializedBytes: try caps.serializedBytes() as [UInt8])
        #expect(decodedCaps.sourceProblem == Self.missing && decodedCaps.maxWidth == 1920)
        #expect(decodedCaps == caps)
        // Field numbers as dualcam.proto gives them: 7 in Capabilities, the body 44 of
        // Envelope (tag = number << 3 | 2 for a length-delimited field).
        var only = Dualcam_V1_Capabilities()
        only.sourceProblem = "x"
        #expect(try only.serializedBytes() as [UInt8] == [7 << 3 | 2, 1, UInt8(ascii: "x")])
        var status = Dualcam_V1_SourceStatus()
        status.problem = "x"
        var envelope = Dualcam_V1_Envelope()
        envelope.body = .sourceStatus(status)
        #expect(try envelope.serializedBytes() as [UInt8] == [0xE2, 0x02, 3, 1 << 3 | 2, 1, UInt8(ascii: "x")])
        #expect(try Dualcam_V1_Envelope(serializedBytes: try envelope.serializedBytes() as [UInt8]).sourceStatus.problem == "x")
        // The JSON name is the generator's, for the studio's and tests' text forms.
        #expect(try only.jsonString() == #"{"sourceProblem":"x"}"#)
    }

    /// A 1.8 peer reads a 1.7 agent's Capabilities (no field 7) as "no problem"; a 1.7
    /// peer reads 1.8's as this build reads a field it does not know (8 here): skipped,
    /// with everything else kept (PROTOCOL.md §11).
    @Test func olderPeersAreUnaffected() throws {
        var old = Dualcam_V1_Capabilities()
        old.maxFps = 30
        let fromOld = try Dualcam_V1_Capabilities(serializedBytes: try old.serializedBytes() as [UInt8])
        #expect(fromOld.sourceProblem.isEmpty && fromOld.maxFps == 30)
        var newer = Dualcam_V1_Capabilities()
        newer.maxFps = 30
        newer.sourceProblem = Self.missing
        let unknownField: [UInt8] = [8 << 3 | 2, 2, UInt8(ascii: "o"), UInt8(ascii: "k")]
        let fromNewer = try Dualcam_V1_Capabilities(serializedBytes: try newer.serializedBytes() as [UInt8] + unknownField)
        #expect(fromNewer.maxFps == 30 && fromNewer.sourceProblem == Self.missing)
        var ack = Envelopes.helloAck()
        ack.capabilities = fromNewer
        try MessageValidation.checkHelloAck(ack)
    }

    @Test func anOverlongProblemIsABadMessage() throws {
        var ack = Envelopes.helloAck()
        ack.capabilities.sourceProblem = String(repeating: "x", count: WireSentences.maxBytes)
        try MessageValidation.checkHelloAck(ack)
        ack.capabilities.sourceProblem += "x"
        #expect(throws: ProtocolError.self) { try MessageValidation.checkHelloAck(ack) }
        var status = Dualcam_V1_SourceStatus()
        status.problem = String(repeating: "x", count: WireSentences.maxBytes + 1)
        #expect(throws: ProtocolError.self) { try MessageValidation.checkSourceStatus(status) }
        status.problem = Self.missing
        try MessageValidation.checkSourceStatus(status)
    }

    /// An agent says its camera went or came back in any phase; only agents say it; the
    /// coordinator gets the sentence printable.
    @Test func sourceStatusFlowsFromAgentToCoordinatorInAnyPhase() throws {
        var status = Dualcam_V1_SourceStatus()
        status.problem = Self.missing + "\u{7}"
        var pair = MachinePair()
        try pair.connect()
        try pair.agentSends(.sourceStatus(status))
        try pair.pump()
        #expect(pair.coordinatorEvents.last == .sourceStatus({ var s = status; s.problem = Self.missing + "?"; return s }()),
                "\(pair.coordinatorEvents)")
        try pair.startRecording("take-1")
        try pair.agentSends(.sourceStatus(Dualcam_V1_SourceStatus()))
        try pair.pump()
        #expect(pair.coordinatorEvents.last == .sourceStatus(Dualcam_V1_SourceStatus()))
        #expect(throws: ProtocolError.self) { try pair.coordinatorSends(.sourceStatus(status)) }
        var agent = HostileInputTests().establishedAgent()
        let actions = agent.receive(Envelopes.envelope(.sourceStatus(status), sequence: 2), now: 2)
        HostileInputTests().expectRefused(actions, agent, mentioning: "SourceStatus")
    }

    @Test func theVersionSaysItIsThere() {
        #expect(WireProtocol.major == 1 && WireProtocol.minor >= 8)
    }
}
