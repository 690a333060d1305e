import DualCamCore
import DualCamMedia

/// The live composite's x264 preset, said at the start (issue 19). The coordinator
/// decodes every camera and encodes the composite in real time on the laptop beside
/// everything else. With `auto` (the default) it measures what this machine sustains
/// before the take (`CompositeProbe`) and steps during it (`CompositeSteering`); until a
/// measurement is there (a resumed take, or one that failed), it is x264's fastest, which
/// keeps real time with 2, 4 and 8 cameras on the project's 2-core machine
/// (docs/MEASUREMENTS.md). `recompose` renders a finer one after the take.
public struct CompositePreset: Sendable, Equatable {
    public var preset: String
    /// Why, in words, for the start's pre-flight lines and the logs.
    public var reason: String

    /// Whether the plan leaves the composite's preset to a measurement.
    static func isAutomatic(_ plan: TakePlan) -> Bool {
        plan.compositePreset == nil || plan.compositePreset == VideoEncoderSettings.automaticPreset
    }

    /// The preset `plan.compositePreset` names; else the measured one; else the one that
    /// keeps real time unmeasured.
    static func choose(plan: TakePlan, cameras: Int, measured: CompositeMeasurement? = nil) -> CompositePreset {
        if !isAutomatic(plan), let asked = plan.compositePreset {
            return CompositePreset(preset: asked, reason: "as asked")
        }
        if let measured {
            return CompositePreset(preset: measured.preset, reason: "auto, \(measured.speedText); \(measured.details)"
                                   + (measured.streamsText.map { "; " + $0 } ?? ""))
        }
        return automatic(cameras: cameras, width: plan.width, height: plan.height, rate: plan.rate)
    }

    /// x264's fastest preset, without a measurement: every camera more is another decoder
    /// on the same cores, and even two cameras at 720p need it on a 2-core machine.
    static func automatic(cameras: Int, width: Int, height: Int, rate: FrameRate) -> CompositePreset {
        let pixels = Double(width * height) * rate.framesPerSecond
        let decoded = pixels * Double(max(cameras, 1))
        return CompositePreset(preset: "ultrafast",
                               reason: String(format: "not measured: %d camera%@ decoded (%.0f Mpixel/s) and the composite encoded (%.0f Mpixel/s) in real time on this machine",
                                              cameras, cameras == 1 ? "" : "s", decoded / 1e6, pixels / 1e6))
    }
}
