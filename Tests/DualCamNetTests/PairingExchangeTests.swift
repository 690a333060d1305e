import DualCamNet
import DualCamProtocol
import Foundation
import Testing

/// The pairing exchange of PROTOCOL.md §13, both halves fed to each other in memory.
struct PairingExchangeTests {
    static let agentID = DeviceID(bytes: Array(repeating: 0xA1, count: 32))
    static let coordinatorID = DeviceID(bytes: Array(repeating: 0xC3, count: 32))
    static let mallory = DeviceID(bytes: Array(repeating: 0x66, count: 32))

    /// Runs the exchange; `tamper` may rewrite what the coordinator receives.
    func run(agentSees coordinator: DeviceID = coordinatorID, coordinatorSees agent: DeviceID = agentID,
             agentNonce: [UInt8] = Array(repeating: 1, count: 32), coordinatorNonce: [UInt8] = Array(repeating: 2, count: 32),
             tamper: (Dualcam_V1_Envelope.OneOf_Body) -> Dualcam_V1_Envelope.OneOf_Body = { $0 },
             confirm: (String, String?) -> Bool) throws -> (agentCode: String?, coordinatorSteps: [CoordinatorPairing.Step], agentSteps: [AgentPairing.Step]) {
        var a = AgentPairing(agent: Self.agentID, coordinator: coordinator, agentName: "pi-guest", role: .guest, nonce: agentNonce)
        var c = CoordinatorPairing(agent: agent, coordinator: Self.coordinatorID, nonce: coordinatorNonce)
        var toAgent: [Dualcam_V1_Envelope.OneOf_Body] = [c.start(coordinatorName: "laptop")]
        var agentCode: String?
        var allAgent: [AgentPairing.Step] = []
        var allCoordinator: [CoordinatorPairing.Step] = []
        while let next = toAgent.first {
            toAgent.removeFirst()
            let steps = try a.receive(next)
            // The agent shows its code as it sends its reveal; the person sees both at once.
            for case .showCode(let code, _) in steps { agentCode = code }
            for step in steps {
                allAgent.append(step)
                let reply: Dualcam_V1_Envelope.OneOf_Body
                switch step {
                case .showCode: continue
                case .send(let body), .pair(_, let body), .declined(let body): reply = body
                }
                for cstep in try c.receive(tamper(reply)) {
                    allCoordinator.append(cstep)
                    switch cstep {
                    case .send(let body): toAgent.append(body)
                    case .confirmCode(let code, _, _): toAgent.append(c.confirm(codesMatch: confirm(code, agentCode)))
                    case .paired, .refused: break
                    }
                }
            }
        }
        return (agentCode, allCoordinator, allAgent)
    }

    @Test func bothSidesDeriveTheSameCodeAndPair() throws {
        var shown: (String, String?)?
        let result = try run { mine, theirs in
            shown = (mine, theirs)
            return mine == theirs
        }
        let (coordinatorCode, agentCode) = try #require(shown)
        #expect(coordinatorCode == agentCode)
        #expect(coordinatorCode.count == 7 && coordinatorCode.filter(\.isNumber).count == 6)
        #expect(result.coordinatorSteps.last == .paired)
        #expect(result.agentSteps.contains { if case .pair(let name, _) = $0 { name == "laptop" } else { false } })
        #expect(result.coordinatorSteps.contains(.confirmCode(coordinatorCode, agentName: "pi-guest", role: .guest)))
    }

    @Test func aPersonWhoSeesDifferentCodesPairsNothing() throws {
        let result = try run { _, _ in false }
        #expect(result.agentSteps.contains { if case .declined = $0 { true } else { false } })
        #expect(!result.agentSteps.contains { if case .pair = $0 { true } else { false } })
        guard case .refused(let why)? = result.coordinatorSteps.last else {
            Issue.record("expected a refusal, got \(result.coordinatorSteps)")
            return
        }
        #expect(why.contains("did not match"))
    }

    /// A man in the middle shows each side its own certificate: the IDs in the two
    /// derivations differ, so the codes do (over many nonces, as often as chance allows).
    @Test func aManInTheMiddleGetsTwoDifferentCodes() throws {
        var same = 0
        for n in 0..<200 {
            let nonceA = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ n) }
            let nonceC = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ n &* 3) }
            let agentSide = PairingCode.derive(agent: Self.agentID, coordinator: Self.mallory, agentNonce: nonceA, coordinatorNonce: nonceC)
            let coordinatorSide = PairingCode.derive(agent: Self.mallory, coordinator: Self.coordinatorID, agentNonce: nonceA, coordinatorNonce: nonceC)
            if agentSide == coordinatorSide { same += 1 }
        }
        #expect(same == 0)
    }

    @Test func aRevealThatBreaksTheCommitmentIsRefused() throws {
        #expect(throws: PairingError.self) {
            _ = try run(tamper: { body in
                guard case .pairReveal(var reveal) = body else { return body }
                reveal.nonce = Data(repeating: 9, count: 32)
                return .pairReveal(reveal)
            }, confirm: { _, _ in true })
        }
    }

    @Test func messagesOutOfOrderAreRefused() throws {
        var a = AgentPairing(agent: Self.agentID, coordinator: Self.coordinatorID, agentName: "a", role: .host)
        #expect(throws: PairingError.self) { _ = try a.receive(.pairConfirm(Dualcam_V1_PairConfirm())) }
        var c = CoordinatorPairing(agent: Self.agentID, coordinator: Self.coordinatorID)
        _ = c.start(coordinatorName: "c")
        #expect(throws: PairingError.self) { _ = try c.receive(.pairReveal(Dualcam_V1_PairReveal())) }
    }

    @Test func aShortNonceIsRefused() throws {
        var a = AgentPairing(agent: Self.agentID, coordinator: Self.coordinatorID, agentName: "a", role: .host)
        _ = try a.receive(.pairRequest(Dualcam_V1_PairRequest()))
        var short = Dualcam_V1_PairNonce()
        short.nonce = Data([1, 2, 3])
        #expect(throws: PairingError.self) { _ = try a.receive(.pairNonce(short)) }
    }

    @Test func typedCodesAreNormalised() {
        #expect(PairingCode.normalized("123456") == "123 456")
        #expect(PairingCode.normalized(" 123-456 ") == "123 456")
        #expect(PairingCode.normalized("12345") == nil)
        #expect(PairingCode.normalized("12a456") == nil)
    }
}
