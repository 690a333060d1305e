import DualCamCoordinator
import DualCamCore
import Foundation
import Synchronization

/// The terminal as one client of the rig's API: it prints the rig's notices, draws the
/// status line, the countdown and the finishing bar from its snapshots, and turns keys
/// into commands. Nothing here decides anything about a take.
///
/// Keys on a terminal: Enter or q stops (in `serve`, Enter also starts), l cycles the
/// layout, s swaps the cameras, p moves the small picture (pip) or steps the framing
/// (the other layouts; `LayoutSpec.nextPlacement`), d takes the programme from the
/// director or hands it back. From a pipe, one command a line (`TerminalInput(line:)`).
/// Ctrl-C stops the take; a second Ctrl-C leaves at once, the agents recording on until
/// `dualcam-coordinator resume` finishes the session (in a countdown, it hurries the
/// cancel instead).
final class TerminalClient: Sendable {
    let rig: Rig
    /// `serve`: Enter starts a take when none is under way, `quit` ends the rig.
    let serving: Bool
    let startPlan: TakePlan?
    /// `serve --allow-missing`: a `start` from a pipe records without a missing node.
    let allowMissing: Bool
    private let status = StatusLine()
    private let state = Mutex(State())

    private struct State {
        var busy = false
        var phase: TakePhase?
        var lastCountdown: Int?
        var lastBar = -1
        var interrupts = 0
        /// The layout the last take recorded with, for the next one.
        var lastLayout: LayoutSpec?
        /// Whether the director has the programme (nil: no director in this take).
        var directorFollowing: Bool?
        /// The first signal cancelled a take that had not begun recording.
        var cancelling = false
        /// Whether Enter already asked about the nodes a take would leave out (a second
        /// Enter records without them).
        var armedLeftOut = false
        var quit: (@Sendable () -> Void)?
    }

    init(rig: Rig, serving: Bool = false, startPlan: TakePlan? = nil, allowMissing: Bool = false) {
        self.rig = rig
        self.serving = serving
        self.startPlan = startPlan
        self.allowMissing = allowMissing
    }

    /// Starts showing the rig; with `keys`, reads commands from standard input too.
    func attach(keys: Bool, takesInterrupts: Bool, onQuit: (@Sendable () -> Void)? = nil) {
        state.withLock { $0.quit = onQuit }
        let notices = rig.notices()
        let snapshots = rig.snapshots()
        Task { for await line in notices { self.status.note(line) } }
        Task { for await snapshot in snapshots { self.show(snapshot) } }
        if takesInterrupts { Interrupts.route { self.interrupt($0) } }
        if keys { KeyReader.start { self.command($0) } }
    }

    private func show(_ snapshot: RigSnapshot) {
        state.withLock { s in
            s.busy = snapshot.busy
            s.phase = snapshot.take?.phase
            // The layout a take ends with is the next take's (as in the studio).
            if let take = snapshot.take, !take.isOver, let layout = try? LayoutSpec(parsing: take.layout) { s.lastLayout = layout }
            s.directorFollowing = snapshot.take?.director?.following
        }
        guard let take = snapshot.take else { return }
        if let n = take.countdownSeconds, n > 0 {
            let changed = state.withLock { s -> Bool in
                defer { s.lastCountdown = n }
                return s.lastCountdown != n
            }
            if changed { status.note("\(n)…") }
        }
        switch take.phase {
        case .recording, .stopping:
            // A take cancelled in its countdown stops at T0: it has no recording to show.
            guard take.phase == .recording || take.elapsedSeconds > 0 else { return }
            status.show(StatusText.parts(snapshot))
        case .finalising:
            guard let p = take.finalising else { return }
            let percent = p.total == 0 ? 100 : p.done * 100 / p.total
            let last = state.withLock { s -> Int in defer { s.lastBar = percent }; return s.lastBar }
            if percent != last { status.bar(percent: percent, previous: last) }
        default:
            status.end()
            if take.isOver { state.withLock { $0.lastCountdown = nil; $0.lastBar = -1 } }
        }
    }

