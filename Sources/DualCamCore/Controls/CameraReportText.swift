/// A camera's report as a terminal shows it: what was applied or refused first, then one
/// line per control (name, value, range, flags), then the zoom and locks.
public enum CameraReportText {
    public static func lines(_ report: CameraReport, listControls: Bool = true) -> [String] {
        var lines: [String] = []
        for outcome in report.outcomes {
            if let problem = outcome.problem {
                lines.append("! \(outcome.name): \(problem)")
            } else {
                lines.append("  \(outcome.name)" + (outcome.value.map { " = \($0)" } ?? ": done"))
            }
        }
        lines.append(report.camera)
        if let note = report.note { lines.append("  \(note)") }
        if listControls {
            let width = min(32, report.controls.map(\.name.count).max() ?? 0)
            for control in report.controls {
                let padded = control.name + String(repeating: " ", count: max(0, width - control.name.count))
                let flags = control.flags.names
                lines.append("  \(padded)  \(control.valueText)  [\(control.kind.rawValue): \(control.rangeText), default \(control.defaultValue)]"
                    + (flags.isEmpty ? "" : " (\(flags.joined(separator: ", ")))"))
            }
        }
        let locks = report.locked.map(\.rawValue)
        let locked = locks.isEmpty ? "nothing" : locks.joined(separator: ", ")
        let during = report.lockDuringTakes ? "on" : "off"
        lines.append("  digital zoom \(report.zoom); locked: \(locked); lock during takes: \(during)")
        return lines
    }
}
