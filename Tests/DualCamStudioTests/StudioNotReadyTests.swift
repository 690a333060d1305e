@testable import DualCamCoordinator
import DualCamCore
import Foundation
import Testing
@testable import DualCamStudio

/// A node whose camera is missing (issue 36) is connected but records nothing: the page
/// is told why, to show it NOT READY on its panel, and does not draw it in the layout.
struct StudioNotReadyTests {
    @Test func aNotReadyNodeCarriesItsReasonAndIsLeftOutOfTheLayout() throws {
        func agent(_ name: String, problem: String?) -> AgentStatus {
            var status = AgentStatus(name: name, role: name, cameraName: "", deviceID: name, address: "127.0.0.1:1",
                                     connection: .connected, clock: nil, telemetry: nil, uploadLagSeconds: nil,
                                     complete: false, givenUp: false)
            status.sourceProblem = problem
            return status
        }
        let reason = "camera /dev/video9 is missing: plug it in, or set `device =` in agent.conf"
        var snapshot = RigSnapshot()
        snapshot.agents = [agent("host", problem: reason), agent("guest", problem: nil)]
        let plan = StudioPlan(base: TakePlan(agents: [], outputDirectory: "/tmp", durationSeconds: nil))
        let state = StudioState(snapshot: snapshot, plan: plan, csrf: "x", codec: { _ in nil }, preview: PreviewHub.Settings())
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(state)) as? [String: Any])
        let agents = try #require(json["agents"] as? [[String: Any]])
        #expect(agents[0]["notReady"] as? String == reason, "\(agents[0])")
        #expect(agents[1]["notReady"] == nil, "a ready node has none: \(agents[1])")
        let slots = try #require((json["layout"] as? [String: Any])?["slots"] as? [[String: Any]])
        #expect(slots.map { $0["camera"] as? Int } == [1], "only the guest is drawn: \(slots)")
    }
}
