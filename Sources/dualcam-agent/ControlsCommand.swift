import ArgumentParser
import DualCamAgent
import DualCamCore
import DualCamMedia
import DualCamNet
import Foundation
import Logging

/// `controls`: the camera's settings on this node, read and changed without a coordinator.
struct Controls: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the camera's controls (brightness, exposure, focus, white balance, zoom…) and set them.",
        discussion: """
            Values set here are kept in the state folder and put back whenever the agent opens the camera. \\
            A value is a number, on/off for a switch, or a menu entry's name (auto_exposure=manual_mode). \\
            See docs/CONTROLS.md.
            """)

    @Option(help: "V4L2 camera node (default: the first usable camera).") var device: String?
    @Option(name: .customLong("set"), parsing: .unconditionalSingleValue, help: "name=value to set (repeatable; applied in order, automatic modes first).")
    var settings: [String] = []
    @Option(help: "Lock at the current value: exposure, focus, white-balance (comma-separated).") var lock: String?
    @Option(help: "Switch the automatic mode back on: exposure, focus, white-balance (comma-separated).") var unlock: String?
    @OptionGroup var state: StateOption

    func validate() throws {
        _ = try ControlsArguments.settings(settings)
        _ = try ControlsArguments.locks(lock, option: "--lock")
        _ = try ControlsArguments.locks(unlock, option: "--unlock")
    }

    func run() throws {
        guard let path = device ?? V4L2Catalog.firstUsableCamera()?.path else {
            throw ValidationError("no V4L2 camera found; `dualcam-agent cameras` lists what is there, or give --device")
        }
        var change = CameraChange()
        change.settings = try ControlsArguments.settings(settings)
        change.lock = try ControlsArguments.locks(lock, option: "--lock")
        change.unlock = try ControlsArguments.locks(unlock, option: "--unlock")
        var logger = Logger(label: "dualcam-agent")
        logger.logLevel = .warning
        let service = CameraControlsService(source: .v4l2(device: path, pixelFormat: nil), stateDirectory: state.directory,
                                            now: { MonotonicTime.now() }, logger: logger)
        let report = service.handle(change)
        for line in CameraReportText.lines(report) { print(line) }
        if report.outcomes.contains(where: { !$0.applied }) { throw ExitCode(1) }
    }
}

/// Command-line words for camera controls, checked before anything is touched.
enum ControlsArguments {
    static func settings(_ words: [String]) throws -> [CameraChange.Setting] {
        try words.map { word in
            do { return try CameraWords.setting(word).get() } catch { throw ValidationError("\(error)") }
        }
    }

    static func locks(_ text: String?, option: String) throws -> [ControlLock] {
        guard let text else { return [] }
        do { return try CameraWords.locks(text, option: option).get() } catch { throw ValidationError("\(error)") }
    }
}
