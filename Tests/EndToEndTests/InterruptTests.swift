import Foundation
import Testing

extension EndToEnd {
    /// Ctrl-C (SIGINT) at every phase of `start`: afterwards no agent records, and the
    /// session is absent, complete, or finished by `resume`. Ctrl-C in the countdown used
    /// to leave both agents recording ("about 209 h fit") with nobody to stop them.
    @Suite struct InterruptTests {
        struct Phase: CustomTestStringConvertible, Sendable {
            let name: String
            /// The stderr text after which the signal is sent.
            let after: String?
            let delay: Double
            /// Signals sent, 50 ms apart (two: a Ctrl-C pressed twice, or `timeout -s INT`).
            var signals = 1
            let expectedExit: Int32
            /// What must be in `--out` afterwards.
            let session: Outcome
            var testDescription: String { name }
        }

        enum Outcome: Sendable { case none, complete }

        static let phases: [Phase] = [
            Phase(name: "discovery", after: "connecting to", delay: 0, expectedExit: 130, session: .none),
            Phase(name: "clock wait", after: "syncing clocks", delay: 0, expectedExit: 130, session: .none),
            Phase(name: "countdown", after: "2…", delay: 0, expectedExit: 130, session: .none),
            // The second signal used to leave at once, before the agents heard the cancel:
            // they recorded the whole take, and the next `start` resumed it unasked.
            Phase(name: "countdown, twice", after: "2…", delay: 0, signals: 2, expectedExit: 130, session: .none),
            Phase(name: "recording", after: "recording ", delay: 1.5, expectedExit: 0, session: .complete),
            Phase(name: "finalising", after: "finalising", delay: 0, expectedExit: 0, session: .complete),
        ]

        @Test(arguments: phases)
        func ctrlCLeavesNoAgentRecording(phase: Phase) throws {
            let rig = try RecoveryRig()
            let start = try rig.coordinator(["start", "--countdown", "3", "--size", "320x240", "--duration", "4"])
            if let text = phase.after {
                try #require(start.waitForErr(containing: text, seconds: 60) != nil, "never reached '\(text)': \(start.err.all())")
            }
            Thread.sleep(forTimeInterval: phase.delay)
            for n in 0..<phase.signals {
                if n > 0 { usleep(50_000) }
                kill(start.process.processIdentifier, SIGINT)
            }
            let status = start.finish(seconds: 60)
            let err = start.err.all()
            #expect(status == phase.expectedExit, "\(err)")

            // Every take an agent began has ended on it (each agent logs its end).
            for (i, agent) in rig.agents.enumerated() {
                let deadline = Date().addingTimeInterval(10)
                var unended = Self.unended(agent.err.text)
                while !unended.isEmpty && Date() < deadline {
                    usleep(100_000)
                    unended = Self.unended(agent.err.text)
                }
                #expect(unended.isEmpty, "agent \(i) still records \(unended) after Ctrl-C in the \(phase.name): \(agent.err.text)")
            }
            switch phase.session {
            case .none:
                #expect(rig.sessionDirectory == nil, "a cancelled take left \(rig.sessionDirectory ?? "")")
                if phase.name.hasPrefix("countdown") {
                    #expect(err.contains("cancelled (Ctrl-C) before it recorded: every agent stopped"), "\(err)")
                }
            case .complete:
                #expect(FileManager.default.fileExists(atPath: (rig.sessionDirectory ?? "/nonexistent") + "/manifest.json"), "\(err)")
                // A countdown of 3 says 3, 2, 1 (it said 4 first, and never 1, before).
                #expect(err.contains("3…\n") && err.contains("2…\n") && err.contains("1…\n") && !err.contains("4…"), "\(err)")
            }
        }

        /// Sessions an agent's log says it began recording and has not ended.
        static func unended(_ log: String) -> Set<String> {
            var open = Set<String>()
            for line in log.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let at = words.firstIndex(of: "recording"), at + 2 < words.count else { continue }
                let id = String(words[at + 1])
                if words[at + 2] == "from" { open.insert(id) }
                if words[at + 2] == "finished:" || words[at + 2] == "ended" { open.remove(id) }
            }
            return open
        }
    }
}
