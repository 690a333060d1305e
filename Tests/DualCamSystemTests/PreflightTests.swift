import DualCamCore
import DualCamNet
import Foundation
import Logging
import Testing
@testable import DualCamCoordinator

/// What the operator is told before a take: every node's source and sound, the nodes that
/// are not there, the defaults taken from the config file.
@Suite(.serialized) struct PreflightTests {
    func plan() -> TakePlan {
        var plan = TakePlan(agents: [], outputDirectory: "/tmp", durationSeconds: nil)
        (plan.width, plan.height) = (1280, 720)
        return plan
    }

    @Test func aTestPatternAndANodeWithoutSoundAreSaidLoudly() {
        let lines = Preflight.lines(plan: plan(), nodes: [
            .init(name: "pi-host", role: "host", source: "V4L2 /dev/video0 1280x720@30 MJPEG, encoded with libx264; sound: ALSA hw:1,0 48000 Hz mono 16-bit",
                  freeDiskBytes: 20_000_000_000, clockBoundNanoseconds: 150_000, temperatureC: 51,
                  encoding: "preset faster (auto: 2.2x real time)"),
            .init(name: "pi-guest", role: "guest", source: "synthetic DCTC 1280x720@30 genlocked, encoded with libx264; no sound",
                  freeDiskBytes: nil, clockBoundNanoseconds: nil, temperatureC: nil),
        ], absent: ["pi-cam3 [camera]: paired, but it did not answer"])
        // The agents choose their presets (`auto`, the default): each line says which.
        #expect(lines[0] == "pre-flight: 1280x720 at 30 fps, libx264 auto crf 23, 2 cameras")
        #expect(lines[1].hasPrefix("  pi-host [host]: V4L2 /dev/video0") && !lines[1].contains("TEST PATTERN") && !lines[1].contains("NO SOUND"))
        // 20 GB at the 0.1 bit/pixel estimate of 720p30 (2.8 Mbit/s, with the 25 % margin): about 12 h.
        #expect(lines[1].contains("20.0 GB free (about 12 h)") && lines[1].contains("clock ±150 µs") && lines[1].contains("51 °C"), "\(lines[1])")
        #expect(lines[1].contains(" · preset faster (auto: 2.2x real time) · "), "\(lines[1])")
        #expect(lines[2].contains("TEST PATTERN (synthetic DCTC") && lines[2].hasSuffix("NO SOUND"), "\(lines[2])")
        #expect(lines[3] == "  NOT HERE: pi-cam3 [camera]: paired, but it did not answer")
        // The live composite's preset, unmeasured: the fastest, said in the open.
        #expect(lines[4] == "  composite: libx264 ultrafast, tune zerolatency (not measured: 2 cameras decoded (55 Mpixel/s) and the composite encoded (28 Mpixel/s) in real time on this machine)", "\(lines[4])")
        // The laptop holds every camera's file and the composite: its own disk is said too.
        let withLaptop = Preflight.lines(plan: plan(), nodes: [.init(name: "pi-host", role: "host", source: nil, freeDiskBytes: nil,
                                                                     clockBoundNanoseconds: nil, temperatureC: nil)],
                                         absent: [], laptopFreeBytes: 20_000_000_000)
        // 20 GB for two files of 720p30 at 2.8 Mbit/s each: about 6 h.
        #expect(withLaptop.last == "  this computer: 20.0 GB free in /tmp (about 6 h for 2 files)", "\(withLaptop)")
        var asked = plan()
        asked.compositePreset = "superfast"
        #expect(Preflight.lines(plan: asked, nodes: [], absent: []).last == "  composite: libx264 superfast, tune zerolatency (as asked)")
        // Measured (`auto`, the default): the choice, its speed and what it was measured on.
        let measured = CompositeMeasurement(
            outcome: .fits(preset: "superfast", speed: 1.9),
            speeds: [PresetSpeed(preset: "ultrafast", framesPerSecond: 80), PresetSpeed(preset: "superfast", framesPerSecond: 57),
                     PresetSpeed(preset: "veryfast", framesPerSecond: 38)],
            decodeNanoseconds: 3_100_000, composeNanoseconds: 1_200_000, cameras: 2, seconds: 1.4)
        let auto = Preflight.lines(plan: plan(), nodes: [], absent: [],
                                   composite: CompositePreset.choose(plan: plan(), cameras: 2, measured: measured)).last
        #expect(auto == "  composite: libx264 superfast, tune zerolatency (auto, 1.9x real time; 2 cameras decoded 3.1 ms + "
                + "composed 1.2 ms a frame; measured ultrafast 80 fps, superfast 57 fps, veryfast 38 fps in 1.4 s)", "\(auto ?? "")")
    }

    /// A node whose camera is missing is there, connected, and records nothing: the
    /// pre-flight says so with the reason instead of counting it (issue 36).
    @Test func aNodeWhoseCameraIsMissingIsNotReadyWithTheReason() {
        let lines = Preflight.lines(plan: plan(), nodes: [
            .init(name: "pi-guest", role: "guest", source: "synthetic DCTC 1280x720@30 genlocked, encoded with libx264; no sound",
                  freeDiskBytes: nil, clockBoundNanoseconds: nil, temperatureC: nil),
        ], absent: [], notReady: ["pi-host [host]: camera /dev/video9 is missing: plug it in"])
        #expect(lines[0].hasSuffix(", 1 camera"), "\(lines[0])")
        #expect(lines[2] == "  NOT READY: pi-host [host]: camera /dev/video9 is missing: plug it in", "\(lines)")
        #expect(lines.filter { $0.contains("pi-host") }.count == 1)
    }

    /// Which nodes `start` asks about before recording without them: of the last take
    /// (every paired one before any take, every named one), missing or not ready; each
    /// said as a sentence that names it.
    @Test func startAsksAboutTheNodesOfTheLastTakeItWouldLeaveOut() {
        func agent(_ name: String, _ id: String, problem: String?, connected: Bool = true) -> AgentStatus {
            var status = AgentStatus(name: name, role: "host", cameraName: "", deviceID: id, address: "127.0.0.1:1",
                                     connection: connected ? .connected : .connecting, clock: nil, telemetry: nil,
                                     uploadLagSeconds: nil, complete: false, givenUp: false)
            status.sourceProblem = problem
            return status
        }
        let missingCamera = "camera /dev/video9 is missing: plug it in, or set `device =` in agent.conf"
        let agents = [agent("pi-host", "A", problem: missingCamera), agent("pi-guest", "B", problem: nil)]
        let absent = [AgentSelection.Absent(deviceID: "C", name: "pi-cam3", role: "camera", reason: "paired, but it did not answer")]
        let left = LeftOutNodes(agents: agents, absent: absent, lastTake: ["A", "B", "C"], paired: [], named: false)
        #expect(left.nodes.map(\.name) == ["pi-host", "pi-cam3"])
        #expect(left.question == "record without pi-host and pi-cam3?")
        #expect(left.sentences == ["pi-host [host] is NOT READY: \(missingCamera).",
                                   "pi-cam3 [camera] is NOT HERE: paired, but it did not answer."])
        #expect(left.refusal.hasSuffix(" Not recording without them: start again once they are ready, or give --allow-missing to record without them."),
                "\(left.refusal)")
        #expect(left.refusal.hasPrefix(left.sentences[0] + " " + left.sentences[1]))
        // Not in the last take: a node added since, or one the rig left behind, is not asked about.
        #expect(LeftOutNodes(agents: agents, absent: absent, lastTake: ["B"], paired: ["A", "C"], named: false).isEmpty)
        // Before any take every paired node counts; a named one always does.
        #expect(LeftOutNodes(agents: agents, absent: [], lastTake: nil, paired: ["A"], named: false).names == "pi-host")
        #expect(LeftOutNodes(agents: agents, absent: [], lastTake: nil, paired: [], named: false).isEmpty)
        let named = LeftOutNodes(agents: agents, absent: [], lastTake: ["B"], paired: [], named: true)
        #expect(named.names == "pi-host" && named.question == "record without pi-host?")
        #expect(named.refusal == "pi-host [host] is NOT READY: \(missingCamera). Not recording without it: start again once it is "
                + "ready, or give --allow-missing to record without it.")
        // A node whose connection is lost is not NOT READY for the camera it had.
        #expect(LeftOutNodes(agents: [agent("pi-host", "A", problem: missingCamera, connected: false)], absent: [], lastTake: nil,
                             paired: ["A"], named: true).isEmpty)
    }

    /// `serve`'s Enter (issue 36, item 1): a node of the rig that is NOT READY or not here
    /// makes the first Enter ask and the second record; a `start` from a pipe is refused
    /// unless `--allow-missing`; a rig with every node ready just starts.
    @Test func serveAsksBeforeRecordingWithoutANodeOfTheRig() {
        func agent(_ name: String, _ id: String, problem: String?, connected: Bool = true) -> AgentStatus {
            let role = ["A": "host", "B": "guest"][id] ?? "camera"
            var status = AgentStatus(name: name, role: role, cameraName: "", deviceID: id, address: "127.0.0.1:1",
                                     connection: connected ? .connected : .connecting, clock: nil, telemetry: nil,
                                     uploadLagSeconds: nil, complete: false, givenUp: false)
            status.sourceProblem = problem
            return status
        }
        let missingCamera = "camera /dev/video9 is missing: plug it in, or set `device =` in agent.conf"
        let rig = LeftOutNodes(rig: [agent("pi-host", "A", problem: nil), agent("pi-guest", "B", problem: missingCamera),
                                     agent("pi-cam3", "C", problem: nil, connected: false)])
        #expect(rig.sentences == ["pi-guest [guest] is NOT READY: \(missingCamera).",
                                  "pi-cam3 [camera] is NOT HERE: it has not answered yet; check that dualcam-agent runs there."])
        guard case .ask(let question) = rig.startGate(armed: false, atTerminal: true, allowMissing: false) else {
            Issue.record("the first Enter did not ask"); return
        }
        #expect(question.hasPrefix(rig.sentences.joined(separator: " ")) && question.contains("Record without pi-guest and pi-cam3? Enter again"))
        #expect(rig.startGate(armed: true, atTerminal: true, allowMissing: false) == .go)
        #expect(rig.startGate(armed: false, atTerminal: false, allowMissing: false) == .refuse(rig.refusal))
        #expect(rig.startGate(armed: false, atTerminal: false, allowMissing: true) == .go)
        #expect(LeftOutNodes(rig: [agent("pi-host", "A", problem: nil)]).startGate(armed: false, atTerminal: false, allowMissing: false) == .go)
    }

    @Test func requiredAgentsAnswerByNameOrRole() {
        let connected = [(name: "pi-a", role: "host"), (name: "pi-b", role: "guest")]
        #expect(RequiredAgents.parse(" Host, guest ,") == ["host", "guest"])
        #expect(RequiredAgents.missing(["host", "pi-b"], connected: connected).isEmpty)
        #expect(RequiredAgents.missing(["host", "cam3"], connected: connected) == ["cam3"])
    }

    /// The config holds the user's defaults only: the file older versions wrote from a
    /// layout key pressed while recording is no longer taken for a choice.
    @Test func theConfigIsTheUsersAndSaysWhatItCannotRead() throws {
        let folder = NSTemporaryDirectory() + "dualcam-config-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/coordinator.conf"
        try "# written by dualcam-coordinator: the choices last made while recording\nlayout = split-horizontal\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        var config = CoordinatorConfig(path: path)
        #expect(try config.layout() == nil)
        #expect(config.notes.first?.contains("no longer used") == true)
        try config.check()

        try "# mine\nlayout = split-vertical\nrequire = host, guest\nlibrary = ~/Films\ncolour = blue\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        config = CoordinatorConfig(path: path)
        #expect(try config.layout()?.kind == .splitVertical)
        #expect(config.required == ["host", "guest"])
        #expect(config.library == NSHomeDirectory() + "/Films")
        #expect(config.problems == ["\(path):5: unknown key `colour`; the keys are layout, require, library, director, style, min-shot, switch-delay, phase-lock, stream"])
        #expect(throws: CoordinatorError.self) { try config.check() }

        // The phase lock's key: on unless the file says off; a word it does not know is refused.
        #expect(try config.phaseLock())
        try "phase-lock = off\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try !CoordinatorConfig(path: path).phaseLock())
        try "phase-lock = sometimes\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: CoordinatorError.self) { try CoordinatorConfig(path: path).phaseLock() }

        // The director's keys, each under the flag of the same name.
        try "director = auto\nstyle = calm\nmin-shot = 4\n".write(toFile: path, atomically: true, encoding: .utf8)
        config = CoordinatorConfig(path: path)
        let director = try #require(try config.director(mode: nil, style: nil, minShot: nil, switchDelay: 0.7))
        #expect(director.style == .calm && director.tuning.minShot == 4 && director.tuning.switchDelay == 0.7)
        #expect(try config.director(mode: "off", style: nil, minShot: nil, switchDelay: nil) == nil)
        try "director = sometimes\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect { try CoordinatorConfig(path: path).director(mode: nil, style: nil, minShot: nil, switchDelay: nil) } throws: { error in
            "\(error)".contains("coordinator.conf") && "\(error)".contains("expected auto")
        }

        try "layout = pipp\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: CoordinatorError.self) { try CoordinatorConfig(path: path).layout() }

        // The agent.conf's dialect (KeyValueLines): a comment after a value is no part of
        // it, a quoted value keeps its #, and a broken line is named as the agent names it.
        try "layout = split-vertical  # for interviews\r\nlibrary = \"/srv/Take #2\"\nlayout pip\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        config = CoordinatorConfig(path: path)
        #expect(try config.layout()?.kind == .splitVertical)
        #expect(config.library == "/srv/Take #2")
        #expect(config.problems.count == 1 && config.problems[0].hasPrefix("\(path):3: expected `key = value`"), "\(config.problems)")
    }

    /// A paired agent that does not answer over mDNS is named, with what to do, so that a
    /// take without it says so (it used to record the others and say "Warnings none").
    @Test func aPairedAgentNotFoundIsNamed() async throws {
        try #require(Self.avahiReady, "avahi-daemon could not be started (run the suite as root, or start it)")
        let folder = NSTemporaryDirectory() + "dualcam-absent-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let here = DeviceID(bytes: (0..<32).map { _ in UInt8.random(in: 0...255) })
        let gone = DeviceID(bytes: (0..<32).map { _ in UInt8.random(in: 0...255) })
        let paired = PairedDevices(stateDirectory: folder)
        try paired.add(.init(deviceID: here, name: "absent-test-here", role: "host", pairedAt: Date()))
        try paired.add(.init(deviceID: gone, name: "absent-test-gone", role: "guest", pairedAt: Date()))
        let ad = AgentAdvertisement(deviceID: here, name: "absent-test-here", role: "host", protocolMajor: 1, protocolMinor: 3)
        let publisher = try AgentPublisher(advertisement: ad, port: 45177, interfaceName: "lo", logger: Logger(label: "test"))
        defer { withExtendedLifetime(publisher) {} }
        let identity = try DeviceIdentity.loadOrCreate(in: folder + "/id", commonName: "test")
        let selection = try await AgentSelection.resolve([], paired: paired, identity: identity, discoverSeconds: 4, progress: { _ in })
        #expect(selection.endpoints.map(\.deviceID) == [here])
        #expect(selection.absent.count == 1)
        #expect(selection.absent.first?.hasPrefix("absent-test-gone [guest]: paired, but it did not answer over mDNS") == true, "\(selection.absent)")
    }

    static let avahiReady: Bool = {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../deploy/ensure-avahi.sh").standardizedFileURL.path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script]
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()
}
