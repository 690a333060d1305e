import DualCamCoordinator
import DualCamCore
import Foundation

/// The state the page shows, as docs/STUDIO.md writes it: the rig's snapshot, the plan
/// the next take starts with, and the composite's geometry from the core's own layout
/// code, so the page draws the layout exactly as the recorder will.
struct StudioState: Encodable {
    var csrf: String
    var busy: Bool
    var agents: [Agent]
    var take: Take?
    var layout: Layout
    /// The combined file's filter now: the take's while it records, else the plan's.
    var look: Look
    var options: Options
    var plan: Plan

    struct Agent: Encodable {
        var index: Int
        var name: String
        var role: String
        var camera: String
        var connection: AgentStatus.Connection.State
        var lostForSeconds: Double?
        /// Connected, but its camera cannot record: why, and what to do. A take records
        /// without it, so the page shows it NOT READY and asks before recording.
        var notReady: String?
        var clock: Clock?
        var telemetry: Telemetry?
        var uploadLagSeconds: Double?
        var preview: Preview?
    }

    struct Clock: Encodable {
        var locked: Bool
        var errorBoundMicroseconds: Int64
        var offsetMilliseconds: Double
        var roundTripMicroseconds: Int64
    }

    struct Telemetry: Encodable {
        var captureFPS: Double
        var framesDropped: UInt64
        var temperatureC: Double?
        var throttled: Bool
        var freeDiskBytes: UInt64
        var diskSecondsLeft: Double?
        var sound: Sound?
        /// The encoder preset in effect (`auto` chooses it per node), "" when unknown.
        var preset: String
        /// Set while even the fastest preset cannot keep up: the node is dropping frames.
        var encoderShortfall: String?
    }

    struct Sound: Encodable {
        var peakDBFS: Double
        var rmsDBFS: Double
        var clipping: Bool
    }

    struct Preview: Encodable {
        var width: Int
        var height: Int
        var fps: Int
        var codec: String
    }

    struct Take: Encodable {
        var sessionID: String?
        /// Its raw value is the page's one word (docs/STUDIO.md).
        var phase: TakePhase
        var isOver: Bool
        var countdownSeconds: Int?
        var elapsedSeconds: Double
        var finalising: Progress?
        var layout: String
        var warnings: [String]
        /// The pre-flight lines the rig said as the countdown started (`TakeStatus`).
        var preflight: [String]
        var reason: String?
        var files: Files?
        /// In a take cut by the director.
        var director: Director?
        /// The cameras' phase in the combined picture (camera timing, not clock error),
        /// from its first frames on: the core's figures as they are, in nanoseconds, its
        /// streams being the take's cameras in `phaseCameras`' order (agent indices).
        var framePhase: DualCamCore.FramePhase?
        var phaseCameras: [Int]
        /// The programme's live streams (`--stream`): each destination (key masked), its
        /// state (connecting, live, retrying, ended), kbit/s, frames not sent, reconnects,
        /// seconds live. Empty when the take does not stream.
        var liveOut: [LiveStreamStatus]
        /// Live without recording: nothing of it is kept unless Record is pressed.
        var liveOnly: Bool
    }

    struct Director: Encodable {
        /// True while the director has the programme; false while the operator has it.
        var following: Bool
        /// The cameras (agent indices) whose person is speaking, as the director hears
        /// the composed sound (a segment or two behind the preview).
        var speaking: [Int]
        /// The cameras (agent indices) of the director's shot now.
        var shot: [Int]?
        var cuts: Int
    }

    struct Progress: Encodable {
        var done: Int
        var total: Int
    }

    struct Files: Encodable {
        var folder: String
        var cameras: [File]
        var combined: File
        var manifest: File
        var sound: [File]
    }

    struct File: Encodable {
        var name: String
        var url: String
    }

    struct Layout: Encodable {
        var spec: String
        var kind: String
        var position: String
        var size: Int
        var swapped: Bool
        /// How the main pictures meet their slots, chosen or the kind's own.
        var fit: String
        var anchor: String
        var width: Int
        var height: Int
        var slots: [Slot]
        var borderColor: String
        /// Insets cast the compositor's soft shadow.
        var shadow: Bool
    }

