import Testing
@testable import DualCamCore

/// The take's phases with simulated time, for 1, 2 and 8 agents: every transition, and
/// agents lost, back, restarted, late or refusing at each phase.
@Suite struct TakeMachineTests {
    static let second: Int64 = 1_000_000_000
    static let rigSizes = [1, 2, 8]

    /// A machine whose agents are connected and idle, with their clocks not yet locked.
    func machine(_ n: Int, duration: Int64? = nil, countdown: Int = 0) -> TakeMachine {
        var settings = TakeMachine.Settings(rate: .fps30, durationNanoseconds: duration)
        settings.countdownSeconds = countdown
        settings.reconnectGraceNanoseconds = 10 * Self.second
        return TakeMachine(settings: settings, agents: (0..<n).map { "cam\($0)" })
    }

    func lockClocks(_ m: inout TakeMachine, now: Int64) -> [TakeMachine.Action] {
        m.agents.indices.flatMap { m.handle(.clock(agent: $0, locked: true, boundNanoseconds: 50_000, now: now)) }
    }

    /// Through prepare and ready to the countdown; returns T0.
    func startRecording(_ m: inout TakeMachine, at now: Int64) -> Int64 {
        #expect(m.handle(.start(now: now)).isEmpty)
        #expect(m.phase == .syncing(deadline: now + 30 * Self.second))
        let prepared = lockClocks(&m, now: now + 100_000_000)
        #expect(prepared == [.prepare(Array(m.agents.indices))])
        var started: [TakeMachine.Action] = []
        for i in m.agents.indices { started += m.handle(.ready(agent: i, now: now + Self.second)) }
        guard case .startAt(let who, let t0, _)? = started.last else {
            Issue.record("no StartAt after every Ready: \(started)")
            return 0
        }
        #expect(started.count == 1 && who == Array(m.agents.indices))
        return t0
    }

    @Test(arguments: rigSizes)
    func takeGoesThroughEveryPhaseToDone(n: Int) {
        var m = machine(n)
        let t0 = startRecording(&m, at: 100 * Self.second)
        // On the 30 fps grid, at least the lead after the last Ready.
        #expect(t0 >= 101 * Self.second + 1_500_000_000)
        #expect(t0 == FrameRate.fps30.instant(ofFrame: FrameRate.fps30.firstFrame(atOrAfter: t0)))
        #expect(m.phase == .countingDown(t0: t0, stop: nil))
        #expect(m.nextDeadline == t0)
        #expect(m.handle(.tick(now: t0)).isEmpty)
        #expect(m.phase == .recording(t0: t0, stop: nil))
        let stopActions = m.handle(.stop(now: t0 + 5 * Self.second, reason: "Enter"))
        guard case .stop(let who, let at)? = stopActions.first else {
            Issue.record("no Stop: \(stopActions)")
            return
        }
        #expect(who == Array(0..<n))
        #expect(at >= t0 + 5 * Self.second + 200_000_000 && at < t0 + 5 * Self.second + 240_000_000)
        #expect(m.phase == .stopping(t0: t0, stop: at))
        for i in 0..<n {
            #expect(m.handle(.finished(agent: i)).isEmpty)
            let actions = m.handle(.complete(agent: i))
            #expect(actions == (i == n - 1 ? [.finalise] : []))
        }
        #expect(m.phase == .finalising(t0: t0, stop: at))
        #expect(m.handle(.finalised(ok: true, reason: nil)).isEmpty)
        #expect(m.phase == .done)
        #expect(m.handle(.start(now: t0 + 60 * Self.second)).isEmpty, "an ended take takes no more input")
    }

    @Test(arguments: rigSizes)
    func aTakeOfSetLengthStopsByItself(n: Int) {
        var m = machine(n, duration: 10 * Self.second)
        let t0 = startRecording(&m, at: 5 * Self.second)
        #expect(m.phase == .countingDown(t0: t0, stop: t0 + 10 * Self.second))
        _ = m.handle(.tick(now: t0))
        #expect(m.nextDeadline == t0 + 10 * Self.second)
        #expect(m.handle(.tick(now: t0 + 10 * Self.second)).isEmpty, "the agents stop by themselves: no Stop is sent")
        #expect(m.phase == .stopping(t0: t0, stop: t0 + 10 * Self.second))
    }

    @Test func countdownLengthensTheLead() {
        var m = machine(2, countdown: 10)
        let t0 = startRecording(&m, at: 0)
        #expect(t0 >= Self.second + 10 * Self.second)
    }

