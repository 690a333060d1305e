import DualCamNet
import Foundation
import Logging
import NIOCore
import NIOPosix

/// A Unix socket in the agent's state folder through which `dualcam-agent pair` opens
/// the pairing window of the running agent. The folder is mode 0700, so only the user the
/// agent runs as (or root) can open a window: pairing needs a login on the camera node.
///
/// One line in (`pair <seconds>`), then one line per window event until it closes:
/// `opened <s>\t<code>`, `paired <name>\t<id>`, `declined <name>\t<id>\t<attempts left>`,
/// `closed <reason>`. A client that goes away closes the window it opened. The code is
/// the window's secret: the folder's mode is what keeps it from other users.
public enum ControlSocket {
    public static func path(stateDirectory: String) -> String { stateDirectory + "/control.sock" }

    typealias Listener = NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>

    /// Bound before the agent says it is listening, so a `pair` run right after start
    /// finds the socket there.
    static func bind(stateDirectory: String) async throws -> Listener {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(unixDomainSocketPath: path(stateDirectory: stateDirectory), cleanupExistingSocketFile: true) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
    }

    static func serve(_ server: Listener, window: PairingWindow, logger: Logger) async throws {
        let listener = server.channel
        try await withTaskCancellationHandler {
            try await server.executeThenClose { clients in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await client in clients {
                        group.addTask {
                            do {
                                try await handle(client, window: window)
                            } catch {
                                logger.warning("control client: \(error)")
                            }
                        }
                    }
                }
            }
        } onCancel: {
            listener.close(promise: nil)
        }
    }

    private static func handle(_ client: NIOAsyncChannel<ByteBuffer, ByteBuffer>, window: PairingWindow) async throws {
        try await client.executeThenClose { inbound, outbound in
            var pending = ""
            var iterator = inbound.makeAsyncIterator()
            while !pending.contains("\n"), let chunk = try await iterator.next() {
                pending += String(buffer: chunk)
                if pending.count > 256 { return }
            }
            let words = pending.split(separator: "\n").first?.split(separator: " ") ?? []
            guard words.first == "pair", let seconds = words.dropFirst().first.flatMap({ Int($0) }),
                  (1...3600).contains(seconds) else {
                try await outbound.write(ByteBuffer(string: "error expected: pair <seconds 1-3600>\n"))
                return
            }
            let events = window.events()
            window.open(seconds: seconds)
            // The client leaving (EOF on its side) closes the window it opened.
            let watcher = Task {
                while let _ = try? await iterator.next() {}
                window.close("dualcam-agent pair was stopped")
            }
            defer { watcher.cancel() }
            for await event in events {
                try await outbound.write(ByteBuffer(string: line(for: event) + "\n"))
                if case .closed = event { return }
            }
        }
    }

    static func line(for event: PairingWindow.Event) -> String {
        switch event {
        case .opened(let seconds, let code): "opened \(seconds)\t\(code)"
        case .paired(let name, let id): "paired \(name)\t\(id)"
        case .declined(let name, let id, let left): "declined \(name)\t\(id)\t\(left)"
        case .closed(let reason): "closed \(reason)"
        }
    }

    /// Asks the agent running on `stateDirectory` to open its window; calls `onLine` for
    /// each event line until the window closes.
    public static func requestPairing(stateDirectory: String, seconds: Int,
                                      onLine: @Sendable (String) -> Void) async throws {
        let socketPath = path(stateDirectory: stateDirectory)
        let client: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: socketPath) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw PairingError("no agent is running with the state folder \(stateDirectory) (\(socketPath): \(error)); "
                + "start it (`dualcam-agent run`, or `systemctl start dualcam-agent`) and run pair again, "
                + "with the same --state as the running agent")
        }
        try await client.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: "pair \(seconds)\n"))
            var pending = ""
            for try await chunk in inbound {
                pending += String(buffer: chunk)
                while let newline = pending.firstIndex(of: "\n") {
                    onLine(String(pending[..<newline]))
                    pending = String(pending[pending.index(after: newline)...])
                }
            }
        }
    }
}
