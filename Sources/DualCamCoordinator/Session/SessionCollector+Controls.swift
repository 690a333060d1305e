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
    }
}
