import DualCamCoordinator
import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore

/// One browser's WebSocket: the state after every change (at most ten a second), the
/// notices, the cameras any viewer changed, and preview pictures in the format it asked
/// for. A slow viewer loses pictures (the hub drops them), never delays the rig or
/// another viewer.
struct ViewerConnection {
    let studio: Studio
    let outbound: WebSocketOutboundWriter
    let logger: Logger

    struct Request: Decodable {
        var type: String
        var format: String?
        var camera: Int?
    }

    func run(_ inbound: WebSocketInboundStream) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await sendStates() }
            group.addTask {
                for await listing in studio.cameraChanges.add(bufferingNewest: 16) {
                    try await send(CamerasMessage(cameras: listing.cameras))
                }
            }
            group.addTask {
                for await notice in studio.rig.notices() {
                    try await send(["type": "notice", "text": notice])
                }
            }
            var previews: Task<Void, Error>?
            defer { previews?.cancel() }
            // Each asks the agent for an IDR: a viewer may not turn a preview into key frames only.
            var lastKeyframeRequest = ContinuousClock.now - .seconds(1)
            for try await message in inbound.messages(maxSize: 4096) {
                guard case .text(let text) = message,
                      let request = try? JSONDecoder().decode(Request.self, from: Data(text.utf8)) else { continue }
                if request.type == "keyframe", let camera = request.camera {
                    if ContinuousClock.now - lastKeyframeRequest >= .milliseconds(250) {
                        lastKeyframeRequest = ContinuousClock.now
                        studio.rig.previews.requestKeyframe(camera: camera)
                    }
                    continue
                }
                guard request.type == "preview" else { continue }
                previews?.cancel()
                previews = nil
                switch request.format {
                case "h264":
                    previews = Task { try await sendPreviews(.h264) }
                case "jpeg":
                    previews = Task { try await sendPreviews(.jpeg) }
                default:
                    break
                }
            }
            group.cancelAll()
        }
    }

    private func sendStates() async throws {
        let changes = AsyncStream<Void> { continuation in
            let a = Task {
                for await _ in studio.rig.snapshots() { continuation.yield() }
                continuation.finish()
            }
            let b = Task {
                for await _ in studio.planChanges() { continuation.yield() }
            }
            continuation.onTermination = { _ in a.cancel(); b.cancel() }
        }
        var lastSent = ContinuousClock.now - .seconds(1)
        for await _ in changes {
            // At most ten a second: a burst of changes is sent as its last state.
            let wait = lastSent + .milliseconds(100) - ContinuousClock.now
            if wait > .zero { try await Task.sleep(for: wait) }
            lastSent = ContinuousClock.now
            let state = await studio.state()
            try await send(StateMessage(state: state))
        }
    }

    private struct StateMessage: Encodable {
        let type = "state"
        let state: StudioState
    }

    private struct CamerasMessage: Encodable {
        let type = "cameras"
        let cameras: [CameraPanelState]
    }

    private func sendPreviews(_ format: PreviewHub.Format) async throws {
        let allocator = ByteBufferAllocator()
        for await picture in studio.rig.previews.watch(format) {
            try await outbound.write(.binary(PreviewMessage.encode(picture, allocator: allocator)))
        }
    }

    private func send(_ value: some Encodable) async throws {
        let data = try JSONEncoder().encode(value)
        try await outbound.write(.text(String(decoding: data, as: UTF8.self)))
    }
}