    private func command(_ input: TerminalInput) {
        let (busy, lastLayout, following, armed) = state.withLock { s in
            defer { s.armedLeftOut = false }  // any input but the confirming Enter disarms
            return (s.busy, s.lastLayout, s.directorFollowing, s.armedLeftOut)
        }
        var request: CommandRequest
        switch input {
        case .enter: request = CommandRequest(serving && !busy ? .start : .stop)
        case .request(let r): request = r
        case .toggleDirector:
            // The director's own state says which way the key goes.
            request = CommandRequest(.director)
            request.director = following ?? true ? .manual : .auto
        case .refused(let reason):
            status.note(reason)
            return
        case .camera(let words):
            camera(words)
            return
        case .quit:
            if busy {
                status.note("a take is under way: stop it first (Enter), then quit")
                return
            }
            state.withLock { $0.quit }?()
            return
        }
        // The layout a take ends with is the next one's, as in the studio.
        var plan = startPlan
        if let lastLayout { plan?.layout = lastLayout }
        if request.command == .start && plan == nil { return }
        let context = CommandContext(plan: plan, layout: lastLayout ?? plan?.layout ?? LayoutSpec(kind: .pip),
                                     filter: FilterSetting(plan?.filter ?? Filter(kind: .none)), stopReason: "Enter")
        var command: RigCommand
        do {
            command = try request.rigCommand(context)
        } catch {
            status.note(error.field.map { "not a \($0.rawValue): \(error.detail)" } ?? error.description)
            return
        }
        // `live on` with no take: live without recording, as the studio's Go live.
        if case .live(true) = command, !busy, let plan { command = .goLive(plan) }
        let (starting, atTerminal, allowMissing) = (request.command == .start, input == .enter, allowMissing)
        Task {
            if starting {
                // A node the rig was started with and that is now missing or NOT READY is
                // left out only when the person says so (issue 36), as the studio asks
                // before Record. Judged on the rig's state now: this screen's copy comes
                // by another stream than the NOT READY line, and a start typed just after
                // that line once found the copy without it and recorded without the node.
                let agents = await rig.snapshot().agents
                switch LeftOutNodes(rig: agents).startGate(armed: armed, atTerminal: atTerminal, allowMissing: allowMissing) {
                case .go: break
                case .ask(let question):
                    self.state.withLock { $0.armedLeftOut = true }
                    self.status.note(question)
                    return
                case .refuse(let why):
                    self.status.note(why)
                    return
                }
            }
            do { try await rig.perform(command) } catch { self.status.note("\(error)") }
        }
    }

    /// The first signal stops the take under way on every agent (a take still counting
    /// down is cancelled, and the coordinator waits for each agent to confirm), or ends a
    /// rig with none. A second one during a recording leaves at once (the agents record
    /// on for `resume`); during a cancel it only hurries the cancel: leaving then would
    /// let the agents start at T0 and record a take nobody wants.
    private func interrupt(_ signal: Interrupts.Signal) {
        let (count, phase, cancelling) = state.withLock { s -> (Int, TakePhase?, Bool) in
            s.interrupts += 1
            if s.interrupts == 1 { s.cancelling = s.phase.map { !$0.hasRecorded } ?? false }
            return (s.interrupts, s.phase, s.cancelling)
        }
        if count == 2 && cancelling {
            status.note("\(signal.name) again: cancelling on every agent, leaving as soon as each has heard it "
                        + "(at most \(Int(Self.cancelGraceSeconds)) s; again: leave now)")
            Task {
                // The first signal's stop may not have reached the rig yet: ask again.
                try? await rig.perform(.stop(reason: signal.name))
                try? await Task.sleep(for: .seconds(Self.cancelGraceSeconds))
                leave(signal, cancelling: true)
            }
            return
        }
        guard count == 1 else { leave(signal, cancelling: cancelling) }
        Task {
            do {
                try await rig.perform(.stop(reason: signal.name))
                switch phase {
                case .finalising:
                    status.note("\(signal.name): the take is recorded; finishing its files (again: leave now, and `dualcam-coordinator resume` finishes them)")
                case .recording, .stopping:
                    status.note("\(signal.name): stopping the take on every agent (again: leave now; the agents record on until `dualcam-coordinator resume`)")
                default:
                    status.note("\(signal.name): cancelling the take on every agent")
                }
            } catch {
                // No take under way: nothing to stop.
                if let quit = state.withLock({ $0.quit }) { quit() } else { leave(signal, cancelling: false) }
            }
        }
    }

    /// How long a second signal lets a cancel run before leaving anyway: each agent's
    /// Stop is on its way by then, and one that cannot be reached is said.
    static let cancelGraceSeconds = 3.0

    private func leave(_ signal: Interrupts.Signal, cancelling: Bool) -> Never {
        KeyReader.restoreTerminal()
        if cancelling {
            Console.error("\nleaving before every agent confirmed the cancel; one that did not hear it records the take: "
                          + "`dualcam-coordinator resume` stops and finishes it (`resume --abandon` keeps only what is here)")
        } else {
            Console.error("\nleaving now; an agent still recording records on: `dualcam-coordinator resume` finishes the session")
        }
        exit(signal.exitCode)
    }
}

extension TerminalClient {
    /// `camera …` typed into a running rig: the camera command's words, on this rig's links.
    fileprivate func camera(_ words: String) {
        let arguments: CameraArguments
        do {
            arguments = try CameraArguments.parse(words.split(separator: " ").map(String.init))
        } catch {
            status.note("camera: \(CameraArguments.message(for: error))")
            return
        }
        Task {
            do {
                _ = try await arguments.perform(on: rig) { self.status.note($0) }
            } catch {
                self.status.note("camera: \(error)")
            }
        }
    }
}
