/// What a start does when a node refuses its Prepare as too slow (`--preset auto` measured
/// that even the fastest preset cannot keep real time there) and says what it can encode:
/// within the same start, not the next take.
public enum EncodableRefit: Sendable, Equatable {
    /// The size and rate came from a quality preset: every node prepares again at `mode`,
    /// the largest every node measured it can encode.
    case prepareAgain(CaptureMode)
    /// The operator chose the size or rate, or nothing smaller fits: the take fails with
    /// this sentence, naming what fits and what to pass.
    case refuse(String)

    /// `nodes`: each node of the take by name, with the modes it measured to fit (empty for
    /// a node that never refused). `fitsSize`/`fitsRate`: the plan's size and rate may be
    /// lowered (they came from a preset, not from `--size`/`--fps`).
    public static func decide(_ wanted: CaptureMode, nodes: [(name: String, fits: [CaptureMode])],
                              fitsSize: Bool, fitsRate: Bool) -> EncodableRefit {
        let slow = nodes.filter { !$0.fits.isEmpty }
        let who = slow.map(\.name).joined(separator: ", ")
        let measured = slow.map { node in
            "\(node.name) measured it fits " + node.fits.prefix(3).map(\.description).joined(separator: " or ")
        }.joined(separator: "; ")
        let best = EncodableFit.fit(wanted, nodes: nodes.map(\.fits), lowersRate: true)
        if fitsSize, let mode = EncodableFit.fit(wanted, nodes: nodes.map(\.fits), lowersRate: fitsRate), mode != wanted {
            return .prepareAgain(mode)
        }
        var text = "\(who) cannot encode \(wanted) in real time (\(measured))"
        guard let best, best != wanted else {
            return .refuse(text + "; nothing down to 640x360 fits every node: use faster nodes or the hardware encoder")
        }
        var pass: [String] = []
        if best.width != wanted.width || best.height != wanted.height { pass.append("--size \(best.width)x\(best.height)") }
        if best.rate != wanted.rate { pass.append("--fps \(best.rate.decimalText)") }
        text += "; pass \(pass.joined(separator: " ")) to record at \(best)"
        if !fitsSize { text += ", or leave the size and rate to the quality preset (--preset), which fits them to every node" }
        return .refuse(text)
    }
}
