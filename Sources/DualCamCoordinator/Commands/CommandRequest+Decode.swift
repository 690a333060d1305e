import DualCamCore
import DualCamMedia
import Foundation

/// What a command request is decoded against: the screen's view of the rig when the
/// command came.
public struct CommandContext: Sendable {
    /// What a start starts from (nil: this screen starts no take).
    public var plan: TakePlan?
    /// The layout a layout command changes: the take's while one is under way, else the
    /// one the next take starts with.
    public var layout: LayoutSpec
    /// The filter a `filter` command that leaves a field out keeps it from.
    public var filter: FilterSetting
    /// The take's reason when a stop ends it ("Enter", "stopped from the studio").
    public var stopReason: String

    public init(plan: TakePlan?, layout: LayoutSpec, filter: FilterSetting, stopReason: String) {
        self.plan = plan
        self.layout = layout
        self.filter = filter
        self.stopReason = stopReason
    }
}

extension CommandRequest {
    /// The one decoder from the wire form into a rig command: every field checked, a
    /// refusal saying what to send instead. Whether the rig can do it now is the rig's
    /// to say (`Rig.perform`).
    public func rigCommand(_ context: CommandContext) throws(CommandRequestError) -> RigCommand {
        switch command {
        case .start:
            guard let plan = context.plan else { throw CommandRequestError("this screen starts no take") }
            return .start(try startPlan(from: plan))
        case .stop:
            // `"live": true`: the recording stops, the stream goes on.
            return live == true ? .stopRecording(reason: context.stopReason) : .stop(reason: context.stopReason)
        case .nextLayout:
            return .nextLayout
        case .swap:
            return .swap
        case .placement:
            // The rig works out the step from the take's own size, and refuses with its reason.
            return .nextPlacement
        case .layout:
            if let kind {
                // A name alone, as the terminal's l: the options stay, the framing is the name's.
                return .layout(context.layout.switching(to: try Self.layoutValue { () throws(LayoutError) in try LayoutKind.parse(kind) }))
            }
            guard let layout else {
                throw CommandRequestError("layout needs \"layout\" (a spec such as pip:position=top-left) or \"kind\" (a name such as grid)")
            }
            return .layout(try Self.layoutValue { () throws(LayoutError) in try LayoutSpec(parsing: layout) })
        case .framing:
            var spec = context.layout
            let fit = try fit.map { f throws(CommandRequestError) in try Self.layoutValue { () throws(LayoutError) in try LayoutFit.parse(f) } }
            let anchor = try anchor.map { a throws(CommandRequestError) in try Self.layoutValue { () throws(LayoutError) in try CropAnchor.parse(a) } }
            spec = spec.framed(fit ?? spec.mainFit, anchor: anchor ?? spec.mainAnchor)
            return .layout(spec)
        case .pip:
            var spec = context.layout
            if let position {
                spec.pip.position = try Self.layoutValue { () throws(LayoutError) in try PiPPosition.parse(position) }
            }
            if let size {
                spec.pip.size = try Self.layoutValue { () throws(LayoutError) in try PiPSize(percent: size) }
            }
            return .layout(spec)
        case .filter:
            guard filter != nil || intensity != nil else {
                throw CommandRequestError("filter needs \"filter\" (a name such as vivid) or \"intensity\" (0…100)")
            }
            return .filter(try Self.checkedFilter(named: filter ?? context.filter.kind.rawValue,
                                                  intensity: intensity ?? context.filter.intensity))
        case .mix:
            guard let mix else {
                throw CommandRequestError("mix needs \"mix\": all, a role (host) or levels like host=0,guest=-6")
            }
            return .mix(try Self.checkedMix(mix))
        case .director:
            guard let director else { throw .directorNeedsMode }
            return .director(director == .auto)
        case .live:
            guard let live else { throw CommandRequestError("live needs \"live\": true (go live) or false (end live)") }
            return .live(live)
        }
    }

    /// The plan a start asks for: each field given replaces the plan's, checked.
    func startPlan(from base: TakePlan) throws(CommandRequestError) -> TakePlan {
        var next = base
        if width != nil || height != nil {
            let w = width ?? base.width, h = height ?? base.height
            guard (160...3840).contains(w), (120...2160).contains(h), w % 2 == 0, h % 2 == 0 else {
                throw CommandRequestError("size \(w)x\(h) is not an even size from 160x120 to 3840x2160")
            }
            next.width = w
            next.height = h
            next.fitsSizeToCameras = false
        }
        if let fps {
            guard (1...240).contains(fps) else { throw CommandRequestError("fps \(fps) is outside 1…240") }
            next.rate = FrameRate(Int64(fps), 1)
            next.fitsRateToCameras = false
        }
        if let encoder { next.encoder = encoder }
        if let preset { next.preset = preset }
        if let problem = VideoEncoderSettings.problem(encoder: next.encoder, preset: next.preset) {
            throw CommandRequestError(problem.replacingOccurrences(of: "--", with: ""))
        }
        if let countdown {
            guard (0...60).contains(countdown) else { throw CommandRequestError("countdown \(countdown) s is outside 0…60") }
            next.countdownSeconds = countdown
        }
        if filter != nil || intensity != nil {
            let now = FilterSetting(base.filter)
            next.filter = try Self.checkedFilter(named: filter ?? now.kind.rawValue, intensity: intensity ?? now.intensity)
        }
        if let mix { next.mix = try Self.checkedMix(mix) }
        if let durationSeconds {
            guard durationSeconds > 0, durationSeconds <= 24 * 3600 else {
                throw CommandRequestError("duration \(durationSeconds) s is outside 0…24 h")
            }
            next.durationSeconds = durationSeconds
        }
        return next
    }

    /// A filter a person named, refused unless it is one and the intensity 0…100.
    public static func checkedFilter(named name: String, intensity: Int) throws(CommandRequestError) -> Filter {
        do {
            return try FilterSetting(name: name, intensity: intensity).filter
        } catch {
            throw CommandRequestError(error.description, field: .filter)
        }
    }

    /// A sound mix as a person writes it (`all`, a role, `host=0,guest=-6`).
    static func checkedMix(_ text: String) throws(CommandRequestError) -> AudioMixSpec {
        do {
            return try AudioMixSpec(parsing: text)
        } catch {
            // The parser speaks of the command line's --mix; here it is the command's field.
            throw CommandRequestError("\(error)".replacingOccurrences(of: "--mix", with: "mix"), field: .mix, detail: "\(error)")
        }
    }

    private static func layoutValue<T>(_ parse: () throws(LayoutError) -> T) throws(CommandRequestError) -> T {
        do {
            return try parse()
        } catch {
            throw CommandRequestError("\(error)", field: .layout)
        }
    }
}