    @Test(arguments: rigSizes)
    func aStartIsRefusedWhileAClockIsNotLocked(n: Int) {
        var m = machine(n)
        _ = m.handle(.start(now: 0))
        // Every clock but the last locks; the last stays above the threshold.
        for i in 0..<(n - 1) { #expect(m.handle(.clock(agent: i, locked: true, boundNanoseconds: 10_000, now: 0)).isEmpty) }
        #expect(m.handle(.clock(agent: n - 1, locked: true, boundNanoseconds: 2_000_000, now: 0)).isEmpty)
        #expect(m.handle(.tick(now: 29 * Self.second)).isEmpty)
        let actions = m.handle(.tick(now: 30 * Self.second))
        #expect(actions == [.discard], "nothing was prepared, so nothing is stopped")
        guard case .failed(let reason) = m.phase else {
            Issue.record("not failed: \(m.phase)")
            return
        }
        #expect(reason.contains("cam\(n - 1)"))
    }

    @Test func aStartIsRefusedWhenADiskIsTooSmall() {
        var settings = TakeMachine.Settings(rate: .fps30, durationNanoseconds: 60 * Self.second)
        settings.requiredDiskBytes = 500_000_000
        var m = TakeMachine(settings: settings, agents: ["host", "guest"])
        _ = m.handle(.disk(agent: 0, freeBytes: 80_000_000_000))
        _ = m.handle(.disk(agent: 1, freeBytes: 100_000_000))
        #expect(m.handle(.start(now: 0)).isEmpty)
        guard case .failed(let reason) = m.phase else {
            Issue.record("not refused: \(m.phase)")
            return
        }
        #expect(reason.contains("guest (100 MB free)") && !reason.contains("host"))
    }

    @Test(arguments: rigSizes)
    func aStopDuringTheCountdownCancelsTheTakeOnEveryAgent(n: Int) {
        var m = machine(n, countdown: 3)
        let t0 = startRecording(&m, at: 0)
        let actions = m.handle(.stop(now: t0 - 2 * Self.second, reason: "Ctrl-C"))
        #expect(actions == [.stop(Array(0..<n), at: t0)])
        // Not over until every agent has said it stopped: one that missed the Stop would
        // record on with nobody to stop it.
        #expect(m.phase == .stopping(t0: t0, stop: t0))
        for i in 0..<(n - 1) {
            #expect(m.handle(.complete(agent: i)).isEmpty)
        }
        #expect(m.handle(.complete(agent: n - 1)) == [.discard])
        #expect(m.phase == .cancelled("Ctrl-C"))
    }

    /// An agent lost while the take is cancelled may be recording: given up on after the
    /// grace, the take ends cancelled but keeps its folder (with its stop at T0) so that
    /// `resume` can reach that agent and stop it.
    @Test func anAgentThatNeverConfirmsTheCancelKeepsTheSessionForResume() {
        var m = machine(2, countdown: 3)
        let t0 = startRecording(&m, at: 0)
        _ = m.handle(.lost(agent: 1, now: t0 - 2 * Self.second - 1))
        #expect(m.handle(.stop(now: t0 - 2 * Self.second, reason: "Ctrl-C")) == [.stop([0], at: t0)])
        #expect(m.handle(.complete(agent: 0)).isEmpty)
        let actions = m.handle(.tick(now: t0 + 10 * Self.second))
        #expect(actions.first == .giveUp(1, reason: "not back 10 s after the stop"))
        #expect(!actions.contains(.discard), "\(actions)")
        #expect(actions.contains { if case .warn(let text) = $0 { text.contains("cam1 did not confirm") } else { false } })
        #expect(m.phase == .cancelled("Ctrl-C"))
    }

    /// `resume --without`: the agent left out is given up on at once (what is held of it
    /// stays), and the take finishes as soon as the others are complete.
    @Test func anAgentLeftOutByTheOperatorIsNotWaitedFor() {
        var m = TakeMachine(settings: .init(rate: .fps30, durationNanoseconds: nil), agents: ["host", "guest"],
                            resumingAt: 50 * Self.second, stop: 80 * Self.second, now: 90 * Self.second)
        #expect(m.handle(.leaveOut(agent: 1, reason: "--without")) == [.giveUp(1, reason: "--without")])
        #expect(m.handle(.leaveOut(agent: 1, reason: "--without")).isEmpty)
        _ = m.handle(.connected(agent: 0, recordingThisTake: false, now: 91 * Self.second))
        #expect(m.handle(.complete(agent: 0)) == [.finalise])
    }

    /// `resume` of a take cancelled during its countdown (stop at T0) stops its agents
    /// and removes the folder instead of finishing files of no frames.
    @Test func resumingATakeStoppedAtT0EndsItCancelled() {
        var m = TakeMachine(settings: .init(rate: .fps30, durationNanoseconds: nil), agents: ["host", "guest"],
                            resumingAt: 50 * Self.second, stop: 50 * Self.second, now: 60 * Self.second)
        #expect(m.handle(.connected(agent: 0, recordingThisTake: true, now: 61 * Self.second))
                == [.resume(0), .stop([0], at: 50 * Self.second)])
        _ = m.handle(.connected(agent: 1, recordingThisTake: false, now: 61 * Self.second))
        _ = m.handle(.complete(agent: 0))
        #expect(m.handle(.complete(agent: 1)) == [.discard])
        #expect(m.phase == .cancelled("cancelled during the countdown"))
    }

