import Foundation

/// One coordinator process at a time writes a session: recording, resuming, recomposing
/// or deleting it. Two at once would interleave segments or rename a file from under the
/// other. A `ProcessLock` on `.lock` in the session folder.
public final class SessionLock: Sendable {
    static let fileName = ".lock"
    private let lock: ProcessLock

    /// Takes the lock or says which process holds it and what to do.
    public init(sessionDirectory: String, purpose: String) throws {
        let id = (sessionDirectory as NSString).lastPathComponent
        lock = try ProcessLock(path: sessionDirectory + "/" + Self.fileName, purpose: purpose) { holder in
            "session \(id) is in use by another dualcam-coordinator" + (holder.isEmpty ? "" : " (\(holder))")
                + "; wait until it has finished, then try again"
        }
    }

    /// True when some process holds the session's lock now.
    public static func isHeld(sessionDirectory: String) -> Bool {
        ProcessLock.isHeld(path: sessionDirectory + "/" + fileName)
    }
}

/// One rig per coordinator identity at a time: two `start`s (or a `start` beside a
/// `serve`) of one laptop would ask the same agents for two takes at once, each taking
/// the agents' connections from the other. A `ProcessLock` on `rig.lock` in the state
/// folder, held for as long as the command drives agents.
public final class RigLock: Sendable {
    static let fileName = "rig.lock"
    private let lock: ProcessLock

    public init(stateDirectory: String, purpose: String) throws {
        try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
        lock = try ProcessLock(path: stateDirectory + "/" + Self.fileName, purpose: purpose) { holder in
            "another dualcam-coordinator drives this laptop's agents" + (holder.isEmpty ? "" : " (\(holder))")
                + "; stop it first (Enter or Ctrl-C in its terminal, `quit` for `serve`), then try again"
        }
    }
}