    struct Look: Encodable {
        var filter: String
        var intensity: Int
        var mix: String
    }

    struct Slot: Encodable {
        var camera: Int
        var x: Int
        var y: Int
        var width: Int
        var height: Int
        var inset: Bool
        var border: Int
        var radius: Int
        /// fill (cover the slot, cropped by `anchor`) or fit (whole, centred, with bars).
        var fit: String
        var anchor: String
    }

    struct Options: Encodable {
        var layouts = LayoutKind.allCases.map(\.rawValue)
        var positions = PiPPosition.allCases.map(\.rawValue)
        var fits = LayoutFit.allCases.map(\.rawValue)
        var anchors = CropAnchor.allCases.map(\.rawValue)
        var sizes = PiPSize.allCases.map(\.rawValue)
        var filters = FilterKind.allCases.map(\.rawValue)
        var presets = StudioPlan.presets
        var encoders = StudioPlan.encoders
        var rates = [24, 25, 30, 50, 60]
        var sizesWxH = ["640x360", "1280x720", "1920x1080"]
    }

    struct Plan: Encodable {
        var width: Int
        var height: Int
        var fps: Int
        var preset: String
        var encoder: String
        var countdown: Int
        var filter: String
        var intensity: Int
        var mix: String
        var durationSeconds: Double?
        /// How many destinations the rig streams to (`--stream`): Go live is offered with one or more.
        var streams: Int
        /// Whether the next take goes live as it starts.
        var goesLive: Bool
    }
}

extension StudioState {
    init(snapshot: RigSnapshot, plan: StudioPlan, csrf: String, codec: (Int) -> String?, preview: PreviewHub.Settings) {
        self.csrf = csrf
        busy = snapshot.busy
        agents = snapshot.agents.enumerated().map { i, a in
            Self.agent(i, a, preview: codec(i).map { Preview(width: preview.width, height: preview.height, fps: preview.fps, codec: $0) },
                       bitrate: plan.estimatedBitsPerSecond)
        }
        take = snapshot.take.map { Self.take($0) }
        self.plan = Plan(width: plan.width, height: plan.height, fps: plan.fps, preset: plan.preset, encoder: plan.encoder,
                         countdown: plan.countdown, filter: plan.filter, intensity: plan.intensity, mix: plan.mix,
                         durationSeconds: plan.durationSeconds, streams: plan.base.streams.count, goesLive: plan.base.goesLive)
        options = Options()
        // During a take: its own layout, size and cameras; before one: what it will start with.
        let live = snapshot.take.flatMap { $0.isOver ? nil : $0 }
        // The director's shot while it has the programme: the preview shows what is recorded.
        let spec = live.flatMap { take in
            try? LayoutSpec(parsing: take.director.flatMap { $0.following ? $0.programme : nil } ?? take.layout)
        } ?? plan.layout
        // A NOT READY node is connected but left out of the take: not drawn in its layout.
        let cameras = live?.cameras ?? snapshot.agents.indices.filter {
            snapshot.agents[$0].connection == .connected && snapshot.agents[$0].sourceProblem == nil
        }
        let width = live.map(\.outputWidth) ?? plan.width
        let height = live.map(\.outputHeight) ?? plan.height
        layout = Self.layout(spec, cameras: cameras, width: max(width, 2), height: max(height, 2))
        look = live.map { Look(filter: $0.filter.kind.rawValue, intensity: $0.filter.intensity, mix: $0.mix.description) }
            ?? Look(filter: plan.filter, intensity: plan.intensity, mix: plan.mix)
    }

