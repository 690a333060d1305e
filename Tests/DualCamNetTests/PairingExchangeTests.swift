import DualCamProtocol
import Foundation
import Testing

@testable import DualCamNet

/// The pairing exchange of PROTOCOL.md §14 (CPace), both halves fed to each other in memory.
struct PairingExchangeTests {
    static let agentID = DeviceID(bytes: Array(repeating: 0xA1, count: 32))
    static let coordinatorID = DeviceID(bytes: Array(repeating: 0xC3, count: 32))
    static let mallory = DeviceID(bytes: Array(repeating: 0x66, count: 32))

    struct Outcome {
        var coordinatorSteps: [CoordinatorPairing.Step] = []
        var agentSteps: [AgentPairing.Step] = []
        var agentPinned: Bool { agentSteps.contains { if case .pair = $0 { true } else { false } } }
        var coordinatorPinned: Bool { coordinatorSteps.contains { if case .paired = $0 { true } else { false } } }
    }

    /// Runs the exchange with the code the agent shows and the code the person typed;
    /// `toCoordinator` and `toAgent` may rewrite what crosses the wire.
    func run(shown: String = "042 917", typed: String = "042 917",
             agentSees coordinator: DeviceID = coordinatorID, coordinatorSees agent: DeviceID = agentID,
             toCoordinator: (Dualcam_V1_Envelope.OneOf_Body) -> Dualcam_V1_Envelope.OneOf_Body = { $0 },
             toAgent: (Dualcam_V1_Envelope.OneOf_Body) -> Dualcam_V1_Envelope.OneOf_Body = { $0 }) throws -> Outcome {
        var a = AgentPairing(agent: Self.agentID, coordinator: coordinator, agentName: "pi-guest", role: .guest, code: shown)
        var c = CoordinatorPairing(agent: agent, coordinator: Self.coordinatorID, code: typed)
        var outcome = Outcome()
        var queue: [Dualcam_V1_Envelope.OneOf_Body] = [toAgent(try c.start(coordinatorName: "laptop"))]
        while !queue.isEmpty {
            let next = queue.removeFirst()
            for step in try a.receive(next) {
                outcome.agentSteps.append(step)
                let reply: Dualcam_V1_Envelope.OneOf_Body
                switch step {
                case .send(let body), .pair(_, let body), .declined(_, let body): reply = body
                }
                if c.isFinished { continue }
                for cstep in try c.receive(toCoordinator(reply)) {
                    outcome.coordinatorSteps.append(cstep)
                    if case .send(let body) = cstep, !a.isFinished { queue.append(toAgent(body)) }
                }
            }
        }
        return outcome
    }

    @Test func theRightCodePairsBothSides() throws {
        let outcome = try run()
        #expect(outcome.agentPinned)
        #expect(outcome.coordinatorSteps.last == .paired(agentName: "pi-guest", role: .guest))
        #expect(outcome.agentSteps.contains { if case .pair(let name, _) = $0 { name == "laptop" } else { false } })
    }

    /// Typed with or without its space, the digits are what count.
    @Test func theCodeIsItsDigits() throws {
        #expect(try run(shown: "042 917", typed: "042917").agentPinned)
    }

    @Test func aWrongCodePinsNothingOnEitherSide() throws {
        let outcome = try run(typed: "042 918")
        #expect(!outcome.agentPinned && !outcome.coordinatorPinned)
        guard case .refused(let why)? = outcome.coordinatorSteps.last else {
            Issue.record("expected a refusal, got \(outcome.coordinatorSteps)")
            return
        }
        #expect(why.contains("does not match"))
        // The agent's answer comes back in the refusal (its shell adds the tries left).
        #expect(why.contains("(pi-guest: not paired: the code did not match"), "\(why)")
        // The agent learns of it at once: the coordinator's confirmation is empty.
        #expect(outcome.agentSteps.contains { if case .declined = $0 { true } else { false } })
    }

