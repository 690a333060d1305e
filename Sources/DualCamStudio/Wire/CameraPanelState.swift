import DualCamCoordinator
import DualCamCore

/// One camera as its panel shows it (docs/STUDIO.md, "Camera panel"): the controls the
/// agent reported, with the values in effect after its answer (drivers round and clamp),
/// what became of each thing asked, the digital zoom and the locks. Made from the rig's
/// `CameraAnswer`, nothing added but what the core works out from the same controls
/// (which locks this camera can have).
struct CameraPanelState: Encodable, Sendable {
    struct Control: Encodable, Sendable {
        var name: String
        var label: String
        var kind: String
        var minimum: Int64
        var maximum: Int64
        var step: Int64
        var defaultValue: Int64
        /// nil when it cannot be read (a button, a write-only control).
        var value: Int64?
        var menu: [MenuEntry]
        var flags: [String]
        /// The automatic mode that makes it inactive now, when one does.
        var governedBy: String?
    }

    struct MenuEntry: Encodable, Sendable {
        var index: Int64
        var name: String
    }

    struct Outcome: Encodable, Sendable {
        var name: String
        var value: Int64?
        var problem: String?
    }

    struct Zoom: Encodable, Sendable {
        var factor: Double
        var centreX: Double
        var centreY: Double
    }

    struct Lock: Encodable, Sendable {
        var name: String
        var locked: Bool
        /// Why this camera has nothing to lock there; nil when it can be locked.
        var unavailable: String?
    }

    var index: Int
    var name: String
    var role: String
    /// The agent could not be asked, or did not answer.
    var problem: String?
    var camera: String?
    /// Why the source has no controls of its own (a pipe, the test pattern).
    var note: String?
    var controls: [Control] = []
    var outcomes: [Outcome] = []
    /// With a match: what could not be copied to this camera.
    var unmatched: [String] = []
    var zoom: Zoom?
    var locks: [Lock] = []
    var lockDuringTakes: Bool?

    /// A camera the rig could not ask (lost meanwhile, too old a protocol).
    init(index: Int, name: String, role: String, problem: String) {
        self.index = index
        self.name = name
        self.role = role
        self.problem = problem
    }

    init(_ answer: CameraAnswer) {
        index = answer.index
        name = answer.agent
        role = answer.role
        problem = answer.problem
        unmatched = answer.unmatched
        guard let report = answer.report else { return }
        camera = report.camera
        note = report.note
        controls = report.controls.map { c in
            Control(name: c.name, label: c.label, kind: c.kind.rawValue, minimum: c.minimum, maximum: c.maximum,
                    step: c.step, defaultValue: c.defaultValue, value: c.value,
                    menu: c.menu.map { MenuEntry(index: $0.index, name: $0.name) }, flags: c.flags.names,
                    governedBy: c.flags.contains(.inactive) ? ControlLock.governor(of: c.name, in: report.controls) : nil)
        }
        outcomes = report.outcomes.map { Outcome(name: $0.name, value: $0.value, problem: $0.problem) }
        zoom = Zoom(factor: report.zoom.to, centreX: report.zoom.toCentre.x, centreY: report.zoom.toCentre.y)
        locks = ControlLock.allCases.map { lock in
            let locked = report.locked.contains(lock)
            var unavailable: String?
            if !locked, case .failure(let why) = lock.plan(report.controls) { unavailable = why.description }
            return Lock(name: lock.rawValue, locked: locked, unavailable: unavailable)
        }
        lockDuringTakes = report.lockDuringTakes
    }
}

/// `GET /api/cameras`, the answer to `POST /api/cameras/N`, and `{"type":"cameras", …}`
/// on the WebSocket after any viewer changed a camera.
struct CameraPanelListing: Encodable, Sendable {
    var cameras: [CameraPanelState]
}
