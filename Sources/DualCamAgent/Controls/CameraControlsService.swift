import DualCamCore
import DualCamMedia
import Foundation
import Glibc
import Logging
import NIOConcurrencyHelpers

/// The camera's controls for the agent: lists them, applies a change (values, locks,
/// digital zoom), keeps what was set in the state folder and puts it back when the
/// camera is opened again. Nothing here can stop a recording: a value the driver refuses
/// becomes a sentence in the report, never an error thrown at a take. One change at a
/// time (a lock around each), whichever connection asks.
public final class CameraControlsService: @unchecked Sendable {
    // Invariant: `contents` is read and written only while `lock` is held; the rest is
    // immutable after init.
    private let lock = NSLock()
    private var contents: ControlStore.Contents
    private let source: SourceConfig
    private let store: ControlStore
    private let zoom: DigitalZoom
    private let now: @Sendable () -> Int64
    private let logger: Logger
    /// What a take locked by itself (lock during takes), released when it ends.
    private var lockedForTake: [ControlLock] = []

    /// The agent's service, once it has one: sources reach it when they open a camera.
    static let current = NIOLockedValueBox<CameraControlsService?>(nil)

    public init(source: SourceConfig, stateDirectory: String, now: @escaping @Sendable () -> Int64, logger: Logger) {
        self.source = source
        self.store = ControlStore(stateDirectory: stateDirectory)
        self.zoom = .shared
        self.now = now
        self.logger = logger
        let (loaded, problem) = store.load()
        contents = loaded
        if let problem { logger.warning("\(problem)") }
    }

    /// Makes this the agent's service and puts back the saved digital zoom.
    public func install() {
        Self.current.withLockedValue { $0 = self }
        let key = lock.withLock { cameraKey(nil) }
        if let saved = lock.withLock({ contents.cameras[key]?.zoom }), let centre = ZoomPoint(x: saved.x, y: saved.y),
           ZoomRamp.problem(factor: saved.factor, rampSeconds: 0) == nil {
            zoom.set(factor: saved.factor, centre: centre, rampNanoseconds: 0, now: now())
        }
    }

    public func handle(_ change: CameraChange) -> CameraReport {
        lock.lock()
        defer { lock.unlock() }
        var report = CameraReport(camera: source.description)
        var panel: (controls: V4L2Controls, key: String)?
        switch source {
        case .v4l2(let device, _):
            do {
                let controls = try V4L2Controls(path: device)
                panel = (controls, cameraKey(controls))
                report.camera = "v4l2 \(device) (\((try? controls.identity().card) ?? "camera"))"
            } catch {
                report.note = "the camera's controls cannot be read: \(error)"
            }
        case .stdin:
            report.note = "a pipe's picture is made by its producer (e.g. rpicam-vid): set exposure, focus and white balance there (rpicam-vid --shutter, --gain, --awb, --lens-position); digital zoom works here"
        case .synthetic:
            report.note = "the synthetic test pattern has no camera controls; digital zoom works"
        }
        let key = panel?.key ?? cameraKey(nil)
        var saved = contents.cameras[key] ?? ControlStore.Camera()
        if let (controls, _) = panel {
            var listing = (try? controls.list()) ?? []
            let ordered = change.settings.filter { ControlLock.isAutomaticMode($0.name) }
                + change.settings.filter { !ControlLock.isAutomaticMode($0.name) }
            for setting in ordered {
                report.outcomes.append(set(setting, on: controls, listing: &listing, saved: &saved))
            }
            for wanted in change.lock { report.outcomes.append(engage(wanted, on: controls, listing: &listing, saved: &saved)) }
            for wanted in change.unlock { report.outcomes.append(release(wanted, on: controls, listing: &listing, saved: &saved)) }
        } else {
            let why = report.note ?? "this source has no controls"
            for setting in change.settings { report.outcomes.append(.init(name: setting.name, problem: why)) }
            for wanted in change.lock + change.unlock { report.outcomes.append(.init(name: "lock \(wanted.rawValue)", problem: why)) }
        }
        if let wanted = change.zoom { report.outcomes.append(applyZoom(wanted, saved: &saved)) }
        if let during = change.lockDuringTakes { contents.lockDuringTakes = during }
        contents.cameras[key] = saved
        if !change.settings.isEmpty || !change.lock.isEmpty || !change.unlock.isEmpty || change.zoom != nil
            || change.lockDuringTakes != nil {
            do {
                try store.save(contents)
            } catch {
                logger.warning("camera settings not saved (they apply now, but not after a restart): \(error)")
            }
        }
        if let (controls, _) = panel { report.controls = (try? controls.list()) ?? [] }
        report.zoom = zoom.current
        report.lockDuringTakes = contents.lockDuringTakes
        report.locked = saved.locked.compactMap(ControlLock.init(rawValue:))
        return report
    }