    private static func agent(_ index: Int, _ a: AgentStatus, preview: Preview?, bitrate: Double) -> Agent {
        var lost: Double?
        if case .lost(let since) = a.connection { lost = since }
        let telemetry = a.telemetry.map { t in
            Telemetry(captureFPS: t.captureFPS, framesDropped: t.framesDropped, temperatureC: t.temperatureC,
                      throttled: t.throttled, freeDiskBytes: t.freeDiskBytes,
                      diskSecondsLeft: bitrate > 0 ? Double(t.freeDiskBytes) * 8 / bitrate : nil,
                      sound: t.sound.map { Sound(peakDBFS: $0.peakDBFS, rmsDBFS: $0.rmsDBFS, clipping: $0.clipping) },
                      preset: t.preset, encoderShortfall: t.encoderShortfall)
        }
        return Agent(index: index, name: a.name, role: a.role, camera: a.cameraName, connection: a.connection.state,
                     lostForSeconds: lost, notReady: a.connection == .connected ? a.sourceProblem : nil,
                     clock: a.clock.map { Clock(locked: $0.locked, errorBoundMicroseconds: $0.errorBoundMicroseconds,
                                                offsetMilliseconds: $0.offsetMilliseconds,
                                                roundTripMicroseconds: $0.roundTripMicroseconds) },
                     telemetry: telemetry, uploadLagSeconds: a.uploadLagSeconds, preview: preview)
    }

    private static func take(_ t: TakeStatus) -> Take {
        var files: Files?
        if let r = t.files {
            let session = URL(fileURLWithPath: r.sessionDirectory).lastPathComponent
            func file(_ path: String) -> File {
                let name = URL(fileURLWithPath: path).lastPathComponent
                return File(name: name, url: "/files/\(session)/\(name)")
            }
            files = Files(folder: r.sessionDirectory, cameras: r.perCameraFiles.map(file), combined: file(r.combinedFile),
                          manifest: file(r.manifestFile), sound: r.soundFiles.map(file))
        }
        return Take(sessionID: t.sessionID, phase: t.phase, isOver: t.isOver, countdownSeconds: t.countdownSeconds,
                    elapsedSeconds: t.elapsedSeconds, finalising: t.finalising.map { Progress(done: $0.done, total: $0.total) },
                    layout: t.layout, warnings: t.warnings, preflight: t.preflight, reason: t.reason, files: files,
                    director: t.director.map { d in
                        Director(following: d.following,
                                 speaking: d.speaking.indices.filter { d.speaking[$0] && $0 < t.cameras.count }.map { t.cameras[$0] },
                                 shot: d.shot.map { $0.filter { $0 < t.cameras.count }.map { t.cameras[$0] } }, cuts: d.cuts)
                    },
                    framePhase: t.framePhase, phaseCameras: t.cameras, liveOut: t.liveOut, liveOnly: t.liveOnly)
    }

    static func layout(_ spec: LayoutSpec, cameras: [Int], width: Int, height: Int) -> Layout {
        let slots = LayoutGeometry.slots(for: spec, outputWidth: width, outputHeight: height, streamCount: cameras.count)
        let c = spec.pip.borderColor
        // Limited-range Y'CbCr (BT.709) to sRGB, for the page's border colour.
        let y = (Double(c.y) - 16) / 219, cb = (Double(c.cb) - 128) / 224, cr = (Double(c.cr) - 128) / 224
        let rgb = [y + 1.5748 * cr, y - 0.1873 * cb - 0.4681 * cr, y + 1.8556 * cb]
            .map { Int((min(max($0, 0), 1) * 255).rounded()) }
        return Layout(spec: spec.description, kind: spec.kind.rawValue, position: spec.pip.position.rawValue,
                      size: spec.pip.sizePercent, swapped: spec.pip.swapped, fit: spec.mainFit.rawValue,
                      anchor: spec.mainAnchor.rawValue, width: width, height: height,
                      slots: slots.map { s in
                          Slot(camera: cameras[s.stream], x: s.rect.x, y: s.rect.y, width: s.rect.width, height: s.rect.height,
                               inset: s.isInset, border: s.isInset ? spec.pip.borderWidth : 0,
                               radius: s.isInset ? spec.pip.cornerRadius : 0, fit: s.fit.rawValue, anchor: s.anchor.rawValue)
                      },
                      borderColor: String(format: "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]), shadow: spec.pip.shadow)
    }
}
