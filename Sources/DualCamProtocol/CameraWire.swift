import DualCamCore

/// Camera controls between the wire's messages and the agent's types.
public enum CameraWire {
    public static let maxResults = 72

    public static func change(_ request: Dualcam_V1_CameraRequest) -> CameraChange {
        var change = CameraChange()
        change.settings = request.set.map { .init(name: $0.name, value: $0.value) }
        if request.hasZoom {
            let z = request.zoom
            change.zoom = .init(factor: z.factor, centre: ZoomPoint(x: z.centreX, y: z.centreY) ?? .centre,
                                rampNanoseconds: Int64(z.rampMs) * 1_000_000)
        }
        change.lock = request.lock.compactMap(ControlLock.init(rawValue:))
        change.unlock = request.unlock.compactMap(ControlLock.init(rawValue:))
        switch request.lockDuringTakes {
        case .on: change.lockDuringTakes = true
        case .off: change.lockDuringTakes = false
        default: break
        }
        return change
    }

    public static func request(_ change: CameraChange, id: UInt64) -> Dualcam_V1_CameraRequest {
        var request = Dualcam_V1_CameraRequest()
        request.requestID = id
        request.set = change.settings.map { setting in
            var wire = Dualcam_V1_ControlSetting()
            wire.name = setting.name
            wire.value = setting.value
            return wire
        }
        if let zoom = change.zoom {
            var wire = Dualcam_V1_DigitalZoom()
            wire.factor = zoom.factor
            wire.centreX = zoom.centre.x
            wire.centreY = zoom.centre.y
            wire.rampMs = UInt32(clamping: zoom.rampNanoseconds / 1_000_000)
            request.zoom = wire
        }
        request.lock = change.lock.map(\.rawValue)
        request.unlock = change.unlock.map(\.rawValue)
        if let during = change.lockDuringTakes { request.lockDuringTakes = during ? .on : .off }
        return request
    }

    public static func state(_ report: CameraReport, requestID: UInt64) -> Dualcam_V1_CameraState {
        var state = Dualcam_V1_CameraState()
        state.requestID = requestID
        state.camera = WireSentences.fitted([report.camera])[0]
        state.controlsNote = WireSentences.fitted([report.note ?? ""])[0]
        state.controls = report.controls.prefix(256).map(control)
        state.results = report.outcomes.map { outcome in
            var wire = Dualcam_V1_ControlResult()
            wire.name = fit(outcome.name)
            wire.applied = outcome.applied
            wire.value = outcome.value ?? 0
            wire.hasValue_p = outcome.value != nil
            wire.problem = WireSentences.fitted([outcome.problem ?? ""])[0]
            return wire
        }
        let target = report.zoom
        var zoom = Dualcam_V1_DigitalZoom()
        zoom.factor = target.to
        zoom.centreX = target.toCentre.x
        zoom.centreY = target.toCentre.y
        state.zoom = zoom
        state.lockDuringTakes = report.lockDuringTakes
        state.locked = report.locked.map(\.rawValue)
        return state
    }

    /// Cut at a character boundary to the 64 bytes §10 allows a label or a name.
    static func fit(_ text: String) -> String {
        var bytes = 0
        return String(text.prefix { character in
            bytes += character.utf8.count
            return bytes <= 64
        })
    }

    static func control(_ c: CameraControl) -> Dualcam_V1_CameraControl {
        var wire = Dualcam_V1_CameraControl()
        wire.name = c.name
        wire.label = fit(c.label)
        wire.kind = c.kind.rawValue
        wire.minimum = min(c.minimum, c.maximum)
        wire.maximum = c.maximum
        wire.step = max(0, c.step)
        wire.defaultValue = c.defaultValue
        wire.readable = c.value != nil
        wire.value = c.value ?? 0
        wire.menu = c.menu.prefix(64).map { entry in
            var e = Dualcam_V1_ControlMenuEntry()
            e.index = entry.index
            e.name = fit(entry.name)
            return e
        }
        wire.flags = c.flags.rawValue
        return wire
    }

    /// The report a CameraState carries, for a coordinator to show or plan from.
    public static func report(_ state: Dualcam_V1_CameraState) -> CameraReport {
        var report = CameraReport(camera: state.camera, note: state.controlsNote.isEmpty ? nil : state.controlsNote)
        report.controls = state.controls.map { wire in
            CameraControl(name: wire.name, label: wire.label, kind: CameraControl.Kind(rawValue: wire.kind) ?? .integer,
                          minimum: wire.minimum, maximum: wire.maximum, step: wire.step, defaultValue: wire.defaultValue,
                          value: wire.readable ? wire.value : nil,
                          menu: wire.menu.map { .init(index: $0.index, name: $0.name) },
                          flags: CameraControl.Flags(rawValue: wire.flags))
        }
        report.outcomes = state.results.map {
            .init(name: $0.name, value: $0.applied && $0.hasValue_p ? $0.value : nil,
                  problem: $0.applied ? nil : ($0.problem.isEmpty ? "refused" : $0.problem))
        }
        if state.hasZoom, let centre = ZoomPoint(x: state.zoom.centreX, y: state.zoom.centreY) {
            report.zoom = .steady(state.zoom.factor, centre: centre)
        }
        report.lockDuringTakes = state.lockDuringTakes
        report.locked = state.locked.compactMap(ControlLock.init(rawValue:))
        return report
    }
}