    /// A camera was opened (a take, the preview, after a replug): what was set goes back.
    func reapply(device: String) {
        lock.lock()
        defer { lock.unlock() }
        guard let controls = try? V4L2Controls(path: device) else { return }
        let key = cameraKey(controls)
        guard let saved = contents.cameras[key], !saved.settings.isEmpty else { return }
        var failed: [String] = []
        for setting in saved.settings {
            do {
                try controls.set(setting.name, to: setting.value)
            } catch {
                failed.append("\(setting.name)=\(setting.value): \(error)")
            }
        }
        logger.info("camera settings put back on \(device): \(saved.settings.count - failed.count) of \(saved.settings.count)")
        for failure in failed { logger.warning("camera setting not put back: \(failure)") }
    }

    /// A take starts recording: with lock during takes, exposure, focus and white balance
    /// are pinned where the automatic modes have them (those not locked already).
    func takeStarted() {
        let wanted = lock.withLock { contents.lockDuringTakes }
        guard wanted, case .v4l2 = source else { return }
        let already = Set(handle(CameraChange()).locked)
        var change = CameraChange()
        change.lock = ControlLock.allCases.filter { !already.contains($0) }
        let report = handle(change)
        lock.withLock { lockedForTake = change.lock.filter { lock in report.locked.contains(lock) } }
        for outcome in report.outcomes where !outcome.applied { logger.notice("lock at the take's start: \(outcome.problem ?? "")") }
    }

    /// The take has ended: what it locked is let go.
    func takeEnded() {
        let locked = lock.withLock { () -> [ControlLock] in
            defer { lockedForTake = [] }
            return lockedForTake
        }
        guard !locked.isEmpty else { return }
        var change = CameraChange()
        change.unlock = locked
        _ = handle(change)
    }

    private func cameraKey(_ controls: V4L2Controls?) -> String {
        switch source {
        case .v4l2(let device, _):
            guard let identity = try? controls?.identity() else { return "v4l2 \(device)" }
            return "v4l2 \(identity.card) at \(identity.bus)"
        case .stdin: return "pipe"
        case .synthetic: return "synthetic"
        }
    }
}

extension CameraControlsService {
    private func set(_ setting: CameraChange.Setting, on controls: V4L2Controls, listing: inout [CameraControl],
                     saved: inout ControlStore.Camera) -> CameraReport.Outcome {
        guard let control = listing.first(where: { $0.name == setting.name }) else {
            return .init(name: setting.name, problem: ControlValueCheck.unknown(setting.name, among: listing))
        }
        guard let value = ControlValueCheck.parse(setting.value, for: control) else {
            return .init(name: setting.name, problem: "\(setting.name): \(WireText.shown(setting.value)) is not a value it takes: \(control.rangeText)")
        }
        let governor = ControlLock.governor(of: control.name, in: listing)
        let hint = governor.map { "turn \($0) off first (\($0)=\($0 == "auto_exposure" ? "manual_mode" : "0")), or lock it" }
        if let problem = ControlValueCheck.problem(value, for: control, inactiveBecause: hint) {
            return .init(name: setting.name, problem: problem)
        }
        return write(control.name, value, on: controls, listing: &listing, saved: &saved)
    }

