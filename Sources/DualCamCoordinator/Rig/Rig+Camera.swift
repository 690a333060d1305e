import DualCamCore
import DualCamNet
import DualCamProtocol

/// A camera request on its way (§18): which agent was asked, until when.
struct CameraWaiter {
    let agent: Int
    let deadline: Int64
    let continuation: CheckedContinuation<CameraReport, any Error>
}

/// One camera's answer to `Rig.camera`: its report, or why there is none.
public struct CameraAnswer: Sendable {
    /// The agent's index in the rig's snapshot (`RigSnapshot.agents`).
    public var index: Int
    public var agent: String
    public var role: String
    public var report: CameraReport?
    /// The agent could not be asked or did not answer.
    public var problem: String?
    /// With `match`: the values that could not be copied to this camera.
    public var unmatched: [String] = []
}

extension Rig {
    /// How long an agent has to answer a camera request: a few ioctls and a file write.
    static let cameraAnswerSeconds: Double = 10

    /// Reads or changes the cameras `target` names (a node name or a role, nil for every
    /// connected one), each on its own link while the rig records or not; with
    /// `matchFrom`, first copies that camera's exposure, gain and white balance to them.
    /// Refused, saying why, when no connected camera has that name.
    public func camera(_ target: String?, _ change: CameraChange, matchFrom: String? = nil) async throws -> [CameraAnswer] {
        let chosen = try cameraMembers(target)
        var source: Int?
        if let matchFrom {
            let sources = try cameraMembers(matchFrom)
            guard sources.count == 1, let only = sources.first else {
                throw RigError("--match \(matchFrom) names \(sources.count) cameras; name one (by its node name)")
            }
            source = only
        }
        return try await camera(chosen, change, matchSource: source, matchWords: "--match \(matchFrom ?? "")")
    }

    /// The same for one camera by its index in the snapshot's `agents` (node names may
    /// repeat: two Pis both called raspberrypi), the match's source by its index too: the
    /// studio's panel of each camera.
    public func camera(index: Int, _ change: CameraChange, matchFrom source: Int? = nil) async throws -> [CameraAnswer] {
        let chosen = try connectedMember(index)
        let matched = try source.map { try connectedMember($0) }
        return try await camera([chosen], change, matchSource: matched,
                                matchWords: "match from \(matched.map { members[$0].name } ?? "")")
    }

    private func camera(_ targets: [Int], _ change: CameraChange, matchSource: Int?, matchWords: String) async throws -> [CameraAnswer] {
        var chosen = targets
        var plans: [Int: ControlMatch.Plan] = [:]
        if let source = matchSource {
            chosen.removeAll { $0 == source }
            guard !chosen.isEmpty else { throw RigError("\(matchWords): there is no other camera to match to it") }
            let model = try await ask(source, CameraChange())
            for i in chosen {
                if let listing = try? await ask(i, CameraChange()) {
                    plans[i] = ControlMatch.plan(from: model.controls, sourceName: members[source].name, to: listing.controls)
                }
            }
        }
        var answers: [CameraAnswer] = []
        for i in chosen {
            var answer = CameraAnswer(index: i, agent: members[i].name, role: members[i].role.name)
            var wanted = change
            if let plan = plans[i] {
                wanted.settings = plan.settings.map { .init(name: $0.name, value: String($0.value)) } + change.settings
                answer.unmatched = plan.unmatched
            }
            do {
                let asked = clock.now
                let report = try await ask(i, wanted)
                answer.report = report
                if let zoom = wanted.zoom, report.outcomes.contains(where: { $0.name == "zoom" && $0.applied }) {
                    noteZoom(zoom, agent: i, at: asked)
                }
            } catch {
                answer.problem = "\(error)"
            }
            answers.append(answer)
        }
        return answers
    }

    /// A zoom applied while this agent records a take goes into its file's zoom timeline.
    private func noteZoom(_ zoom: CameraChange.Zoom, agent i: Int, at instant: Int64) {
        guard let take, let t = take.rigIndices.firstIndex(of: i), let t0 = take.t0, !take.machine.phase.isOver else { return }
        take.agents[t].zoomChanges.append(ZoomChange(
            presentationNanoseconds: max(0, instant - t0), factor: zoom.factor, centreX: zoom.centre.x, centreY: zoom.centre.y,
            rampMilliseconds: zoom.rampNanoseconds / 1_000_000))
    }

    private func connectedMember(_ index: Int) throws -> Int {
        guard members.indices.contains(index) else {
            throw RigError("there is no camera \(index); the rig has \(members.count) (numbered from 0)")
        }
        guard members[index].connected else { throw RigError("\(members[index].name) is not connected") }
        return index
    }

    private func cameraMembers(_ target: String?) throws -> [Int] {
        let connected = members.indices.filter { members[$0].connected }
        guard let target else {
            guard !connected.isEmpty else { throw RigError("no camera is connected") }
            return connected
        }
        let wanted = target.lowercased()
        let named = connected.filter { members[$0].name.lowercased() == wanted || members[$0].role.name == wanted }
        guard !named.isEmpty else {
            let names = connected.map { "\(members[$0].name) (\(members[$0].role.name))" }
            throw RigError("no connected camera is called \(WireIdentifier.printable(target, maxCharacters: 64)); "
                + (names.isEmpty ? "none is connected" : "there are: " + names.joined(separator: ", ")))
        }
        return named
    }

    private func ask(_ i: Int, _ change: CameraChange) async throws -> CameraReport {
        guard members[i].connected, let link = members[i].link else {
            throw RigError("\(members[i].name) is not connected")
        }
        guard members[i].protocolMinor >= 5 else {
            throw RigError("\(members[i].name) speaks protocol 1.\(members[i].protocolMinor); camera controls need 1.5: update dualcam-agent on that node")
        }
        let id = nextCameraRequest
        nextCameraRequest += 1
        let deadline = clock.now + Int64(Self.cameraAnswerSeconds * 1e9)
        return try await withCheckedThrowingContinuation { continuation in
            cameraWaiters[id] = CameraWaiter(agent: i, deadline: deadline, continuation: continuation)
            do {
                try link.send(.cameraRequest(CameraWire.request(change, id: id)))
            } catch {
                cameraWaiters[id] = nil
                continuation.resume(throwing: RigError("camera request to \(members[i].name) not sent: \(error)"))
            }
        }
    }

    func answerCamera(_ state: Dualcam_V1_CameraState, from i: Int) {
        guard let waiter = cameraWaiters[state.requestID], waiter.agent == i else { return }
        cameraWaiters[state.requestID] = nil
        waiter.continuation.resume(returning: CameraWire.report(state))
    }

    func failCameraRequests(of i: Int, reason: String) {
        for (id, waiter) in cameraWaiters where waiter.agent == i {
            cameraWaiters[id] = nil
            waiter.continuation.resume(throwing: RigError("\(members[i].name) went away before it answered: \(reason)"))
        }
    }

    func expireCameraRequests(now: Int64) {
        for (id, waiter) in cameraWaiters where now >= waiter.deadline {
            cameraWaiters[id] = nil
            waiter.continuation.resume(throwing: RigError("\(members[waiter.agent].name) did not answer within \(Int(Self.cameraAnswerSeconds)) s"))
        }
    }
}