    /// The attack the old exchange let through: a client that claims the codes match. Its
    /// confirmation carries no proof, and one made up is refused.
    @Test func claimingTheCodesMatchWithoutTheCodeIsRefused() throws {
        var a = AgentPairing(agent: Self.agentID, coordinator: Self.coordinatorID, agentName: "pi", role: .host, code: "123 456")
        var c = CoordinatorPairing(agent: Self.agentID, coordinator: Self.coordinatorID, code: "000 000")
        _ = try a.receive(try c.start(coordinatorName: "intruder"))
        var forged = Dualcam_V1_PairConfirm()
        forged.proof = Data(repeating: 0x55, count: 32)
        let steps = try a.receive(.pairConfirm(forged))
        #expect(!steps.contains { if case .pair = $0 { true } else { false } })
        #expect(steps.contains { if case .declined = $0 { true } else { false } })
    }

    /// A man in the middle shows each side its own certificate. Even knowing the code it
    /// cannot relay one exchange into the other: each leg's generator is bound to the IDs
    /// its two ends saw, so relaying the shares leaves both tags wrong.
    @Test func relayingThroughAManInTheMiddleFails() throws {
        let outcome = try run(agentSees: Self.mallory, coordinatorSees: Self.mallory)
        #expect(!outcome.agentPinned && !outcome.coordinatorPinned)
    }

