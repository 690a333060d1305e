import DualCamCore
import DualCamNet
import DualCamProtocol
import Foundation

/// `session.json`: what a recording session needs to be finished by another coordinator
/// process (`resume`) after this one was killed. Written before the agents are told to
/// start and again when the stop is decided; `manifest.json` appears only when the
/// session is complete.
public struct SessionRecord: Codable, Sendable {
    public struct Agent: Codable, Sendable {
        public var name: String
        public var role: String
        public var deviceID: String
        public var hosts: [String]
        public var port: Int
    }
    public var sessionID: String
    public var startWallTime: String
    public var wallStartUnixSeconds: Double
    public var t0SharedNanoseconds: Int64
    /// 0 while the session runs until a Stop.
    public var stopSharedNanoseconds: Int64
    /// The shared clock is this machine's CLOCK_MONOTONIC, which restarts with a reboot.
    public var bootID: String
    public var width: Int
    public var height: Int
    public var fps: String
    public var encoder: String
    public var preset: String
    public var crf: Int
    public var segmentMilliseconds: Int
    public var genlock: Bool
    public var layout: String
    /// As the manifest's: absent in records written before `LayoutEdition`.
    public var layoutEdition: Int?
    public var filter: String
    public var filterIntensity: Int
    public var agents: [Agent]
    /// Recorded by `demo`, whose agents and their spools lived only as long as it did
    /// (absent in records written before it was kept).
    public var demo: Bool?
    /// The timecode at T0 that every file counts from (absent in records written before
    /// files carried one, and at rates no timecode track can carry).
    public var timecode: String?

    static let fileName = "session.json"

    init(plan: TakePlan, sessionID: String, wallStart: Date, t0: Int64, stop: Int64, agents: [Agent]) {
        self.sessionID = sessionID
        startWallTime = ISO8601DateFormatter().string(from: wallStart)
        wallStartUnixSeconds = wallStart.timeIntervalSince1970
        t0SharedNanoseconds = t0
        stopSharedNanoseconds = stop
        bootID = Self.currentBootID()
        width = plan.width
        height = plan.height
        fps = "\(plan.rate)"
        encoder = plan.encoder
        preset = plan.preset
        crf = plan.crf
        segmentMilliseconds = plan.segmentMilliseconds
        genlock = plan.genlock
        layout = plan.layout.description
        layoutEdition = LayoutEdition.current.rawValue
        filter = plan.filter.kind.rawValue
        filterIntensity = plan.filter.intensity
        self.agents = agents
        demo = plan.demo ? true : nil
    }

    static func currentBootID() -> String {
        ((try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Written whole or not at all: a temporary file, fsynced, renamed over the old one.
    func save(in directory: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(self)
        let path = directory + "/" + Self.fileName
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data),
              let handle = FileHandle(forWritingAtPath: temporary) else {
            throw CoordinatorError("cannot write \(temporary)")
        }
        try handle.synchronize()
        try handle.close()
        guard rename(temporary, path) == 0 else {
            throw CoordinatorError("cannot rename \(temporary): \(String(cString: strerror(errno)))")
        }
    }

    public static func load(from directory: String) throws -> SessionRecord {
        let path = directory + "/" + fileName
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CoordinatorError("\(directory) holds no \(fileName): it is not a session folder this coordinator wrote")
        }
        let record: SessionRecord
        do {
            record = try JSONDecoder().decode(SessionRecord.self, from: data)
        } catch {
            throw CoordinatorError("\(path) is unreadable (\(DecodingProblem.text(error))); the session's segments are in \(directory)/segments")
        }
        let problems = record.problems
        guard problems.isEmpty else {
            throw CoordinatorError("\(path) holds impossible values (\(problems.joined(separator: "; "))); "
                + "the session's segments are in \(directory)/segments")
        }
        return record
    }

    /// Stopped at T0: cancelled during its countdown, so no frame belongs to it.
    var recordedNothing: Bool { stopSharedNanoseconds != 0 && stopSharedNanoseconds <= t0SharedNanoseconds }

    /// The start every agent of the session gets, first and on rejoining.
    var startAt: Dualcam_V1_StartAt {
        var start = Dualcam_V1_StartAt()
        start.sessionID = sessionID
        start.t0SharedNs = t0SharedNanoseconds
        start.stopSharedNs = stopSharedNanoseconds
        return start
    }

    /// The plan that recorded the session, for the coordinator that finishes it.
    func plan(outputDirectory: String) throws -> TakePlan {
        let endpoints = try agents.map { agent -> AgentEndpoint in
            guard let id = DeviceID(parsing: agent.deviceID), !agent.hosts.isEmpty else {
                throw CoordinatorError("session.json names an unreadable agent: \(agent.name) \(agent.deviceID)")
            }
            return AgentEndpoint(hosts: agent.hosts, port: agent.port, deviceID: id)
        }
        var plan = TakePlan(agents: endpoints, outputDirectory: outputDirectory,
                               durationSeconds: stopSharedNanoseconds > t0SharedNanoseconds ? Double(stopSharedNanoseconds - t0SharedNanoseconds) / 1e9 : nil)
        plan.width = width
        plan.height = height
        plan.rate = FrameRate(parsing: fps) ?? .fps30
        plan.encoder = encoder
        plan.preset = preset
        plan.crf = crf
        plan.segmentMilliseconds = segmentMilliseconds
        plan.genlock = genlock
        plan.layout = (try? LayoutSpec(parsing: layout, edition: LayoutEdition(stored: layoutEdition))) ?? LayoutSpec(kind: .pip)
        plan.filter = Filter(kind: (try? FilterKind.parse(filter)) ?? .none, intensity: filterIntensity)
        return plan
    }
}
