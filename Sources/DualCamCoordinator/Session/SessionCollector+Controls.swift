import DualCamNet
import DualCamCore
import Foundation

extension SessionCollector {
    /// Changes the composite from the next output frame on; the change goes into the
    /// layout timeline (and the manifest), and becomes the default for the next session.
    func apply(_ control: LiveControl) {
        var spec = layout
        switch control {
        case .nextLayout:
            let kinds = LayoutKind.allCases
            spec.kind = kinds[(kinds.firstIndex(of: spec.kind)! + 1) % kinds.count]
        case .swap:
            spec.pip.swapped.toggle()
        case .nextPiPPosition:
            let positions = PiPPosition.allCases
            spec.pip.position = positions[(positions.firstIndex(of: spec.pip.position)! + 1) % positions.count]
        case .layout(let text):
            do {
                spec = try LayoutSpec(parsing: text)
            } catch {
                status.note("not a layout: \(error)")
                return
            }
        }
        let now = min(MonotonicTime.now(), stopShared ?? .max) - t0
        let at = plan.rate.instant(ofFrame: plan.rate.firstFrame(atOrAfter: max(0, now)))
        outputs.changeLayout(at: at, to: spec)
        layout = spec
        status.note(String(format: "layout from %.2f s: %@", Double(at) / 1e9, spec.description))
        do {
            try CoordinatorPreferences.saveLayout(spec)
        } catch {
            status.note("cannot keep the layout for next time: \(error)")
        }
    }
}

/// The coordinator's remembered choices (`$XDG_CONFIG_HOME/dualcam/coordinator.conf`,
/// `key = value` lines): the layout last chosen while recording is the next default.
public enum CoordinatorPreferences {
    public static var path: String {
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() + "/.config")
        return base + "/dualcam/coordinator.conf"
    }

    public static func values() -> [String: String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
        var out: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            out[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        return out
    }

    /// The remembered layout, if any and still readable.
    public static func layout() -> LayoutSpec? {
        values()["layout"].flatMap { try? LayoutSpec(parsing: $0) }
    }

    static func saveLayout(_ spec: LayoutSpec) throws {
        var all = values()
        all["layout"] = spec.description
        let text = "# written by dualcam-coordinator: the choices last made while recording\n"
            + all.keys.sorted().map { "\($0) = \(all[$0]!)\n" }.joined()
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}

extension SessionCollector {
    /// Starts following agent `i` on a fresh connection, or reconnecting when there is none.
    func attach(_ i: Int, link: AgentLink?) async {
        guard let link else {
            agents[i].phase = .lost(since: MonotonicTime.now())
            status.note("\(agents[i].name) does not answer yet; trying again every few seconds")
            startReconnecting(i)
            return
        }
        agents[i].link = link
        agents[i].generation = link.generation
        agents[i].phase = .handshaking
        agents[i].lastHeard = MonotonicTime.now()
        try? await link.writer.send(.hello(SessionRecorder.hello()))
    }
}
