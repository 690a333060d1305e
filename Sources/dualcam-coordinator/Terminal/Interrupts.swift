import Foundation
import Synchronization

/// Ctrl-C (SIGINT), `kill` (SIGTERM) and a lost terminal (SIGHUP) as calls instead of the
/// end of the process, from the moment a command starts: whatever moment the coordinator
/// is stopped at, it first tells its agents (a take under way is stopped or cancelled on
/// every agent), and only a second signal leaves at once.
enum Interrupts {
    enum Signal: Sendable {
        case interrupt, terminate, hangUp

        var name: String {
            switch self {
            case .interrupt: "Ctrl-C"
            case .terminate: "SIGTERM"
            case .hangUp: "the terminal closed"
            }
        }

        /// The shell's convention: 128 + the signal's number.
        var exitCode: Int32 {
            switch self {
            case .interrupt: 128 + SIGINT
            case .terminate: 128 + SIGTERM
            case .hangUp: 128 + SIGHUP
            }
        }
    }

    private static let handler = Mutex<(@Sendable (Signal) -> Void)?>(nil)
    private static let first = Mutex<Signal?>(nil)

    /// The first signal taken, if any: a take it cancelled ends the process with its code.
    static var received: Signal? { first.withLock { $0 } }
    // Invariant: written once, by `install`, before any signal is unblocked for them;
    // only kept alive here.
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    /// Takes the three signals over; until a handler is set, a signal means nothing was
    /// started yet, and the process leaves saying so.
    static func install() {
        guard sources.isEmpty else { return }
        signal(SIGPIPE, SIG_IGN)
        sources = [(SIGINT, Signal.interrupt), (SIGTERM, .terminate), (SIGHUP, .hangUp)].map { number, kind in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { deliver(kind) }
            source.resume()
            return source
        }
    }

    /// Who hears the next signals (the terminal client, once a rig exists).
    static func route(to newHandler: @escaping @Sendable (Signal) -> Void) {
        handler.withLock { $0 = newHandler }
    }

    private static func deliver(_ signal: Signal) {
        first.withLock { if $0 == nil { $0 = signal } }
        if let handle = handler.withLock({ $0 }) {
            handle(signal)
            return
        }
        KeyReader.restoreTerminal()
        Console.error("\n\(signal.name): stopped before any agent was asked to record")
        exit(signal.exitCode)
    }
}
