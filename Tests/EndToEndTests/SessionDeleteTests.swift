import Foundation
import Testing

extension EndToEnd {
    /// `delete` frees the agents' spools of the session too (protocol 1.4, ForgetSession),
    /// and deletes the folder even when an agent is down, naming it and noting it for
    /// `delete --retry-agents`. One short take each.
    @Suite(.serialized) struct SessionDeleteTests {
        /// Records a 2 s take on the rig; returns its folder and each agent's spool of it.
        static func record(on rig: RecoveryRig) throws -> (folder: String, id: String, spools: [String]) {
            let start = try rig.coordinator(["start", "--duration", "2", "--countdown", "0", "--size", "320x240"])
            try #require(start.finish(seconds: 90) == 0, "\(start.err.all())")
            let folder = try #require(rig.sessionDirectory)
            let id = (folder as NSString).lastPathComponent
            let spools = ["host", "guest"].map { rig.root + "/" + $0 + "/spool/" + id }
            for spool in spools {
                let segments = ((try? FileManager.default.contentsOfDirectory(atPath: spool)) ?? []).filter { $0.hasSuffix(".ts") }
                #expect(!segments.isEmpty && FileManager.default.fileExists(atPath: spool + "/manifest.jsonl"), "\(spool)")
            }
            return (folder, id, spools)
        }

        @Test func deleteFreesEveryAgentsSpool() throws {
            let rig = try RecoveryRig()
            let (folder, id, spools) = try Self.record(on: rig)
            let delete = try rig.coordinator(["delete", id, "--yes"])
            #expect(delete.finish(seconds: 30) == 0, "\(delete.err.all())")
            let out = delete.out.all()
            #expect(!FileManager.default.fileExists(atPath: folder))
            for spool in spools { #expect(!FileManager.default.fileExists(atPath: spool), "\(spool) is left") }
            for (name, port) in zip(["rec-host", "rec-guest"], rig.ports) {
                #expect(out.contains("\(name) (127.0.0.1:\(port)): removed its spooled copy"), "\(out)")
            }
            #expect(rig.agents[0].err.text.contains("forgot session \(id)"), "\(rig.agents[0].errTail())")
        }

        @Test func anAgentDownIsNamedAndTheFolderGoesAllTheSame() throws {
            let rig = try RecoveryRig()
            let (folder, id, spools) = try Self.record(on: rig)
            kill(rig.agents[1].process.processIdentifier, SIGKILL)
            _ = rig.agents[1].finish(seconds: 5)
            let began = Date()
            let delete = try rig.coordinator(["delete", id, "--yes"])
            #expect(delete.finish(seconds: 30) == 0, "\(delete.err.all())")
            #expect(Date().timeIntervalSince(began) < 15, "delete waited \(Date().timeIntervalSince(began)) s")
            let out = delete.out.all()
            #expect(!FileManager.default.fileExists(atPath: folder))
            #expect(!FileManager.default.fileExists(atPath: spools[0]))
            #expect(FileManager.default.fileExists(atPath: spools[1]))
            #expect(out.contains("rec-host (127.0.0.1:\(rig.ports[0])): removed its spooled copy"), "\(out)")
            #expect(out.contains("rec-guest (127.0.0.1:\(rig.ports[1])) still holds its spooled copy") && out.contains("not reachable")
                    && out.contains("--retry-agents"), "\(out)")

            // Once it is up again, the agent noted as holding the session is asked again.
            rig.agents[1] = try Child("dualcam-agent", rig.agentArguments(role: "guest", port: rig.ports[1]))
            try #require(rig.agents[1].waitForLine(containing: "LISTENING") != nil, "\(rig.agents[1].errTail())")
            let retry = try rig.coordinator(["delete", "--retry-agents"])
            #expect(retry.finish(seconds: 30) == 0, "\(retry.err.all())")
            #expect(retry.out.all().contains("rec-guest (127.0.0.1:\(rig.ports[1])): removed its spooled copy"), "\(retry.out.all())")
            #expect(!FileManager.default.fileExists(atPath: spools[1]))
            let again = try rig.coordinator(["delete", "--retry-agents"])
            #expect(again.finish(seconds: 30) == 0)
            #expect(again.out.all().contains("No agent is noted"), "\(again.out.all())")
        }

        /// `--keep-agent-copies` asks no agent.
        @Test func keepingTheAgentsCopiesLeavesTheirSpools() throws {
            let rig = try RecoveryRig()
            let (folder, id, spools) = try Self.record(on: rig)
            let delete = try rig.coordinator(["delete", id, "--yes", "--keep-agent-copies"])
            #expect(delete.finish(seconds: 30) == 0, "\(delete.err.all())")
            #expect(!FileManager.default.fileExists(atPath: folder))
            for spool in spools { #expect(FileManager.default.fileExists(atPath: spool)) }
        }
    }
}
