@testable import DualCamCoordinator
import Foundation
import Testing

/// Two coordinators must never write one session at once (a recompose renaming the
/// combined file under a resume, a second `start` resuming a session being recorded).
@Suite struct SessionLockTests {
    @Test func aSecondWriterIsRefusedUntilTheFirstLetsGo() throws {
        let directory = NSTemporaryDirectory() + "dualcam-lock-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(!SessionLock.isHeld(sessionDirectory: directory))
        var first: SessionLock? = try SessionLock(sessionDirectory: directory, purpose: "recording")
        #expect(SessionLock.isHeld(sessionDirectory: directory))
        do {
            _ = try SessionLock(sessionDirectory: directory, purpose: "recomposing")
            Issue.record("a second lock was granted")
        } catch {
            let text = "\(error)"
            #expect(text.contains("in use") && text.contains("pid \(getpid()), recording"), "\(text)")
        }
        withExtendedLifetime(first) {}
        first = nil
        #expect(!SessionLock.isHeld(sessionDirectory: directory))
        _ = try SessionLock(sessionDirectory: directory, purpose: "recomposing")
    }

    @Test func aSessionBeingRecordedIsNotOfferedForResume() throws {
        let out = NSTemporaryDirectory() + "dualcam-lock-\(UUID().uuidString)"
        let session = out + "/20261124_120000"
        try FileManager.default.createDirectory(atPath: session, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: out) }
        // A readable record: a damaged one is never offered (SessionLibraryTrustTests).
        try Data(SessionFixtures.record(id: "20261124_120000").utf8).write(to: URL(fileURLWithPath: session + "/session.json"))
        #expect(TakeResumer.unfinished(in: out) == [session])
        let lock = try SessionLock(sessionDirectory: session, purpose: "recording")
        #expect(TakeResumer.unfinished(in: out).isEmpty)
        withExtendedLifetime(lock) {}
    }

    /// A `.lock` planted as a link to another file: taking the lock must not truncate and
    /// overwrite the link's target.
    @Test func aLockThatIsASymbolicLinkIsRefusedAndItsTargetKept() throws {
        let directory = NSTemporaryDirectory() + "dualcam-lock-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = directory + "/precious.txt"
        try Data("keep me\n".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: directory + "/.lock", withDestinationPath: target)
        do {
            _ = try SessionLock(sessionDirectory: directory, purpose: "recording")
            Issue.record("a lock was taken through a symbolic link")
        } catch {
            #expect("\(error)".contains("symbolic link") && "\(error)".contains("rm"), "\(error)")
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me\n")
        #expect(!SessionLock.isHeld(sessionDirectory: directory))
    }

    /// One rig per laptop: a second `start` or `serve` of the same state folder is refused
    /// at once, naming the process that holds it.
    @Test func aSecondRigOfOneStateFolderIsRefusedNamingTheFirst() throws {
        let state = NSTemporaryDirectory() + "dualcam-rig-lock-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        var first: RigLock? = try RigLock(stateDirectory: state, purpose: "start")
        do {
            _ = try RigLock(stateDirectory: state, purpose: "serve")
            Issue.record("a second rig lock was granted")
        } catch {
            #expect("\(error)".contains("another dualcam-coordinator drives this laptop's agents (pid \(getpid()), start)"), "\(error)")
        }
        withExtendedLifetime(first) {}
        first = nil
        _ = try RigLock(stateDirectory: state, purpose: "serve")
    }

    /// Take IDs keep the readable start second and differ within it (two coordinators, or
    /// two runs of one, starting in the same second got one ID and shared spool folders).
    /// The suffix is 24 random bits: among 1,000 IDs of one second two are alike about
    /// 3 % of the time (the birthday bound; CI met it once), which the folder's mkdir
    /// claiming the ID turns away. What is checked is that alike IDs stay that rare: five
    /// or more pairs would happen by chance about once in five billion runs.
    @Test func takeIDsOfOneSecondDiffer() {
        let now = Date()
        let ids = (0..<1000).map { _ in SessionNaming.sessionID(for: now) }
        #expect(Set(ids).count >= ids.count - 4, "\(ids.count - Set(ids).count) IDs alike among \(ids.count)")
        let stamp = SessionNaming.stamp(for: now)
        for id in ids.prefix(20) {
            #expect(id.hasPrefix(stamp + "-") && id.count == 22 && id.dropFirst(16).allSatisfy(\.isHexDigit), "\(id)")
        }
    }
}
