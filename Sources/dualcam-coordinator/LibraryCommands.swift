import ArgumentParser
import CLinux
import DualCamCoordinator
import DualCamCore
import DualCamMedia
import DualCamNet
import Foundation
import Glibc

/// Where the library commands look for sessions.
struct LibraryFolderOption: ParsableArguments {
    @Option(help: "Folder holding the sessions (default: the library, ~/Videos/DualCam or `library =` in coordinator.conf).")
    var out: String?

    var library: SessionLibrary { SessionLibrary(directories: [out ?? SessionHome.directory()]) }
}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the recorded sessions, oldest first.")
    @OptionGroup var folder: LibraryFolderOption
    @Flag(help: "JSON for scripts (fields in docs/LIBRARY-JSON.md).") var json = false

    func run() throws {
        let sessions = folder.library.sessions()
        if json {
            print(try LibraryJSON.list(sessions, library: folder.library.directories))
            return
        }
        if sessions.isEmpty { print("No sessions in \(folder.library.directories.joined(separator: ", ")).") }
        SessionListing.lines(sessions).forEach { print($0) }
        if folder.out == nil {
            for earlier in SessionHome.earlierFolders(besides: folder.library.directories[0]) {
                print("(\(earlier) holds sessions recorded before the library existed: `list --out \(earlier)`, or move them into \(folder.library.directories[0]))")
            }
        }
    }
}

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show a session: files, settings, cameras, composite, layout timeline, warnings.")
    @Argument(help: "The session's ID (see `list`) or its folder's path.") var session: String
    @OptionGroup var folder: LibraryFolderOption
    @Flag(help: "JSON for scripts: the session, its manifest as it is, and its files (docs/LIBRARY-JSON.md).") var json = false

    func run() throws {
        let found = try LibraryCommandSupport.resolve(session, in: folder)
        if json {
            print(try LibraryJSON.show(found))
            return
        }
        SessionReport.lines(found).forEach { print($0) }
    }
}

struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete a session's folder with all its files, and the agents' spooled copies of it.",
        discussion: """
            Each agent named in the session's session.json is asked (for up to 5 s) to remove its spooled copy; \
            one that is down, refuses or records the session is named and noted in the state folder, and the \
            folder is deleted all the same. `delete --retry-agents` asks the noted agents again.
            """)
    @Argument(help: "The session's ID (see `list`) or its folder's path.") var session: String?
    @OptionGroup var folder: LibraryFolderOption
    @Flag(help: "Do not ask for confirmation (needed when not run from a terminal).") var yes = false
    @Flag(help: "Leave the agents' spooled copies of the session where they are: ask no agent.") var keepAgentCopies = false
    @Flag(help: "Delete no folder: ask the agents that still held copies of deleted sessions again.") var retryAgents = false
    @OptionGroup var state: StateOption

    func validate() throws {
        if retryAgents && (session != nil || keepAgentCopies) {
            throw ValidationError("--retry-agents takes no session and no --keep-agent-copies: it asks the agents noted by earlier deletes")
        }
        if !retryAgents && session == nil { throw ValidationError("name the session to delete (see `list`)") }
    }

    func run() async throws {
        let pending = PendingAgentCopies(stateDirectory: state.directory)
        if retryAgents {
            guard let forgetter = try forgetter() else { return }
            let results = try await pending.retry(with: forgetter)
            if results.isEmpty { print("No agent is noted as holding a copy of a deleted session.") }
            for copies in results { copies.lines().forEach { print($0) } }
            return
        }
        let found = try LibraryCommandSupport.resolve(session ?? "", in: folder)
        if !yes {
            // A script piping "y" in by accident must not delete recordings: only a person
            // at a terminal answers the question.
            guard isatty(STDIN_FILENO) == 1 else {
                throw ValidationError("not deleting \(found.id): standard input is not a terminal, so nobody can confirm; "
                    + "pass --yes to delete without asking")
            }
            let agents = keepAgentCopies ? "" : " and the agents' spooled copies of it"
            print("Delete session \(found.id) (\(found.path), \(found.sizeText)) and every file in it\(agents)? [y/N] ",
                  terminator: "")
            let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            guard answer == "y" || answer == "yes" else {
                print("Not deleted.")
                return
            }
        }
        let copies = try await folder.library.delete(found, forgetter: keepAgentCopies ? nil : try forgetter())
        print("Deleted \(found.path).")
        copies.lines().forEach { print($0) }
        do {
            try pending.note(copies)
        } catch {
            print("The agents that still hold copies cannot be noted for --retry-agents: \(error)")
        }
    }

    /// Nil, said why, when this coordinator has no identity: no agent would accept it, and
    /// a new identity would be paired with none.
    private func forgetter() throws -> SpoolForgetter? {
        guard let identity = try DeviceIdentity.loadIfPresent(in: state.directory) else {
            print("This coordinator has no identity in \(state.directory) (pass the --state that `start` used), "
                + "so no agent would accept it: the agents' spooled copies are left.")
            return nil
        }
        return SpoolForgetter(identity: identity)
    }
}

