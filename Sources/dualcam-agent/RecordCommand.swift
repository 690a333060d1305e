import ArgumentParser
import DualCamAgent
import DualCamCore
import DualCamMedia
import DualCamProtocol
import Foundation
import Logging

struct Record: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record locally with no coordinator, through the same pipeline as `run`.",
        discussion: "Ends at --duration, at the end of piped input, or on Ctrl-C / SIGTERM (the current segment is finished). "
            + "Segments go to OUT/segments/<session>/; the joined recording to OUT/<session>.mp4 (remuxed, not re-encoded).")

    @OptionGroup var capture: CaptureOptions
    @Option(parsing: .unconditional, help: "Seconds to record (default: until the input ends or a signal).") var duration: Double?
    @Option(help: "Output folder.") var out = "."
    @Option(parsing: .unconditional, help: "Seconds between telemetry lines.") var telemetrySeconds: Double = 1
    @Option(help: "Synthetic source: a node name to draw beside the timecode (default: no label).") var name: String?
    @Option(help: "Synthetic source: the role drawn under --name, which also picks the colour: host, guest or camera.")
    var role = "host"
    @Option(parsing: .unconditional, help: "Digital zoom, 1 to 4 (a crop scaled back to --size).") var zoom: Double = 1
    @Option(help: "Where the zoom looks: x,y as fractions of the picture (0.5,0.5 is the middle).") var zoomCentre = "0.5,0.5"

    func validate() throws {
        try AgentRanges.recordDuration.validate(duration)
        try AgentRanges.telemetrySeconds.validate(telemetrySeconds)
        if Dualcam_V1_Role(name: role) == nil { throw ValidationError("--role must be host, guest or camera") }
        if let problem = ZoomRamp.problem(factor: zoom, rampSeconds: 0) { throw ValidationError("--zoom: \(problem)") }
        guard ZoomPoint(parsing: zoomCentre) != nil else {
            throw ValidationError("--zoom-centre \(zoomCentre): give x,y between 0 and 1, e.g. 0.5,0.5 for the middle")
        }
    }

    func run() async throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        MediaLog.setQuiet()
        var logger = Logger(label: "dualcam-agent")
        logger.logLevel = .info
        var settings = try capture.settings()
        settings.patternIdentity = name.map { PatternIdentity(name: $0, role: role.lowercased()) }
        if let note = capture.chosenSourceNote(settings.source) { logger.info("\(note)") }
        if case .stdin = settings.source {} else if duration == nil {
            // A synthetic or camera recording with no end only stops on a signal.
            logger.info("no --duration: recording until Ctrl-C or SIGTERM")
        }
        if zoom != 1, let centre = ZoomPoint(parsing: zoomCentre) {
            DigitalZoom.shared.set(factor: zoom, centre: centre, rampNanoseconds: 0, now: 0)
        }
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let recorder = LocalRecorder(settings: settings, outputDirectory: out, durationSeconds: duration,
                                     telemetrySeconds: telemetrySeconds, logger: logger)
        let signals = SignalStream.make([SIGINT, SIGTERM])
        let result = try await recorder.record(simulatedError: capture.simulatedError(), stopRequested: signals)
        let s = result.summary
        if s.segments == 0, let error = s.error {
            // Nothing was recorded (the source did not open): no empty folder is left,
            // and the error is all there is to say. rmdir removes a folder only if empty.
            rmdir(result.segmentDirectory)
            rmdir((result.segmentDirectory as NSString).deletingLastPathComponent)
            FileHandle.standardError.write(Data("dualcam-agent: nothing recorded: \(error)\n".utf8))
            throw ExitCode(1)
        }
        logger.info("source: \(s.sourceDescription)")
        for note in s.notes { logger.warning("\(note)") }
        print("recorded \(s.framesCaptured) frames in \(s.segments) segments, \(s.framesDropped) dropped")
        for change in s.presetSwitches {
            print(String(format: "preset %@ from segment %d (%.1f s): %@", change.preset, change.segmentIndex,
                         Double(change.atPtsNanoseconds) / 1e9, change.reason))
        }
        print("segments: \(result.segmentDirectory)")
        if let movie = result.movie { print("file: \(movie)") }
        if let joinError = result.joinError {
            print("no joined file: \(joinError); the segments above are complete and play on their own")
        }
        if let error = s.error {
            FileHandle.standardError.write(Data("dualcam-agent: recording stopped early: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