    @Test func aStopWhilePreparingStopsThePreparedAgents() {
        var m = machine(2)
        _ = m.handle(.start(now: 0))
        _ = lockClocks(&m, now: 0)
        #expect(m.handle(.stop(now: Self.second, reason: "Enter")) == [.stop([0, 1], at: Self.second), .discard])
    }

    @Test func readyTimeoutFailsTheTakeAndStopsWhatWasPrepared() {
        var m = machine(2)
        _ = m.handle(.start(now: 0))
        _ = lockClocks(&m, now: 0)
        _ = m.handle(.ready(agent: 0, now: Self.second))
        let actions = m.handle(.tick(now: 31 * Self.second))
        #expect(actions == [.stop([0, 1], at: 31 * Self.second), .discard])
        #expect(m.phase == .failed("not ready in time: cam1"))
    }

    @Test func aNodeThatCannotPrepareIsLeftOutAndTheOthersRecord() {
        var m = machine(3)
        _ = m.handle(.start(now: 0))
        _ = lockClocks(&m, now: 0)
        _ = m.handle(.ready(agent: 0, now: Self.second))
        _ = m.handle(.ready(agent: 2, now: Self.second))
        let actions = m.handle(.prepareFailed(agent: 1, reason: "no microphone hw:9,0", now: 2 * Self.second))
        #expect(actions.first == .warn("recording without cam1: no microphone hw:9,0"))
        guard case .startAt(let who, _, _)? = actions.last else {
            Issue.record("no StartAt: \(actions)")
            return
        }
        #expect(who == [0, 2])
    }

    @Test func aTakeNobodyCanPrepareFails() {
        var m = machine(1)
        _ = m.handle(.start(now: 0))
        _ = lockClocks(&m, now: 0)
        _ = m.handle(.prepareFailed(agent: 0, reason: "camera busy", now: Self.second))
        #expect(m.phase == .failed("no agent could prepare: camera busy"))
    }

    @Test func aBusyConnectionDelaysPrepareUntilItIsIdle() {
        var m = machine(2)
        _ = m.handle(.idle(agent: 1, false, now: 0))
        _ = m.handle(.start(now: 0))
        #expect(lockClocks(&m, now: 0).isEmpty, "the last take's RecordingFinished has not come yet")
        #expect(m.handle(.idle(agent: 1, true, now: Self.second)) == [.prepare([0, 1])])
    }

    @Test func anAgentLostWhilePreparingPreparesAgainWhenBack() {
        var again = machine(2)
        _ = again.handle(.start(now: 0))
        _ = lockClocks(&again, now: 0)
        _ = again.handle(.ready(agent: 0, now: Self.second))
        #expect(again.handle(.lost(agent: 1, now: Self.second)).isEmpty)
        #expect(again.handle(.connected(agent: 1, recordingThisTake: false, now: 2 * Self.second)) == [.prepare([1])])
        let actions = again.handle(.ready(agent: 1, now: 3 * Self.second))
        guard case .startAt([0, 1], _, _)? = actions.first else {
            Issue.record("no StartAt: \(actions)")
            return
        }
    }

