/// Lowers a preset's mode to what every node measured it can encode (`--preset auto`
/// refused the mode at a Prepare and named what fits there), as `CaptureModeFit` does for
/// what cameras deliver. Encode time grows with the picture and the rate, so a node that
/// fits a size at a rate also fits every smaller size at that rate or a lower one.
public enum EncodableFit {
    /// The largest standard mode no larger than `wanted` that every node's fits cover;
    /// the rate is lowered only when `lowersRate` and no size fits at the rate wanted.
    /// Nodes that never refused (an empty list) constrain nothing. nil: nothing fits.
    public static func fit(_ wanted: CaptureMode, nodes: [[CaptureMode]], lowersRate: Bool) -> CaptureMode? {
        let constraining = nodes.filter { !$0.isEmpty }
        guard !constraining.isEmpty else { return wanted }
        let sizes = [(wanted.width, wanted.height)]
            + CaptureModeFit.standardSizes.filter { $0.width * $0.height < wanted.width * wanted.height }
        let rates = [wanted.rate] + (lowersRate ? CaptureModeFit.standardRates.filter { $0.framesPerSecond < wanted.rate.framesPerSecond } : [])
        for rate in rates {
            for (width, height) in sizes {
                let mode = CaptureMode(width: width, height: height, rate: rate)
                if constraining.allSatisfy({ fits in fits.contains { covers($0, mode) } }) { return mode }
            }
        }
        return nil
    }

    static func covers(_ fit: CaptureMode, _ mode: CaptureMode) -> Bool {
        fit.width * fit.height >= mode.width * mode.height && fit.rate.framesPerSecond >= mode.rate.framesPerSecond
    }
}
