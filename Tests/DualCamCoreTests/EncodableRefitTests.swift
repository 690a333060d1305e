import Testing
@testable import DualCamCore

/// A node refuses a Prepare as too slow (issue 19): the same start records at what every
/// node can encode when the size came from a quality preset, and fails naming what to
/// pass when the operator chose it; the take machine prepares everyone again in between.
@Suite struct EncodableRefitTests {
    static let second: Int64 = 1_000_000_000
    let hd = CaptureMode(width: 1920, height: 1080, rate: .fps30)
    let fits = [CaptureMode(width: 1280, height: 720, rate: .fps30), CaptureMode(width: 1920, height: 1080, rate: FrameRate(20))]

    @Test func aPresetsSizeIsLoweredToWhatEveryNodeFits() {
        let decision = EncodableRefit.decide(hd, nodes: [("pi-a", []), ("pi-b", fits)], fitsSize: true, fitsRate: true)
        #expect(decision == .prepareAgain(CaptureMode(width: 1280, height: 720, rate: .fps30)))
        // Two slow nodes: the smaller of what each fits.
        let both = EncodableRefit.decide(hd, nodes: [("pi-a", [CaptureMode(width: 960, height: 540, rate: .fps30)]), ("pi-b", fits)],
                                         fitsSize: true, fitsRate: true)
        #expect(both == .prepareAgain(CaptureMode(width: 960, height: 540, rate: .fps30)))
    }

    @Test func explicitSettingsFailNamingWhatToPass() {
        guard case .refuse(let text) = EncodableRefit.decide(hd, nodes: [("pi-a", []), ("pi-b", fits)], fitsSize: false, fitsRate: false) else {
            Issue.record("explicit settings were changed")
            return
        }
        #expect(text.hasPrefix("pi-b cannot encode 1920x1080 at 30 fps in real time (pi-b measured it fits 1280x720 at 30 fps or 1920x1080 at 20 fps)"), "\(text)")
        #expect(text.contains("pass --size 1280x720 to record at 1280x720 at 30 fps"), "\(text)")
        #expect(text.contains("--preset"), "\(text)")
    }

    @Test func nothingSmallerFitsFails() {
        let tiny = [CaptureMode(width: 320, height: 180, rate: .fps30)]
        guard case .refuse(let text) = EncodableRefit.decide(hd, nodes: [("pi-b", tiny)], fitsSize: true, fitsRate: true) else {
            Issue.record("a mode was invented")
            return
        }
        #expect(text.contains("nothing down to 640x360 fits every node"), "\(text)")
    }

    /// Two agents: cam1 refuses while cam0 is still preparing, then cam0 is Ready. Only
    /// then is cam0 stopped (a Prepare needs an idle connection), and once it is idle
    /// both are prepared again; their Ready starts the take at the new rate's grid.
    @Test func theMachinePreparesEveryoneAgainOnceAllHaveAnswered() {
        var settings = TakeMachine.Settings(rate: .fps30, durationNanoseconds: nil)
        settings.countdownSeconds = 0
        var m = TakeMachine(settings: settings, agents: ["cam0", "cam1"])
        let now = 100 * Self.second
        _ = m.handle(.start(now: now))
        let prepared = m.agents.indices.flatMap { m.handle(.clock(agent: $0, locked: true, boundNanoseconds: 50_000, now: now)) }
        #expect(prepared == [.prepare([0, 1])])
        // cam1 refuses first: nothing happens while cam0 still opens its camera.
        #expect(m.handle(.refit(agent: 1, rate: FrameRate(25), now: now + Self.second)).isEmpty)
        #expect(m.settings.rate == FrameRate(25))
        // cam0's Ready at the old settings: no start; it is stopped to be prepared again.
        let stop = m.handle(.ready(agent: 0, now: now + 2 * Self.second))
        #expect(stop == [.stop([0], at: now + 2 * Self.second)], "\(stop)")
        #expect(m.phase == .syncing(deadline: now + 2 * Self.second + settings.clockWaitNanoseconds))
        #expect(!m.agents[0].excluded && !m.agents[1].excluded)
        // Its connection back in no session: Prepare to both.
        #expect(m.handle(.idle(agent: 0, true, now: now + 3 * Self.second)) == [.prepare([0, 1])])
        #expect(m.handle(.ready(agent: 0, now: now + 4 * Self.second)).isEmpty)
        let start = m.handle(.ready(agent: 1, now: now + 4 * Self.second))
        guard case .startAt(let who, let t0, _)? = start.first else {
            Issue.record("no StartAt: \(start)")
            return
        }
        #expect(who == [0, 1])
        // On the 25 fps grid: a whole number of 40 ms frames.
        #expect(t0 % 40_000_000 == 0 && t0 >= now + 4 * Self.second + 1_500_000_000)
    }

    @Test func aRefusalTheOperatorCannotBeFittedFailsTheTake() {
        var m = TakeMachine(settings: TakeMachine.Settings(rate: .fps30, durationNanoseconds: nil), agents: ["cam0", "cam1"])
        _ = m.handle(.start(now: 0))
        _ = m.agents.indices.flatMap { m.handle(.clock(agent: $0, locked: true, boundNanoseconds: 50_000, now: 0)) }
        _ = m.handle(.ready(agent: 0, now: Self.second))
        let actions = m.handle(.refused(agent: 1, reason: "cam1 cannot encode 1920x1080 at 30 fps", now: 2 * Self.second))
        // cam1's connection is idle after its refusal: only cam0, Ready, is stopped.
        #expect(actions == [.stop([0], at: 2 * Self.second), .discard], "\(actions)")
        #expect(m.phase == .failed("cam1 cannot encode 1920x1080 at 30 fps"))
    }
}
