import DualCamCoordinator
import DualCamCore
import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore

/// One browser's WebSocket: the state after every change (at most ten a second), the
/// notices, the cameras any viewer changed, and preview pictures in the format it asked
/// for. A slow viewer loses pictures (the hub drops them), never delays the rig or
/// another viewer. What a viewer sends is bounded too: its messages are rate-limited
/// (`StudioLimits`), a flood is told why and closed, and its preview wishes are applied
/// at most `PreviewChoice.interval` apart, the latest only. One client's 20,000 preview
/// toggles during a take once stalled the studio for 94 s and lost both agents: each
/// started a watch, and each watch asked every agent for a new preview and a key frame.
struct ViewerConnection {
    let studio: Studio
    let outbound: WebSocketOutboundWriter
    let logger: Logger
    let peer: String

    struct Request: Decodable {
        var type: String
        var format: String?
        var camera: Int?
    }

    func run(_ inbound: WebSocketInboundStream) async throws {
        let choice = PreviewChoice()
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
            group.addTask { try await choice.apply(in: studio.rig.previews, clock: studio.clock) { try await sendPreviews($0) } }
            defer { choice.finish() }
            let limits = studio.limits
            let clock = studio.clock
            var budget = TokenBucket(burst: limits.viewerBurst, perSecond: limits.viewerMessagesPerSecond, now: clock.now)
            var keyframeAsks = KeyframeAsks()
            for try await message in inbound.messages(maxSize: 4096) {
                guard budget.take(now: clock.now) else {
                    try await closeFlood()
                    break
                }
                guard case .text(let text) = message,
                      let request = try? JSONDecoder().decode(Request.self, from: Data(text.utf8)) else { continue }
                switch request.type {
                case "keyframe":
                    if let camera = request.camera, keyframeAsks.allow(camera: camera, now: clock.now) {
                        studio.rig.previews.requestKeyframe(camera: camera)
                    }
                case "preview":
                    choice.want(request.format == "h264" ? .h264 : request.format == "jpeg" ? .jpeg : nil)
                default:
                    continue
                }
            }
            group.cancelAll()
        }
    }

    /// Says why before closing, so the page (or whoever wrote the client) can tell.
    private func closeFlood() async throws {
        let limits = studio.limits
        let words = "the studio closed this page's connection: it sent more than \(Int(limits.viewerBurst)) messages at once "
            + "(\(Int(limits.viewerMessagesPerSecond)) a second are allowed); reload the page"
        logger.warning("studio: closed the WebSocket of \(peer): more than \(Int(limits.viewerBurst)) messages at once")
        try await send(["type": "notice", "text": words])
        try await outbound.close(.policyViolation, reason: "too many messages")
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
        let clock = studio.clock
        var lastSent = clock.now - 1_000_000_000
        for await _ in changes {
            // At most ten a second: a burst of changes is sent as its last state.
            try await clock.sleep(until: lastSent + 100_000_000)
            lastSent = clock.now
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

    private func sendPreviews(_ pictures: AsyncStream<PreviewHub.Picture>) async throws {
        let allocator = ByteBufferAllocator()
        let clock = studio.clock
        for await picture in pictures {
            try await outbound.write(.binary(PreviewMessage.encode(picture, written: clock.now, allocator: allocator)))
        }
    }

    private func send(_ value: some Encodable) async throws {
        let data = try JSONEncoder().encode(value)
        try await outbound.write(.text(String(decoding: data, as: UTF8.self)))
    }
}
