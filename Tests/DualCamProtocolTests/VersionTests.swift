import Testing
@testable import DualCamProtocol

@Suite struct VersionTests {
    @Test func sameMajorIsCompatibleWhateverTheMinor() {
        #expect(WireProtocol.checkCompatible(peer: Envelopes.version(WireProtocol.major, 0)) == nil)
        #expect(WireProtocol.checkCompatible(peer: Envelopes.version(WireProtocol.major, 17)) == nil)
    }

    @Test func otherMajorRefusedNamingBothVersions() throws {
        let message = try #require(WireProtocol.checkCompatible(peer: Envelopes.version(2, 3)))
        #expect(message.contains("2.3"))
        #expect(message.contains("\(WireProtocol.major).\(WireProtocol.minor)"))
    }

    @Test func missingVersionIsMajorZeroAndRefused() {
        #expect(WireProtocol.checkCompatible(peer: Dualcam_V1_ProtocolVersion()) != nil)
    }

    @Test func uploadWindowDefaultsAndFloor() {
        #expect(WireProtocol.uploadWindow(announced: 0) == WireProtocol.defaultUploadWindowBytes)
        #expect(WireProtocol.uploadWindow(announced: 1) == UInt64(WireProtocol.maxSegmentChunkBytes))
        #expect(WireProtocol.uploadWindow(announced: 32 << 20) == 32 << 20)
    }

    @Test func protocolErrorsMapToWireCodes() {
        let e = ProtocolError(.badState, "StartAt before Ready")
        #expect(e.wireError().code == .errorBadState)
        #expect(e.wireError().fatal)
        #expect(e.description == "badState: StartAt before Ready")
        #expect(ProtocolError.frameTooLarge(length: 10).code.wireCode == .errorFrameTooLarge)
    }
}