    @Test(arguments: rigSizes)
    func anAgentLostWhileRecordingIsResumedWhenBack(n: Int) {
        var m = machine(n)
        let t0 = startRecording(&m, at: 0)
        _ = m.handle(.tick(now: t0))
        let last = n - 1
        let lost = m.handle(.lost(agent: last, now: t0 + Self.second))
        #expect(lost.count == 1 && lost.allSatisfy { if case .warn = $0 { true } else { false } }, "\(lost)")
        #expect(m.agents[last].lostSince == t0 + Self.second && !m.agents[last].connected)
        #expect(m.handle(.connected(agent: last, recordingThisTake: true, now: t0 + 5 * Self.second)) == [.resume(last)])
        #expect(m.phase == .recording(t0: t0, stop: nil))
    }

    @Test func aRestartedAgentRejoinsWithTheTakesOwnStart() {
        var m = machine(2, duration: 60 * Self.second)
        let t0 = startRecording(&m, at: 0)
        _ = m.handle(.tick(now: t0))
        _ = m.handle(.lost(agent: 1, now: t0 + Self.second))
        let back = m.handle(.connected(agent: 1, recordingThisTake: false, now: t0 + 10 * Self.second))
        #expect(back.last == .prepare([1]))
        #expect(m.handle(.ready(agent: 1, now: t0 + 11 * Self.second)).isEmpty, "its clock has no bound yet")
        #expect(m.handle(.clock(agent: 1, locked: false, boundNanoseconds: 5_000_000, now: t0 + 11 * Self.second)).isEmpty,
                "its bound is over the threshold")
        // Converging, not locked: a hard bound under the threshold is enough to record the
        // rest of a take under way (waiting for the lock cost 3 s of its pictures).
        let start = m.handle(.clock(agent: 1, locked: false, boundNanoseconds: 40_000, now: t0 + 11 * Self.second + 300_000_000))
        #expect(start == [.startAt([1], t0: t0, stop: t0 + 60 * Self.second)])
    }

    /// Restarted near the stop, it is asked only for its spool. Holding nothing (killed in
    /// its first segment), it is given up on at once, and the take finishes at the stop
    /// instead of waiting for it forever.
    @Test func aRestartedAgentNearTheStopOnlyHandsInItsSpool() {
        var m = machine(2, duration: 10 * Self.second)
        let t0 = startRecording(&m, at: 0)
        _ = m.handle(.tick(now: t0))
        _ = m.handle(.lost(agent: 1, now: t0 + Self.second))
        #expect(m.handle(.connected(agent: 1, recordingThisTake: false, now: t0 + 7 * Self.second)) == [.resume(1)])
        let unavailable = m.handle(.unavailable(agent: 1))
        #expect(unavailable.contains { if case .giveUp(1, _) = $0 { true } else { false } }, "\(unavailable)")
        _ = m.handle(.tick(now: t0 + 10 * Self.second))
        #expect(m.handle(.complete(agent: 0)) == [.finalise])
    }

    @Test(arguments: rigSizes)
    func anAgentThatNeverComesBackIsGivenUpOnAfterTheGrace(n: Int) {
        var m = machine(n)
        let t0 = startRecording(&m, at: 0)
        _ = m.handle(.tick(now: t0))
        let last = n - 1
        _ = m.handle(.lost(agent: last, now: t0 + Self.second))
        let stop = m.handle(.stop(now: t0 + 2 * Self.second, reason: "Enter"))
        guard case .stop(let who, let at)? = stop.first else {
            Issue.record("no Stop")
            return
        }
        #expect(!who.contains(last), "a lost agent cannot be told")
        for i in 0..<last { _ = m.handle(.complete(agent: i)) }
        #expect(m.nextDeadline == at + 10 * Self.second)
        #expect(m.handle(.tick(now: at + 9 * Self.second)).isEmpty)
        let actions = m.handle(.tick(now: at + 10 * Self.second))
        #expect(actions == [.giveUp(last, reason: "not back 10 s after the stop"), .finalise])
    }

    @Test func anAgentBackDuringStoppingIsResumedAndTold() {
        var m = machine(2)
        let t0 = startRecording(&m, at: 0)
        _ = m.handle(.tick(now: t0))
        _ = m.handle(.lost(agent: 1, now: t0 + Self.second))
        _ = m.handle(.stop(now: t0 + 2 * Self.second, reason: "Enter"))
        guard let stop = m.stopInstant else {
            Issue.record("no stop instant")
            return
        }
        #expect(m.handle(.connected(agent: 1, recordingThisTake: true, now: t0 + 4 * Self.second))
                == [.resume(1), .stop([1], at: stop)])
    }

    @Test func anAgentHoldingNothingIsGivenUpOnAtOnce() {
        var m = machine(2)
        let t0 = startRecording(&m, at: 0)
        _ = m.handle(.tick(now: t0))
        _ = m.handle(.stop(now: t0 + Self.second, reason: "Enter"))
        _ = m.handle(.complete(agent: 0))
        #expect(m.handle(.unavailable(agent: 1)) == [.giveUp(1, reason: "it holds nothing more of this take"), .finalise])
    }

    @Test func aTakeWithNoAgentFails() {
        var m = TakeMachine(settings: .init(rate: .fps30, durationNanoseconds: nil), agents: ["host"])
        _ = m.handle(.lost(agent: 0, now: 0))
        _ = m.handle(.start(now: 0))
        #expect(m.phase == .failed("no agent is connected"))
    }

    /// The coordinator's disk filled while recording: the take ends failed and sends
    /// nothing, so every agent records on to its stop and keeps its spool for `resume`;
    /// nothing is discarded.
    @Test(arguments: rigSizes)
    func aFullOutputDiskWhileRecordingLeavesTheAgentsRecording(n: Int) {
        var m = machine(n, duration: 20 * Self.second)
        let t0 = startRecording(&m, at: 100 * Self.second)
        #expect(m.handle(.tick(now: t0)).isEmpty)
        let actions = m.handle(.outputFailed(reason: "disk full", now: t0 + 3 * Self.second))
        #expect(actions.isEmpty, "\(actions)")
        #expect(m.phase == .failed("disk full"))
        #expect(m.handle(.tick(now: t0 + 30 * Self.second)).isEmpty)
    }

    /// Before T0 nothing was recorded: a full disk cancels the take as a stop would.
    @Test func aFullOutputDiskBeforeTheStartCancelsTheTake() {
        var m = machine(2)
        let t0 = startRecording(&m, at: 100 * Self.second)
        let actions = m.handle(.outputFailed(reason: "disk full", now: t0 - Self.second))
        #expect(actions == [.stop([0, 1], at: t0)])
        _ = m.handle(.complete(agent: 0))
        #expect(m.handle(.complete(agent: 1)) == [.discard])
        #expect(m.phase == .cancelled("disk full"))
    }

    @Test func finalisingThatFailsEndsTheTakeFailed() {
        var m = machine(1)
        let t0 = startRecording(&m, at: 0)
        _ = m.handle(.tick(now: t0))
        _ = m.handle(.stop(now: t0 + Self.second, reason: "Enter"))
        _ = m.handle(.complete(agent: 0))
        _ = m.handle(.finalised(ok: false, reason: "disk full"))
        #expect(m.phase == .failed("disk full"))
    }
}

