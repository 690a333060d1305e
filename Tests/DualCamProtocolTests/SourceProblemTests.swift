import Foundation
import SwiftProtobuf
import Testing
@testable import DualCamProtocol

/// Protocol 1.8's `source_problem` (PROTOCOL.md §4.1, §4.4): carried by HelloAck's
/// Capabilities and by Telemetry, bounded like every sentence, and harmless to a peer
/// that does not know it.
@Suite struct SourceProblemTests {
    static let missing = "camera /dev/video9 is missing: plug it in, or set `device =` in agent.conf"

    @Test func itRoundTripsInCapabilitiesAndTelemetry() throws {
        var caps = Dualcam_V1_Capabilities()
        caps.maxWidth = 1920
        caps.sourceProblem = Self.missing
        let decodedCaps = try Dualcam_V1_Capabilities(serializedBytes: try caps.serializedBytes() as [UInt8])
        #expect(decodedCaps.sourceProblem == Self.missing && decodedCaps.maxWidth == 1920)
        #expect(decodedCaps == caps)
        var telemetry = Dualcam_V1_Telemetry()
        telemetry.audioRmsDbfs = -40
        telemetry.sourceProblem = Self.missing
        let decodedTelemetry = try Dualcam_V1_Telemetry(serializedBytes: try telemetry.serializedBytes() as [UInt8])
        #expect(decodedTelemetry.sourceProblem == Self.missing && decodedTelemetry.audioRmsDbfs == -40)
        // Field numbers as dualcam.proto gives them: 7 in Capabilities, 15 in Telemetry
        // (tag = number << 3 | 2 for a length-delimited string).
        var only = Dualcam_V1_Capabilities()
        only.sourceProblem = "x"
        #expect(try only.serializedBytes() as [UInt8] == [7 << 3 | 2, 1, UInt8(ascii: "x")])
        var onlyTelemetry = Dualcam_V1_Telemetry()
        onlyTelemetry.sourceProblem = "x"
        #expect(try onlyTelemetry.serializedBytes() as [UInt8] == [15 << 3 | 2, 1, UInt8(ascii: "x")])
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
        var telemetry = Dualcam_V1_Telemetry()
        telemetry.sourceProblem = String(repeating: "x", count: WireSentences.maxBytes + 1)
        #expect(throws: ProtocolError.self) { try MessageValidation.checkTelemetry(telemetry) }
        telemetry.sourceProblem = Self.missing
        try MessageValidation.checkTelemetry(telemetry)
    }

    @Test func theVersionSaysItIsThere() {
        #expect(WireProtocol.major == 1 && WireProtocol.minor >= 8)
    }
}