    @Test func aTamperedShareOrProofIsRefused() throws {
        // The lowest bit set makes a share no ristretto255 element (canonical encodings are
        // even): the exchange ends.
        #expect(throws: PairingError.self) {
            _ = try run(toCoordinator: { body in
                guard case .pairShare(var share) = body else { return body }
                share.share[0] ^= 1
                return .pairShare(share)
            })
        }
        // A valid element in its place (another exchange's share) leaves the tags wrong.
        var elsewhere = CoordinatorPairing(agent: Self.agentID, coordinator: Self.coordinatorID, code: "042 917")
        guard case .pairRequest(let other) = try elsewhere.start(coordinatorName: "laptop") else {
            Issue.record("no request")
            return
        }
        let swappedShare = try run(toCoordinator: { body in
            guard case .pairShare(var share) = body else { return body }
            share.share = other.share
            return .pairShare(share)
        })
        #expect(!swappedShare.agentPinned && !swappedShare.coordinatorPinned)
        let flippedProof = try run(toCoordinator: { body in
            guard case .pairShare(var share) = body else { return body }
            share.proof[0] ^= 1
            return .pairShare(share)
        })
        #expect(!flippedProof.agentPinned && !flippedProof.coordinatorPinned)
        let renamed = try run(toCoordinator: { body in
            guard case .pairShare(var share) = body else { return body }
            share.agentName = "pi-host"
            return .pairShare(share)
        })
        #expect(!renamed.agentPinned && !renamed.coordinatorPinned, "the names are part of the transcript")
    }

    /// The identity as a share would make the key independent of the code, and a string
    /// that is no ristretto255 element has no key at all; both are refused.
    @Test func identityOrInvalidSharesAreRefused() throws {
        var a = AgentPairing(agent: Self.agentID, coordinator: Self.coordinatorID, agentName: "pi", role: .host, code: "123 456")
        var request = Dualcam_V1_PairRequest()
        request.coordinatorName = "laptop"
        request.sessionNonce = Data(repeating: 1, count: 32)
        request.share = Data(repeating: 0, count: 32)
        #expect(throws: PairingError.self) { _ = try a.receive(.pairRequest(request)) }
        var one = request
        one.share = Data([1] + Array(repeating: 0, count: 31))
        var b = AgentPairing(agent: Self.agentID, coordinator: Self.coordinatorID, agentName: "pi", role: .host, code: "123 456")
        #expect(throws: PairingError.self) { _ = try b.receive(.pairRequest(one)) }
    }

    @Test func malformedOrOldRequestsAreRefusedWithAdvice() throws {
        var a = AgentPairing(agent: Self.agentID, coordinator: Self.coordinatorID, agentName: "a", role: .host, code: "123 456")
        var old = Dualcam_V1_PairRequest()
        old.coordinatorName = "laptop"
        do {
            _ = try a.receive(.pairRequest(old))
            Issue.record("a v1 request was answered")
        } catch let error as PairingError {
            #expect(error.description.contains("update dualcam-coordinator"))
        }
        var short = old
        short.sessionNonce = Data([1, 2, 3])
        short.share = Data(repeating: 9, count: 32)
        var b = AgentPairing(agent: Self.agentID, coordinator: Self.coordinatorID, agentName: "a", role: .host, code: "123 456")
        #expect(throws: PairingError.self) { _ = try b.receive(.pairRequest(short)) }
        var forged = short
        forged.sessionNonce = Data(repeating: 1, count: 32)
        forged.coordinatorName = "laptop\nagent: paired with coordinator"
        var d = AgentPairing(agent: Self.agentID, coordinator: Self.coordinatorID, agentName: "a", role: .host, code: "123 456")
        #expect(throws: PairingError.self) { _ = try d.receive(.pairRequest(forged)) }
    }

    /// Pairing version 3 (protocol 1.9) meets 2 (1.1 to 1.8) with a sentence naming both
    /// and the side to update, never as a wrong code; a current or newer peer passes.
    @Test func anOlderPeerIsToldBothPairingVersions() {
        var old = Dualcam_V1_ProtocolVersion()
        old.major = 1
        old.minor = 8
        let now = "\(WireProtocol.major).\(WireProtocol.minor)"
        #expect(PairingVersion.mismatch(peer: old, thisSide: "coordinator", olderSide: "dualcam-agent", where: "on pi-guest")
                == "dualcam-agent on pi-guest pairs with pairing version 2 (protocol 1.8) and this coordinator with pairing "
                + "version 3 (protocol \(now)): update dualcam-agent on pi-guest, then pair again")
        old.minor = 0
        #expect(PairingVersion.mismatch(peer: old, thisSide: "agent (a)", olderSide: "dualcam-coordinator", where: "on c")?
            .contains("pairing version 1 (protocol 1.0)") == true)
        var newer = WireProtocol.version
        #expect(PairingVersion.mismatch(peer: newer, thisSide: "c", olderSide: "a", where: "") == nil)
        newer.minor += 1
        #expect(PairingVersion.mismatch(peer: newer, thisSide: "c", olderSide: "a", where: "") == nil)
    }

    @Test func messagesOutOfOrderAreRefused() throws {
        var a = AgentPairing(agent: Self.agentID, coordinator: Self.coordinatorID, agentName: "a", role: .host, code: "123 456")
        #expect(throws: PairingError.self) { _ = try a.receive(.pairConfirm(Dualcam_V1_PairConfirm())) }
        var c = CoordinatorPairing(agent: Self.agentID, coordinator: Self.coordinatorID, code: "123 456")
        _ = try c.start(coordinatorName: "c")
        #expect(throws: PairingError.self) { _ = try c.receive(.pairResult(Dualcam_V1_PairResult())) }
    }

    /// What an observer sees (the request and the share) differs every run for the same
    /// code and IDs: nothing in it is a fixed function of the code.
    @Test func sharesAreFreshEachExchange() throws {
        var seen = Set<Data>()
        for _ in 0..<20 {
            var c = CoordinatorPairing(agent: Self.agentID, coordinator: Self.coordinatorID, code: "123 456",
                                       sessionNonce: Array(repeating: 3, count: 32))
            guard case .pairRequest(let request) = try c.start(coordinatorName: "c") else { Issue.record("no request"); return }
            seen.insert(request.share)
        }
        #expect(seen.count == 20)
    }

    @Test func codesAreSixRandomDigits() {
        let codes = (0..<50).map { _ in PairingCode.random() }
        #expect(codes.allSatisfy { PairingCode.normalized($0) == $0 })
        #expect(Set(codes).count > 45)
    }

    @Test func typedCodesAreNormalised() {
        #expect(PairingCode.normalized("123456") == "123 456")
        #expect(PairingCode.normalized(" 123-456 ") == "123 456")
        #expect(PairingCode.normalized("12345") == nil)
        #expect(PairingCode.normalized("12a456") == nil)
        #expect(PairingCode.normalized("١٢٣٤٥٦") == nil, "digits of other scripts are not the code's digits")
    }
}