extension TakeMachineTests {
    @Test func aResumedTakeFetchesFromEveryAgentAndFinishes() {
        let t0: Int64 = 100 * Self.second
        var m = TakeMachine(settings: .init(rate: .fps30, durationNanoseconds: nil), agents: ["host", "guest"],
                            resumingAt: t0, stop: t0 + 20 * Self.second, now: t0 + 30 * Self.second)
        #expect(m.handle(.connected(agent: 0, recordingThisTake: false, now: t0 + 31 * Self.second))
                == [.resume(0), .stop([0], at: t0 + 20 * Self.second)])
        _ = m.handle(.complete(agent: 0))
        // The guest never answers: given up on once the grace has passed since the resume began.
        #expect(m.handle(.tick(now: t0 + 59 * Self.second)).isEmpty)
        #expect(m.handle(.tick(now: t0 + 60 * Self.second)) == [.giveUp(1, reason: "not back 30 s after the stop"), .finalise])
    }
}

/// Frames lost on a node are a warning of the session, with what to do.
@Suite struct DropReportTests {
    @Test func dropsAreSaidWithTheShareAndASmallerSize() {
        #expect(DropReport.warning(name: "guest", dropped: 0, captured: 120, width: 1920, height: 1080, rate: .fps30) == nil)
        let words = DropReport.warning(name: "guest", dropped: 43, captured: 77, width: 1920, height: 1080, rate: .fps30)
        #expect(words?.hasPrefix("guest dropped 43 of 120 frames (36 %) at 1920x1080 30 fps") == true, "\(words ?? "")")
        #expect(words?.contains("--size 1280x720") == true)
        #expect(DropReport.warning(name: "g", dropped: 1, captured: 999, width: 320, height: 180, rate: .fps30)?.contains("under 1 %") == true)
    }
}