struct RebuildManifest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rebuild-manifest",
        abstract: "Rebuild a session's damaged or missing manifest.json from its session.json and segments, without its agents.",
        discussion: """
            The per-camera files, the combined file and the manifest are made again from the segments in the \
            folder; the damaged manifest is kept as manifest.damaged.json. The agents' frame counts and clock \
            figures and the layout changes made while recording were only in the old manifest: the new one counts \
            the frames in each file and replays the starting layout. To collect segments the agents still hold, \
            use `resume` instead.
            """)
    @Argument(help: "The session's ID (see `list`) or its folder's path.") var session: String
    @OptionGroup var folder: LibraryFolderOption

    func run() async throws {
        let logger = CommandSupport.logger()
        let found = try LibraryCommandSupport.resolve(session, in: folder)
        let result = try await folder.library.rebuildManifest(found, logger: logger) { line in
            Console.error(line)
        }
        CommandSupport.report(result)
    }
}

struct Recompose: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Re-render a session's combined file from its per-camera files, with another layout, filter or encoding.",
        discussion: """
            Without --layout the layout recorded in the manifest is replayed, with its changes; without --filter \
            the recorded filter. Each render is a new file beside the combined one (named for its layout) and is \
            listed by `show`: the live composite is never lost. --replace overwrites the combined file instead, \
            only once the new one is complete: an interrupted or failed recompose leaves the session as it was.
            """)
    @Argument(help: "The session's ID (see `list`) or its folder's path.") var session: String
    @OptionGroup var folder: LibraryFolderOption
    @OptionGroup var layout: LayoutOptions
    @OptionGroup var direction: DirectorOptions
    @Option(help: "Encoder (default: the combined file's last, e.g. libx264).") var encoder: String?
    @Option(help: "Encoder preset (default: the combined file's last, e.g. veryfast).") var preset: String?
    @Option(parsing: .unconditional, help: "Constant quality, 0-51. Exclusive with --bitrate.") var crf: Int?
    @Option(help: "Target bitrate in bit/s, e.g. 6000000 or 6M. Exclusive with --crf.") var bitrate: String?
    @Option(help: "x264 tune, e.g. zerolatency as the live composite uses (default: none).") var tune: String?
    @Flag(help: "Overwrite the combined file (the live composite, or its last replacement) instead of writing a new file beside it.")
    var replace = false

    func validate() throws {
        if crf != nil && bitrate != nil { throw ValidationError("--crf and --bitrate exclude each other; pick one") }
        try CoordinatorRanges.crf.validate(crf)
        if let problem = VideoEncoderSettings.problem(encoder: encoder ?? "libx264", preset: preset) {
            throw ValidationError(problem)
        }
        if let bitrate, (VideoEncoderSettings.parseBitrate(bitrate) ?? 0) < 100_000 {
            throw ValidationError("--bitrate must be bits per second of at least 100k, e.g. 6000000 or 6M")
        }
    }

    func run() throws {
        MediaLog.setQuiet()
        // One render and the process ends: memory freed is kept for the next picture
        // rather than given back and faulted in again (CLinux's dc_keep_freed_memory).
        _ = dc_keep_freed_memory(32 << 20)
        let found = try LibraryCommandSupport.resolve(session, in: folder)
        var request = RecomposeRequest()
        // Any layout option gives one layout for the whole file; --fit, --anchor,
        // --pip-position, --pip-size or --swap alone adjust the layout the session started with.
        if layout.layout != nil || layout.fit != nil || layout.anchor != nil || layout.pipPosition != nil
            || layout.pipSize != nil || layout.swap {
            request.layout = try layout.spec(remembered: found.recordedLayout)
        }
        if LibraryCommandSupport.given(["--filter", "--filter-intensity"]) { request.filter = try layout.look() }
        if layout.mix != nil { request.mix = try layout.mixSpec() }
        request.director = try direction.flagSettings()
        request.loudnessTarget = try layout.loudnessTarget()
        request.encoder = encoder
        request.preset = preset
        request.crf = crf
        request.bitrate = bitrate.flatMap { VideoEncoderSettings.parseBitrate($0) }
        request.tune = tune
        request.replace = replace

        let cancellation = RecomposeCancellation()
        let signals = LibraryCommandSupport.onInterrupt { cancellation.cancel() }
        defer { signals.forEach { $0.cancel() } }
        let meter = ProgressLine()
        let result: RecomposeResult
        do {
            result = try Recomposer.run(found, request: request, cancellation: cancellation) { meter.show($0) }
        } catch {
            meter.end()
            if cancellation.isCancelled {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                throw ExitCode(130)
            }
            throw error
        }
        meter.end()
        print((replace ? "Recomposed (replacing the combined file) " : "Recomposed into a new file: ") + result.combinedFile)
        print(String(format: "  %d frames in %.1f s (%.1f fps); layout %@, filter %@; %d with every camera fresh, %d repeats, %d no signal",
                     result.frames, result.wallSeconds, Double(result.frames) / max(result.wallSeconds, 1e-9),
                     result.layout as NSString, result.filter as NSString, result.pairs, result.repeats, result.noSignal))
    }
}

