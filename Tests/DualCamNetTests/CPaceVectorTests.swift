import Testing

@testable import DualCamNet

/// CPace against the test vectors of its specification, draft-irtf-cfrg-cpace-21:
/// Appendix A (prepend_len, lv_cat, transcript_ir) and Appendix B.3, "Test vector for
/// CPace using group ristretto255 and hash SHA-512" (the same values stand in draft-20).
/// Copied from the draft's text in github.com/cfrg/draft-irtf-cfrg-cpace.
struct CPaceVectorTests {
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    // B.3's inputs.
    static let prs = Array("Password".utf8)
    static let ci = bytes("0b415f696e69746961746f720b425f726573706f6e646572")
    static let sid = bytes("7e4b4791d6a8ef019b936c79fb7f2c57")
    static let ya = bytes("da3d23700a9e5699258aef94dc060dfda5ebb61f02a5ea77fad53f4ff0976d08")
    static let yb = bytes("d2316b454718c35362d83d69df6320f38578ed5984651435e2949762d900b80d")
    static let ada = Array("ADa".utf8), adb = Array("ADb".utf8)
    // B.3's outputs.
    static let g = bytes("222b6b195fe84b1652badb6f6a3ae3d24341e7306967f0b8115b40d5698c7e56")
    static let yaShare = bytes("d6bac480f2c386c394efc7c47adb9925dcd2630b64f240c50f8d0eec482b9157")
    static let ybShare = bytes("3ea7e0b19560d7c0b0f5734f63b955286dfa8232b5ebe63324e2d9e7433f7258")
    static let k = bytes("80b69a8a76457ab6a4d7f887a4bf6b55a2f80ac19c333f917a05fc9887c8b40f")

