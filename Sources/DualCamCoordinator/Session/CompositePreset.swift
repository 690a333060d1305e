import DualCamCore

/// The live composite's x264 preset, chosen in the open and said at the start (issue 19).
/// The coordinator decodes every camera and encodes the composite in real time on the
/// laptop beside everything else; the composite's encode is the part that grows with the
/// output's size, and the decoding the part that grows with the cameras. Measured on the
/// project's 2-core machine: at veryfast the demo's 720p composite of two cameras fell
/// 50 s behind over 10 minutes, at ultrafast it keeps real time with 2, 4 and 8 cameras
/// (docs/MEASUREMENTS.md). `recompose` renders a finer one after the take. A measured
/// choice (issue 19's `auto`) takes the place of `automatic` here.
public struct CompositePreset: Sendable, Equatable {
    public var preset: String
    /// Why, in words, for the start's pre-flight lines and the logs.
    public var reason: String

    /// The preset `plan.compositePreset` names, or else the one that keeps real time for
    /// `cameras` cameras at the plan's size and rate.
    public static func choose(plan: SessionPlan, cameras: Int) -> CompositePreset {
        if let asked = plan.compositePreset {
            return CompositePreset(preset: asked, reason: "as asked")
        }
        return automatic(cameras: cameras, width: plan.width, height: plan.height, rate: plan.rate)
    }

    /// x264's fastest preset: every camera more is another decoder on the same cores, and
    /// even two cameras at 720p need it here. A lighter load could afford a slower preset
    /// (the table of presets per core in docs/MEASUREMENTS.md), but nothing measures the
    /// laptop's spare CPU yet, so none is promised.
    static func automatic(cameras: Int, width: Int, height: Int, rate: FrameRate) -> CompositePreset {
        let pixels = Double(width * height) * rate.framesPerSecond
        let decoded = pixels * Double(max(cameras, 1))
        return CompositePreset(preset: "ultrafast",
                               reason: String(format: "%d camera%@ decoded (%.0f Mpixel/s) and the composite encoded (%.0f Mpixel/s) in real time on this machine",
                                              cameras, cameras == 1 ? "" : "s", decoded / 1e6, pixels / 1e6))
    }
}
