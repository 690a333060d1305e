import Foundation
import Testing

extension EndToEnd {
    /// What the dualcam-agent package relies on, checked on the test build in seconds. The
    /// packages themselves are installed, run, upgraded and purged on a fresh Debian 12 by
    /// deploy/package-test.sh (a release build: too long for the suite).
    @Suite struct PackagedAgentTests {
        static let deploy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("deploy").path

        /// The agent.conf the package installs as /etc/dualcam/agent.conf starts an agent.
        @Test func shippedConfigStartsTheAgent() throws {
            let root = NSTemporaryDirectory() + "dualcam-packaged-\(getpid())"
            defer { try? FileManager.default.removeItem(atPath: root) }
            let agent = try Child("dualcam-agent", ["run", "--config", Self.deploy + "/dualcam-agent.conf", "--state", root + "/state",
                                                    "--port", "0", "--no-mdns", "--source", "synthetic", "--first-pairing-window", "0"])
            defer { agent.stop() }
            #expect(agent.waitForLine(containing: "LISTENING", seconds: 30) != nil, "\(agent.errTail())")
        }

        /// Root using a state folder that another user owns (the service's, as the package
        /// makes it) acts as that user: the identity it makes is the owner's, readable by the
        /// service, and a command reading the folder works as before.
        @Test(.enabled(if: getuid() == 0, "needs root (to act as another user)"))
        func rootActsAsTheStateFoldersOwner() throws {
            let folder = NSTemporaryDirectory() + "dualcam-owned-\(getpid())"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let nobody = try #require(getpwnam("nobody")).pointee
            try #require(chown(folder, nobody.pw_uid, nobody.pw_gid) == 0)

            let id = try Child("dualcam-agent", ["id", "--state", folder])
            #expect(id.finish() == 0, "\(id.errTail())")
            #expect(id.out.all().trimmingCharacters(in: .whitespacesAndNewlines).count > 40)
            for file in ["identity.key", "identity.crt"] {
                var info = stat()
                #expect(stat(folder + "/" + file, &info) == 0, "\(file) was not made")
                #expect(info.st_uid == nobody.pw_uid, "\(file) belongs to uid \(info.st_uid), not to the folder's owner")
            }
            let paired = try Child("dualcam-agent", ["paired", "--state", folder])
            #expect(paired.finish() == 0, "\(paired.errTail())")
        }
    }
}