enum LibraryCommandSupport {
    /// Not a ValidationError: a session that is not there is no usage mistake, and the
    /// message already lists what there is.
    static func resolve(_ session: String, in folder: LibraryFolderOption) throws -> SessionFolder {
        try folder.library.resolve(session)
    }

    /// Whether one of `names` is on the command line. ArgumentParser fills in defaults
    /// (LayoutOptions' filter is "none"), so only this tells "keep the recorded filter"
    /// from "--filter none".
    static func given(_ names: [String]) -> Bool {
        CommandLine.arguments.dropFirst().contains { argument in
            names.contains { argument == $0 || argument.hasPrefix($0 + "=") }
        }
    }

    /// Runs `handler` on SIGINT or SIGTERM instead of dying, so the work can stop cleanly.
    static func onInterrupt(_ handler: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            return source
        }
    }
}

/// Progress on stderr: rewritten in place on a terminal, a line per tenth otherwise.
final class ProgressLine {
    private let terminal = isatty(STDERR_FILENO) == 1
    private var lastTenth = -1
    private var drawn = false

    func show(_ p: RecomposeProgress) {
        let text = String(format: "recompose %5.1f %%  %d/%d frames  %.1f fps", p.fraction * 100, p.framesComposed,
                          p.framesExpected, p.framesPerSecond)
        if terminal {
            FileHandle.standardError.write(Data(("\r" + text + "  ").utf8))
            drawn = true
        } else if Int(p.fraction * 10) > lastTenth {
            lastTenth = Int(p.fraction * 10)
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }
    }

    func end() {
        if drawn { FileHandle.standardError.write(Data("\n".utf8)) }
        drawn = false
    }
}