    /// Sets a value the checks passed, reads back what the driver made of it, remembers it.
    private func write(_ name: String, _ value: Int64, on controls: V4L2Controls, listing: inout [CameraControl],
                       saved: inout ControlStore.Camera) -> CameraReport.Outcome {
        do {
            let effect = try controls.set(name, to: value)
            if listing.first(where: { $0.name == name })?.kind != .button { saved.remember(name, effect ?? value) }
            // An automatic mode switched changes which others are active.
            listing = (try? controls.list()) ?? listing
            return .init(name: name, value: effect)
        } catch let error as V4L2Error {
            return .init(name: name, problem: Self.explain(error, name: name, value: value,
                                                          control: listing.first { $0.name == name }))
        } catch {
            return .init(name: name, problem: "\(name): \(error)")
        }
    }

    static func explain(_ error: V4L2Error, name: String, value: Int64, control: CameraControl?) -> String {
        switch error.code {
        case EBUSY:
            return "the driver refuses to change \(name) while the camera streams (EBUSY); set it between takes (the recording goes on)"
        case EACCES:
            return "\(name) cannot be changed now (the driver says it is read-only or inactive); the recording goes on"
        case ERANGE, EINVAL:
            return "the driver refused \(name)=\(value)" + (control.map { ": \($0.rangeText)" } ?? "")
        default:
            return "\(name)=\(value) failed: \(error); the recording goes on"
        }
    }

    private func engage(_ wanted: ControlLock, on controls: V4L2Controls, listing: inout [CameraControl],
                        saved: inout ControlStore.Camera) -> CameraReport.Outcome {
        let name = "lock \(wanted.rawValue)"
        switch wanted.plan(listing) {
        case .failure(let problem):
            return .init(name: name, problem: problem.description)
        case .success(let plan):
            for step in plan.steps {
                let outcome = write(step.name, step.value, on: controls, listing: &listing, saved: &saved)
                if let problem = outcome.problem { return .init(name: name, problem: "\(wanted.words) not locked: \(problem)") }
            }
            for (mode, value) in plan.previous where saved.beforeLock[mode] == nil { saved.beforeLock[mode] = value }
            if !saved.locked.contains(wanted.rawValue) { saved.locked.append(wanted.rawValue) }
            return .init(name: name)
        }
    }

    private func release(_ wanted: ControlLock, on controls: V4L2Controls, listing: inout [CameraControl],
                         saved: inout ControlStore.Camera) -> CameraReport.Outcome {
        let name = "unlock \(wanted.rawValue)"
        let steps = wanted.release(listing, previous: saved.beforeLock)
        guard !steps.isEmpty else {
            return .init(name: name, problem: "this camera has no automatic \(wanted.words) to switch back on")
        }
        saved.forget(wanted.pinnedNames)
        for step in steps {
            let outcome = write(step.name, step.value, on: controls, listing: &listing, saved: &saved)
            if let problem = outcome.problem { return .init(name: name, problem: "\(wanted.words) still locked: \(problem)") }
            saved.beforeLock[step.name] = nil
        }
        saved.locked.removeAll { $0 == wanted.rawValue }
        return .init(name: name)
    }

    private func applyZoom(_ wanted: CameraChange.Zoom, saved: inout ControlStore.Camera) -> CameraReport.Outcome {
        if let problem = ZoomRamp.problem(factor: wanted.factor, rampSeconds: Double(wanted.rampNanoseconds) / 1e9) {
            return .init(name: "zoom", problem: problem)
        }
        if case .v4l2(_, let format) = source, format?.uppercased() == "H264" {
            return .init(name: "zoom", problem: "digital zoom needs pictures; this camera is set to send H.264, recorded as it comes (choose a raw or MJPEG --pixel-format to zoom)")
        }
        zoom.set(factor: wanted.factor, centre: wanted.centre, rampNanoseconds: wanted.rampNanoseconds, now: now())
        saved.zoom = .init(factor: wanted.factor, x: wanted.centre.x, y: wanted.centre.y)
        return .init(name: "zoom")
    }
}

/// A value typed by someone, shown back to them bounded and printable.
enum WireText {
    static func shown(_ text: String) -> String {
        let printable = String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }.prefix(40).map(Character.init))
        return "'\(printable)'"
    }
}
