import DualCamCoordinator
import DualCamCore
import Foundation
import Hummingbird
import HummingbirdWebSocket

/// The camera panels' HTTP side (docs/STUDIO.md, "Camera panel"): each camera's controls,
/// digital zoom, locks and matching, through the rig's typed API (`Rig.camera`), the one
/// the terminal's `camera` words use. A camera is named by its `index` in the state, not
/// by its node name, which two nodes may share. Nothing here waits on a take: the rig asks
/// the agent over its link while it records, and whatever a camera refuses comes back as
/// that control's problem, never as a stopped recording.
extension Studio {
    func cameraRoutes(_ router: Router<StudioContext>) {
        router.get("/api/cameras") { _, _ in
            try await WebFileResponse.json(self.allCameras())
        }
        router.get("/api/cameras/{index}") { _, context in
            let index = try await self.cameraIndex(context.parameters.require("index"))
            return try await WebFileResponse.json(self.askCamera(index, CameraChange()))
        }
        router.post("/api/cameras/{index}") { request, context in
            let index = try await self.cameraIndex(context.parameters.require("index"))
            let asked = try await self.decodedBody(request, as: CameraPanelRequest.self, empty: CameraPanelRequest())
            let change: CameraChange
            do {
                change = try asked.change()
            } catch let error as StudioError {
                throw StudioHTTPError(error.status, error.message)
            }
            if let source = asked.matchFrom { _ = try await self.cameraIndex(String(source), status: 400) }
            let listing = try await self.askCamera(index, change, matchFrom: asked.matchFrom)
            // The other viewers' panels follow, as their pictures follow a layout change.
            self.cameraChanges.yield(listing)
            return try WebFileResponse.json(listing)
        }
    }

    /// Every connected camera's panel; one the rig cannot ask says why in its `problem`.
    private func allCameras() async -> CameraPanelListing {
        let agents = await rig.snapshot().agents
        var cameras: [CameraPanelState] = []
        for (index, agent) in agents.enumerated() where agent.connection == .connected {
            do {
                cameras += try await rig.camera(index: index, CameraChange()).map(CameraPanelState.init)
            } catch {
                cameras.append(CameraPanelState(index: index, name: agent.name, role: agent.role, problem: "\(error)"))
            }
        }
        return CameraPanelListing(cameras: cameras)
    }

    private func askCamera(_ index: Int, _ change: CameraChange, matchFrom: Int? = nil) async throws -> CameraPanelListing {
        do {
            return CameraPanelListing(cameras: try await rig.camera(index: index, change, matchFrom: matchFrom).map(CameraPanelState.init))
        } catch {
            // The rig refused it (not connected, too old an agent, nothing to match): nothing changed.
            throw StudioHTTPError(409, "\(error)")
        }
    }

    /// A camera of the state's `agents`, by its index as the URL (or a match) gives it.
    private func cameraIndex(_ text: String, status: Int = 404) async throws -> Int {
        let agents = await rig.snapshot().agents
        guard let index = Int(text), agents.indices.contains(index) else {
            let known = agents.enumerated().map { "\($0.offset) (\($0.element.name))" }.joined(separator: ", ")
            throw StudioHTTPError(status, "no camera \(text.prefix(20)); "
                + (known.isEmpty ? "the rig has none" : "the cameras are \(known)"))
        }
        return index
    }
}
