import DualCamAgent
import DualCamCoordinator
import DualCamNet
import Foundation
import Logging
import Testing
@testable import DualCamStudio

/// The camera panel's routes (docs/STUDIO.md, "Camera panel") over a real socket, on a rig
/// connected to a real agent in this process (its synthetic source: no controls of its
/// own, digital zoom only): what the agent answers comes back as it is, and hostile
/// bodies are refused before anything reaches the rig.
@Suite(.serialized) struct StudioCameraTests {
    /// An agent, a rig connected to it and a studio on loopback, torn down by `stop()`.
    struct Rigged {
        let base: String
        let csrf: String
        /// The agent's state folder, where its camera settings are kept.
        let state: String
        let stop: @Sendable () async -> Void
    }

    func start(source: SourceConfig = .synthetic) async throws -> Rigged {
        // What the agent, the rig and the server log is not what these tests look at.
        var quiet = Logger(label: "studio-camera-test")
        quiet.logLevel = .critical
        let state = NSTemporaryDirectory() + "dualcam-studio-camera-\(UUID().uuidString)"
        let coordinator = try DeviceIdentity.generate(commonName: "studio-camera-test")
        let agentIdentity = try DeviceIdentity.loadOrCreate(in: state, commonName: "dualcam-agent")
        var options = AgentOptions(name: "cam-a", role: .host, listenHost: "127.0.0.1", port: 0, stateDirectory: state,
                                   spoolDirectory: state + "/spool", trusted: [coordinator.deviceID],
                                   defaults: RecordingSettings(), simulatedError: .none, allowRemoteShutdown: false)
        options.defaults.source = source
        options.announce = false
        options.firstPairingWindowSeconds = 0
        let server = AgentServer(options: options, identity: agentIdentity, logger: quiet)
        let (agentPorts, agentPort) = AsyncStream.makeStream(of: Int.self)
        let agent = Task { try await server.run { agentPort.yield($0) } }
        var agentIterator = agentPorts.makeAsyncIterator()
        let port = try #require(await agentIterator.next())

        let rig = Rig(agents: [AgentEndpoint(host: "127.0.0.1", port: port, deviceID: agentIdentity.deviceID)],
                      identity: coordinator, logger: quiet)
        let loop = Task { await rig.run() }
        try await rig.connect(timeoutSeconds: 20)
        let plan = TakePlan(agents: [], outputDirectory: state, durationSeconds: nil)
        let studio = Studio(rig: rig, plan: plan, host: "127.0.0.1", port: 0, logger: quiet)
        let (studioPorts, studioPort) = AsyncStream.makeStream(of: Int.self)
        let serving = Task { try await studio.run(onListening: { studioPort.yield($0) }) }
        var studioIterator = studioPorts.makeAsyncIterator()
        let base = "http://127.0.0.1:\(try #require(await studioIterator.next()))"
        return Rigged(base: base, csrf: studio.access.csrf, state: state, stop: {
            serving.cancel()
            rig.shutdown(sendShutdown: false)
            await loop.value
            agent.cancel()
            _ = await agent.result
            try? FileManager.default.removeItem(atPath: state)
        })
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// The one camera of an answer (`{"cameras": [...]}`).
    func camera(_ text: String) throws -> [String: Any] {
        let cameras = try #require(try json(text)["cameras"] as? [[String: Any]])
        try #require(cameras.count == 1, "\(text)")
        return cameras[0]
    }

    @Test func thePanelListsWhatTheAgentReportsAndZoomsThroughTheRig() async throws {
        let r = try await start()
        let http = StudioServerTests()
        let h = ["X-DualCam-CSRF": r.csrf, "Content-Type": "application/json"]

        let listing = try await http.fetch(r.base + "/api/cameras")
        #expect(listing.status == 200)
        let first = try camera(listing.body)
        #expect(first["index"] as? Int == 0 && first["name"] as? String == "cam-a" && first["role"] as? String == "host")
        // The synthetic pattern has no controls of its own, says so, and still zooms.
        #expect((first["note"] as? String)?.contains("digital zoom works") == true, "\(first)")
        #expect((first["controls"] as? [Any])?.isEmpty == true)
        #expect((first["zoom"] as? [String: Any])?["factor"] as? Double == 1)
        let locks = try #require(first["locks"] as? [[String: Any]])
        #expect(locks.map { $0["name"] as? String } == ["exposure", "focus", "white-balance"])
        #expect(locks.allSatisfy { ($0["unavailable"] as? String)?.contains("no automatic") == true }, "\(locks)")

        let zoomed = try await http.fetch(r.base + "/api/cameras/0", method: "POST", headers: h,
                                          body: #"{"zoom":{"factor":2,"rampSeconds":0}}"#)
        #expect(zoomed.status == 200, "\(zoomed.body)")
        let answer = try camera(zoomed.body)
        #expect((answer["zoom"] as? [String: Any])?["factor"] as? Double == 2)
        let outcomes = try #require(answer["outcomes"] as? [[String: Any]])
        #expect(outcomes.count == 1 && outcomes[0]["name"] as? String == "zoom" && outcomes[0]["problem"] == nil, "\(outcomes)")
        let reread = try camera(try await http.fetch(r.base + "/api/cameras/0").body)
        #expect((reread["zoom"] as? [String: Any])?["factor"] as? Double == 2, "the agent keeps it")

        // A control this source lacks: refused by the agent, in its words, next to that name.
        let refused = try await http.fetch(r.base + "/api/cameras/0", method: "POST", headers: h,
                                           body: #"{"set":[{"name":"brightness","value":999}],"lockDuringTakes":true}"#)
        #expect(refused.status == 200)
        let refusal = try camera(refused.body)
        let problems = try #require(refusal["outcomes"] as? [[String: Any]])
        #expect(problems.first?["name"] as? String == "brightness")
        #expect((problems.first?["problem"] as? String)?.contains("no camera controls") == true, "\(problems)")
        #expect(refusal["lockDuringTakes"] as? Bool == true)

        let back = try await http.fetch(r.base + "/api/cameras/0", method: "POST", headers: h,
                                        body: #"{"zoom":{"factor":1},"lockDuringTakes":false}"#)
        #expect((try camera(back.body)["zoom"] as? [String: Any])?["factor"] as? Double == 1)
        await r.stop()
    }

    /// A Pi camera through rpicam-vid: its controls belong to the producer, which the
    /// refusal says, and digital zoom still works.
    @Test func aPipesSettingsAreRefusedNamingItsProducerAndItsZoomWorks() async throws {
        let r = try await start(source: .stdin(.yuv420p))
        let http = StudioServerTests()
        let h = ["X-DualCam-CSRF": r.csrf, "Content-Type": "application/json"]
        // The agent keeps its camera service in a process-wide slot (one agent per process
        // in production), which an agent another suite starts in this process meanwhile
        // takes over: the pipe's is put back before each try, until the answer is the pipe's.
        var answer: [String: Any] = [:]
        for _ in 0..<3 {
            var quiet = Logger(label: "pipe")
            quiet.logLevel = .critical
            CameraControlsService(source: .stdin(.yuv420p), stateDirectory: r.state, now: { 0 }, logger: quiet).install()
            answer = try camera(try await http.fetch(r.base + "/api/cameras/0", method: "POST", headers: h,
                                                     body: #"{"set":[{"name":"exposure_time_absolute","value":200}],"zoom":{"factor":1.5}}"#).body)
            if answer["camera"] as? String == "stdin yuv420p" { break }
        }
        #expect((answer["note"] as? String)?.contains("rpicam-vid") == true, "\(answer)")
        let outcomes = try #require(answer["outcomes"] as? [[String: Any]])
        #expect(outcomes.map { $0["name"] as? String } == ["exposure_time_absolute", "zoom"])
        #expect((outcomes[0]["problem"] as? String)?.contains("rpicam-vid --shutter") == true, "\(outcomes)")
        #expect(outcomes[1]["problem"] == nil, "\(outcomes)")
        #expect((answer["zoom"] as? [String: Any])?["factor"] as? Double == 1.5)
        _ = try await http.fetch(r.base + "/api/cameras/0", method: "POST", headers: h, body: #"{"zoom":{"factor":1}}"#)
        await r.stop()
    }

    @Test func hostileBodiesAreRefusedWithAReasonAndChangeNothing() async throws {
        let r = try await start()
        let http = StudioServerTests()
        let h = ["X-DualCam-CSRF": r.csrf, "Content-Type": "application/json"]
        let refusals: [(body: String, status: Int, words: String)] = [
            ("zoom me", 400, "not JSON"),
            (#"{"zoom":{"factor":5}}"#, 400, "digital zoom goes from 1 to 4"),
            (#"{"zoom":{"factor":"2"}}"#, 400, "not JSON"),
            (#"{"zoom":{"factor":2,"rampSeconds":99}}"#, 400, "0 (at once) to 60 s"),
            (#"{"zoom":{"factor":2,"centreX":1.5}}"#, 400, "between 0 and 1"),
            (#"{"set":[{"name":"Bright ness","value":1}]}"#, 400, "lowercase letters"),
            (#"{"set":[{"name":"brightness","value":1.5}]}"#, 400, "not JSON"),
            (#"{"set":[{"name":"brightness","value":"a\u0007b"}]}"#, 400, "printable"),
            (#"{"set":[{"name":"brightness","value":{"x":1}}]}"#, 400, "not JSON"),
            (#"{"lock":["iris"]}"#, 400, "exposure, focus or white-balance"),
            (#"{"matchFrom":9}"#, 400, "no camera 9"),
            (#"{"matchFrom":0}"#, 409, "no other camera to match"),
        ]
        for refusal in refusals {
            let answer = try await http.fetch(r.base + "/api/cameras/0", method: "POST", headers: h, body: refusal.body)
            #expect(answer.status == refusal.status, "\(refusal.body): \(answer.status) \(answer.body)")
            let error = try json(answer.body)["error"] as? String
            #expect(error?.contains(refusal.words) == true, "\(refusal.body): \(answer.body)")
        }
        let tooMany = "{\"set\":[" + Array(repeating: #"{"name":"gain","value":1}"#, count: 33).joined(separator: ",") + "]}"
        #expect(try await http.fetch(r.base + "/api/cameras/0", method: "POST", headers: h, body: tooMany).status == 400)
        #expect(try await http.fetch(r.base + "/api/cameras/0", method: "POST", body: #"{"zoom":{"factor":2}}"#).status == 403)
        for path in ["/api/cameras/1", "/api/cameras/-1", "/api/cameras/x", "/api/cameras/99999999999999999999"] {
            let missing = try await http.fetch(r.base + path)
            #expect(missing.status == 404 && missing.body.contains("0 (cam-a)"), "\(path): \(missing.body)")
        }
        let unchanged = try camera(try await http.fetch(r.base + "/api/cameras/0").body)
        #expect((unchanged["zoom"] as? [String: Any])?["factor"] as? Double == 1, "no refused zoom was applied")
        await r.stop()
    }
}
