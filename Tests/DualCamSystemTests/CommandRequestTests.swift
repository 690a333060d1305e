import DualCamCoordinator
import DualCamCore
import Foundation
import Testing

/// One decoder for both screens: the studio's JSON and the terminal's keys and lines
/// become the same `CommandRequest`, and `rigCommand` gives the same `RigCommand` or the
/// same refusal for either.
@Suite struct CommandRequestTests {
    static let context = CommandContext(plan: TakePlan(agents: [], outputDirectory: "/tmp", durationSeconds: nil), layout: LayoutSpec(kind: .pip),
                                         filter: FilterSetting(kind: .vivid, intensity: 40), stopReason: "test")

    static func json(_ text: String) throws -> CommandRequest {
        try JSONDecoder().decode(CommandRequest.self, from: Data(text.utf8))
    }

    static func line(_ text: String) -> CommandRequest? {
        if case .request(let r)? = TerminalInput(line: text) { return r }
        return nil
    }

    @Test func theStudiosJSONAndTheTerminalsLinesAreOneRequest() throws {
        let pairs: [(String, String)] = [
            (#"{"command":"stop"}"#, "stop"), (#"{"command":"stop","live":true}"#, "stop recording"),
            (#"{"command":"start"}"#, "start"), (#"{"command":"swap"}"#, "s"),
            (#"{"command":"placement"}"#, "p"), (#"{"command":"next-layout"}"#, "l"),
            (#"{"command":"layout","layout":"grid"}"#, "layout grid"), (#"{"command":"mix","mix":"host"}"#, "mix host"),
            (#"{"command":"director","director":"auto"}"#, "director auto"),
            (#"{"command":"director","director":"manual"}"#, "director manual"),
            (#"{"command":"filter","filter":"bw","intensity":60}"#, "filter bw 60"),
            (#"{"command":"filter","filter":"bw","intensity":100}"#, "filter bw"),
        ]
        for (body, text) in pairs {
            #expect(try Self.json(body) == Self.line(text), "\(body) vs \(text)")
        }
        #expect(TerminalInput(key: UInt8(ascii: "q")) == .request(CommandRequest(.stop)))
        #expect(TerminalInput(key: UInt8(ascii: "l")) == .request(CommandRequest(.nextLayout)))
        #expect(TerminalInput(key: UInt8(ascii: "d")) == .toggleDirector)
        #expect(TerminalInput(key: 13) == .enter)
        #expect(TerminalInput(line: "") == .enter)
        #expect(TerminalInput(line: "camera host --zoom 2") == .camera(" host --zoom 2"))
        #expect(TerminalInput(line: "filter sepia x") == .refused("not a filter: filter intensity 'x' is not a number 0-100"))
        #expect(TerminalInput(line: "nonsense") == nil)
    }

    @Test func theDecoderGivesTheRigsCommand() throws {
        func decode(_ body: String) throws -> RigCommand { try Self.json(body).rigCommand(Self.context) }
        guard case .layout(let grid) = try decode(#"{"command":"layout","kind":"grid"}"#) else { Issue.record("not a layout"); return }
        #expect(grid.kind == .grid)
        guard case .layout(let pip) = try decode(#"{"command":"pip","position":"top-left","size":40}"#) else {
            Issue.record("not a layout"); return
        }
        #expect(pip.pip.position == .topLeft && pip.pip.size == .large)
        // A filter command leaving the intensity out keeps the one in force.
        guard case .filter(let f) = try decode(#"{"command":"filter","filter":"bw"}"#) else { Issue.record("not a filter"); return }
        #expect(f.kind == .blackAndWhite && f.intensity == 40)
        guard case .stop(let reason) = try decode(#"{"command":"stop"}"#) else { Issue.record("not a stop"); return }
        #expect(reason == "test")
        guard case .start(let plan) = try decode(#"{"command":"start","width":640,"height":360,"fps":25,"countdown":3}"#) else {
            Issue.record("not a start"); return
        }
        #expect(plan.width == 640 && plan.height == 360 && plan.rate == FrameRate(25, 1) && plan.countdownSeconds == 3)
        guard case .director(true) = try decode(#"{"command":"director","director":"auto"}"#) else { Issue.record("not auto"); return }
    }

    @Test func refusalsSayWhatToSend() throws {
        func refusal(_ body: String) -> CommandRequestError? {
            do {
                _ = try Self.json(body).rigCommand(Self.context)
                return nil
            } catch let error as CommandRequestError {
                return error
            } catch {
                Issue.record("\(error)")
                return nil
            }
        }
        #expect(refusal(#"{"command":"dance"}"#)?.description
            == "unknown command 'dance'; expected start, stop, layout, next-layout, swap, pip, framing, placement, filter, mix, director or live")
        #expect(refusal(#"{"command":"director","director":"sometimes"}"#)?.description.hasPrefix("director needs") == true)
        #expect(refusal(#"{"command":"director"}"#)?.description.hasPrefix("director needs") == true)
        #expect(refusal(#"{"command":"live"}"#)?.description.hasPrefix("live needs") == true)
        guard case .live(false) = try Self.json(#"{"command":"live","live":false}"#).rigCommand(Self.context) else {
            Issue.record("End live did not decode"); return
        }
        // Stop recording, stay live; a stop that says nothing of live ends both.
        guard case .stopRecording = try Self.json(#"{"command":"stop","live":true}"#).rigCommand(Self.context),
              case .stop = try Self.json(#"{"command":"stop","live":false}"#).rigCommand(Self.context) else {
            Issue.record("stop with live did not decode"); return
        }
        // Before a take, on a rig without --stream: refused saying what to give.
        #expect(throws: RigError.self) { try TakePlan(agents: [], outputDirectory: "", durationSeconds: nil).applying(.live(true), cameras: 2) }
        #expect(refusal(#"{"command":"layout"}"#)?.description.hasPrefix("layout needs") == true)
        #expect(refusal(#"{"command":"layout","layout":"diagonal"}"#)?.field == .layout)
        #expect(refusal(#"{"command":"filter"}"#)?.description.hasPrefix("filter needs") == true)
        #expect(refusal(#"{"command":"mix"}"#)?.description.hasPrefix("mix needs") == true)
        #expect(refusal(#"{"command":"mix","mix":"host=loud"}"#)?.field == .mix)
        #expect(refusal(#"{"command":"start","width":641}"#)?.description == "size 641x720 is not an even size from 160x120 to 3840x2160")
        #expect(refusal(#"{"command":"start","fps":0}"#)?.description == "fps 0 is outside 1…240")
        let terminal = CommandContext(plan: nil, layout: LayoutSpec(kind: .pip), filter: FilterSetting(kind: .none), stopReason: "Enter")
        #expect(throws: CommandRequestError.self) { try CommandRequest(.start).rigCommand(terminal) }
    }

    @Test func theTakePhasesOnTheWireAreOneWordEach() throws {
        #expect(TakePhase.allCases.map(\.rawValue)
            == ["idle", "syncing", "preparing", "countdown", "recording", "stopping", "finalising", "done", "cancelled", "failed"])
        #expect(TakePhase.syncing.words == "syncing clocks" && TakePhase.countdown.words == "counting down")
        #expect(String(decoding: try JSONEncoder().encode([TakePhase.countdown]), as: UTF8.self) == #"["countdown"]"#)
        #expect(TakeMachine.Phase.countingDown(t0: 1, stop: nil).kind == .countdown)
        #expect(AgentStatus.Connection.lost(sinceSeconds: 3).state.rawValue == "lost")
    }
}
