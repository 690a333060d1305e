import Foundation

/// The user's hands on a running session. On a terminal, single keys: Enter or q stops,
/// l cycles the layout, s swaps the cameras, p moves the small picture. From a pipe, one
/// command per line (an empty line stops; `layout SPEC` sets a layout). Ctrl-C stops as
/// Enter does; a second Ctrl-C leaves at once, the agents recording on until
/// `dualcam-coordinator resume` finishes the session.
public final class LiveControls: @unchecked Sendable {
    // Invariant: `target`, `started` and `interrupts` are touched only under `lock`;
    // `original` is written once before the reader thread starts and read at exit.
    public static let shared = LiveControls()
    private let lock = NSLock()
    private var target: AsyncStream<SessionEvent>.Continuation?
    private var started = false
    private var interrupts = 0
    private var signalSource: DispatchSourceSignal?
    nonisolated(unsafe) private static var original: termios?

    func attach(_ events: AsyncStream<SessionEvent>.Continuation, takesInterrupts: Bool = true) {
        let first = lock.withLock {
            target = events
            defer { started = true }
            return !started
        }
        guard first else { return }
        if takesInterrupts { watchInterrupts() }
        let thread = Thread { [self] in readInput() }
        thread.name = "dualcam-keys"
        thread.start()
    }

    /// Puts the terminal back as it was (also done at exit).
    public static func restoreTerminal() {
        guard var saved = original else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }

    private func send(_ event: SessionEvent) {
        lock.withLock { target }?.yield(event)
    }

    private func watchInterrupts() {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [self] in
            let count = lock.withLock { interrupts += 1; return interrupts }
            if count == 1 {
                send(.stopRequested("Ctrl-C"))
            } else {
                Self.restoreTerminal()
                FileHandle.standardError.write(Data("\nleaving now; the agents record on: `dualcam-coordinator resume` finishes the session\n".utf8))
                exit(130)
            }
        }
        source.resume()
        lock.withLock { signalSource = source }
    }

    private func readInput() {
        if isatty(STDIN_FILENO) == 1 {
            var settings = termios()
            guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return }
            Self.original = settings
            atexit { LiveControls.restoreTerminal() }
            settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &settings)
            var byte: UInt8 = 0
            while read(STDIN_FILENO, &byte, 1) == 1 {
                switch byte {
                case 10, 13, UInt8(ascii: "q"): send(.stopRequested("Enter"))
                case UInt8(ascii: "l"): send(.control(.nextLayout))
                case UInt8(ascii: "s"): send(.control(.swap))
                case UInt8(ascii: "p"): send(.control(.nextPiPPosition))
                default: break
                }
            }
        } else {
            while let line = readLine() {
                let command = line.trimmingCharacters(in: .whitespaces)
                switch command {
                case "", "q", "stop": send(.stopRequested("Enter"))
                case "l": send(.control(.nextLayout))
                case "s": send(.control(.swap))
                case "p": send(.control(.nextPiPPosition))
                default:
                    if command.hasPrefix("layout ") { send(.control(.layout(String(command.dropFirst(7))))) }
                }
            }
        }
    }
}
