import ArgumentParser
import DualCamCoordinator
import DualCamCore
import DualCamNet
import Foundation

/// What to do to the cameras, as typed: shared by `camera` and by the `camera …` line a
/// running `serve` (or `start`) reads from its input.
struct CameraArguments: ParsableArguments {
    @Argument(help: "The camera: an agent's name or role (host, guest); default: every camera.") var name: String?
    @Flag(help: "List each camera's controls (the default when nothing is set).") var list = false
    @Option(name: .customLong("set"), parsing: .unconditionalSingleValue, help: "name=value to set (repeatable), e.g. brightness=140, auto_exposure=manual_mode.")
    var settings: [String] = []
    @Option(parsing: .unconditional, help: "Digital zoom, 1 to 4 (optical zoom_absolute where the camera has it: --set zoom_absolute=N).")
    var zoom: Double?
    @Option(parsing: .unconditional, help: "Seconds the zoom takes to get there (default 0: at once).") var zoomRamp: Double = 0
    @Option(help: "Where the zoom looks: x,y as fractions of the picture (default 0.5,0.5, the middle).") var zoomCentre: String?
    @Option(help: "Lock at the current value: exposure, focus, white-balance (comma-separated).") var lock: String?
    @Option(help: "Switch the automatic mode back on: exposure, focus, white-balance.") var unlock: String?
    @Option(help: "on: lock exposure, focus and white balance when a take starts, release them after; off: do not.")
    var lockDuringTakes: String?
    @Option(help: "Copy this camera's exposure, gain and white balance to the others (or to NAME).") var match: String?

    func validate() throws { _ = try change() }

    func change() throws -> CameraChange {
        var change = CameraChange()
        change.settings = try settings.map { word in
            do { return try CameraWords.setting(word).get() } catch { throw ValidationError("\(error)") }
        }
        if let zoom {
            if let problem = ZoomRamp.problem(factor: zoom, rampSeconds: zoomRamp) { throw ValidationError("--zoom: \(problem)") }
            guard let centre = ZoomPoint(parsing: zoomCentre ?? "0.5,0.5") else {
                throw ValidationError("--zoom-centre \(zoomCentre ?? ""): give x,y between 0 and 1, e.g. 0.5,0.5 for the middle")
            }
            change.zoom = .init(factor: zoom, centre: centre, rampNanoseconds: Int64(zoomRamp * 1e9))
        } else if zoomCentre != nil || zoomRamp != 0 {
            throw ValidationError("--zoom-centre and --zoom-ramp go with --zoom")
        }
        change.lock = try Self.locks(lock, "--lock")
        change.unlock = try Self.locks(unlock, "--unlock")
        switch lockDuringTakes {
        case nil: break
        case "on": change.lockDuringTakes = true
        case "off": change.lockDuringTakes = false
        case let other?: throw ValidationError("--lock-during-takes \(other): give on or off")
        }
        return change
    }

    static func locks(_ text: String?, _ option: String) throws -> [ControlLock] {
        guard let text else { return [] }
        do { return try CameraWords.locks(text, option: option).get() } catch { throw ValidationError("\(error)") }
    }

    /// Asks the rig and prints each camera's answer; false when something was refused.
    func perform(on rig: Rig, say: @Sendable (String) -> Void) async throws -> Bool {
        let change = try change()
        let answers = try await rig.camera(name, change, matchFrom: match)
        let listing = list || (change.settings.isEmpty && change.zoom == nil && change.lock.isEmpty && change.unlock.isEmpty
            && change.lockDuringTakes == nil && match == nil)
        var allApplied = true
        for answer in answers {
            say("\(answer.agent) (\(answer.role)):")
            if let problem = answer.problem {
                say("! \(problem)")
                allApplied = false
                continue
            }
            for line in answer.unmatched { say("! not matched: \(line)") }
            if !answer.unmatched.isEmpty { allApplied = false }
            guard let report = answer.report else { continue }
            for line in CameraReportText.lines(report, listControls: listing) { say(line) }
            if report.outcomes.contains(where: { !$0.applied }) { allApplied = false }
        }
        return allApplied
    }
}

/// `camera`: the cameras' controls, digital zoom and locks from the terminal.
struct Camera: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List and set the cameras' controls (exposure, focus, white balance…), digital zoom and locks.",
        discussion: """
            Connects to the agents as `start` does. On a running `serve` (or `start`) rig, type the same words \\
            after `camera` into its input instead (e.g. `camera guest --zoom 2 --zoom-ramp 0.5`), or use the \\
            studio's camera panel: a second coordinator process would take the agents' connections over. \\
            See docs/CONTROLS.md.
            """)

    @OptionGroup var arguments: CameraArguments
    @OptionGroup var agents: AgentChoice
    @OptionGroup var state: StateOption

    func run() async throws {
        let logger = CommandSupport.logger()
        let progress: @Sendable (String) -> Void = { line in Console.error(line) }
        let identity = try DeviceIdentity.loadOrCreate(in: state.directory, commonName: "dualcam-coordinator")
        let selection = try await agents.endpoints(identity: identity, stateDirectory: state.directory, progress: progress)
        let rig = Rig(agents: selection.endpoints, identity: identity, logger: logger)
        let loop = Task { await rig.run() }
        defer { loop.cancel() }
        try await rig.connect()
        let applied: Bool
        do {
            applied = try await arguments.perform(on: rig) { print($0) }
        } catch {
            rig.shutdown(sendShutdown: false)
            await loop.value
            throw error
        }
        rig.shutdown(sendShutdown: false)
        await loop.value
        if !applied { throw ExitCode(1) }
    }
}