    @Test func lengthValueEncoding() {
        #expect(CPace.lengthValue([Array("1234".utf8), Array("5".utf8), [], Array("678".utf8)])
                == Self.bytes("043132333401350003363738"))
        #expect(CPace.lengthValue([[]]) == [0])
        #expect(CPace.lengthValue([(0..<127).map { UInt8($0) }]) == [0x7F] + (0..<127).map { UInt8($0) })
        #expect(CPace.lengthValue([(0..<128).map { UInt8($0) }]) == [0x80, 0x01] + (0..<128).map { UInt8($0) })
    }

    @Test func initiatorResponderTranscript() {
        #expect(CPace.transcript(initiatorShare: Array("123".utf8), initiatorData: Array("PartyA".utf8),
                                 responderShare: Array("234".utf8), responderData: Array("PartyB".utf8))
                == Self.bytes("03313233065061727479410332333406506172747942"))
        #expect(CPace.transcript(initiatorShare: Array("3456".utf8), initiatorData: Array("PartyA".utf8),
                                 responderShare: Array("2345".utf8), responderData: Array("PartyB".utf8))
                == Self.bytes("043334353606506172747941043233343506506172747942"))
    }

    @Test func ristretto255GeneratorString() {
        let expected = Self.bytes("""
            11435061636552697374726574746f3235350850617373776f726464
            00000000000000000000000000000000000000000000000000000000
            00000000000000000000000000000000000000000000000000000000
            00000000000000000000000000000000000000000000000000000000
            00000000000000000000000000000000180b415f696e69746961746f
            720b425f726573706f6e646572107e4b4791d6a8ef019b936c79fb7f
            2c57
            """)
        let string = CPace.generatorString(prs: Self.prs, channel: Self.ci, sid: Self.sid)
        #expect(string.count == 170)
        #expect(string == expected)
    }

    @Test func ristretto255Generator() throws {
        #expect(try CPace.generator(prs: Self.prs, channel: Self.ci, sid: Self.sid).bytes == Self.g)
        // The hash the draft shows on the way, derived by libsodium to the same element.
        let hash = Self.bytes("""
            da6d3ddc8802fca9058755ffd3ebde08a9c2c74945901a258482a288
            b6663af06bf645c93cd1c51512307199c80e84908916d983b34af772
            05f90851a657ee27
            """)
        #expect(try Ristretto255.element(fromUniform: hash).bytes == Self.g)
    }

    @Test func ristretto255MessagesAndSecretPoints() throws {
        let generator = try CPace.generator(prs: Self.prs, channel: Self.ci, sid: Self.sid)
        let a = try CPace.Party(scalar: .init(littleEndian: Self.ya), generator: generator)
        let b = try CPace.Party(scalar: .init(littleEndian: Self.yb), generator: generator)
        #expect(a.share == Self.yaShare)
        #expect(b.share == Self.ybShare)
        #expect(try a.sharedPoint(with: b.share) == Self.k)
        #expect(try b.sharedPoint(with: a.share) == Self.k)
    }

    @Test func ristretto255IntermediateKeyInitiatorResponder() {
        let transcript = CPace.transcript(initiatorShare: Self.yaShare, initiatorData: Self.ada,
                                          responderShare: Self.ybShare, responderData: Self.adb)
        #expect(transcript == Self.bytes("""
            20d6bac480f2c386c394efc7c47adb9925dcd2630b64f240c50f8d0e
            ec482b915703414461203ea7e0b19560d7c0b0f5734f63b955286dfa
            8232b5ebe63324e2d9e7433f725803414462
            """))
        #expect(CPace.intermediateKey(sid: Self.sid, sharedPoint: Self.k, transcript: transcript) == Self.bytes("""
            b69effbf61b51d56401c0f65601abe428de8206feaaf0e32198896dc
            ae7b35cd2b38950a39dfd5d4a79164614c2984f7daa460b588c1e80c
            3fa2068af7900447
            """))
    }

    /// "Test case for scalar_mult with valid inputs".
    @Test func ristretto255ScalarMultValid() throws {
        let s = try Ristretto255.Scalar(littleEndian: Self.bytes("7cd0e075fa7955ba52c02759a6c90dbbfc10e6d40aea8d283e407d88cf538a05"))
        let x = Self.bytes("2c3c6b8c4f3800e7aef6864025b4ed79bd599117e427c41bd47d93d654b4a51c")
        #expect(try Ristretto255.multiply(s, x).bytes
                == Self.bytes("7c13645fe790a468f62c39beb7388e541d8405d1ade69d1778c5fe3e7f6b600e"))
    }

    /// "Invalid inputs for scalar_mult_vfy": a string that is no element, and the
    /// identity. The draft's G.I result is a thrown error here, and the exchange aborts.
    @Test func ristretto255ScalarMultVfyInvalid() throws {
        let s = try Ristretto255.Scalar(littleEndian: Self.bytes("7cd0e075fa7955ba52c02759a6c90dbbfc10e6d40aea8d283e407d88cf538a05"))
        let notAnElement = Self.bytes("2b3c6b8c4f3800e7aef6864025b4ed79bd599117e427c41bd47d93d654b4a51c")
        let identity = [UInt8](repeating: 0, count: 32)
        for y in [notAnElement, identity] {
            #expect(throws: SodiumError.self) { _ = try Ristretto255.multiply(s, y) }
            let party = try CPace.Party(scalar: s, generator: try CPace.generator(prs: Self.prs, channel: Self.ci, sid: Self.sid))
            #expect(throws: PairingError.self) { _ = try party.sharedPoint(with: y) }
        }
        do {
            _ = try Ristretto255.multiply(s, identity)
        } catch let error as SodiumError {
            // The one error type carries the C function and its return code.
            #expect(error.function == "crypto_scalarmult_ristretto255" && error.code == -1, "\(error)")
        }
    }

    /// Beyond the vectors: random scalars agree on K only under the same generator.
    @Test func bothPartiesReachTheSameSecretPointOnlyWithTheSameGenerator() throws {
        let g = try CPace.generator(prs: Array("123456".utf8), channel: [1], sid: Array(repeating: 0, count: 32))
        let other = try CPace.generator(prs: Array("123457".utf8), channel: [1], sid: Array(repeating: 0, count: 32))
        let a = try CPace.Party(generator: g), b = try CPace.Party(generator: g), c = try CPace.Party(generator: other)
        #expect(try a.sharedPoint(with: b.share) == b.sharedPoint(with: a.share))
        #expect(try a.sharedPoint(with: c.share) != c.sharedPoint(with: a.share))
        #expect(a.share != b.share, "fresh scalars")
    }
}
