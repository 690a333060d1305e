import DualCamCore
import DualCamNet
import DualCamProtocol

/// Everything `dualcam-agent run` is started with.
public struct AgentOptions: Sendable {
    public var name: String
    public var role: Dualcam_V1_Role
    public var listenHost: String
    public var port: Int
    public var stateDirectory: String
    public var spoolDirectory: String
    public var trusted: Set<DeviceID>
    public var defaults: RecordingSettings
    public var simulatedError: SimulatedClockError
    /// Testing: a step of the clock estimate at an instant (`--simulate-estimate-step-us`).
    public var estimateStep: AgentClock.EstimateStep?
    /// Exit when the Shutdown message arrives (demo and tests); a service ignores it.
    public var allowRemoteShutdown: Bool
    /// Announce this agent as `_dualcam._tcp` through Avahi.
    public var announce = true
    /// Announce on this interface only (nil: every interface).
    public var announceInterface: String?
    /// While no coordinator is paired, the pairing window opens at start for this long
    /// (0: never by itself; `dualcam-agent pair` opens it).
    public var firstPairingWindowSeconds = 600
    /// Delete a segment from the spool once the coordinator has it durably (else keep
    /// every segment; unacknowledged ones are never deleted either way).
    public var pruneAcknowledged = false
    /// Seconds between telemetry lines in the log (telemetry goes to the coordinator
    /// every second regardless).
    public var telemetryLogSeconds = 10
    /// Where to write every clock exchange (`ClockLog`), for measuring the path; nil: nowhere.
    public var clockLogPath: String?

    public init(name: String, role: Dualcam_V1_Role, listenHost: String, port: Int, stateDirectory: String,
                spoolDirectory: String, trusted: Set<DeviceID>, defaults: RecordingSettings,
                simulatedError: SimulatedClockError, allowRemoteShutdown: Bool) {
        self.name = name
        self.role = role
        self.listenHost = listenHost
        self.port = port
        self.stateDirectory = stateDirectory
        self.spoolDirectory = spoolDirectory
        self.trusted = trusted
        self.defaults = defaults
        self.simulatedError = simulatedError
        self.allowRemoteShutdown = allowRemoteShutdown
    }
}
