import DualCamCore
import DualCamMedia

/// The largest picture and fastest rate this node's source delivers, told to the
/// coordinator in the HelloAck so that its presets ask no camera for more than it has.
enum SourceLimits {
    /// Drawn at any size; 4K60 is the most the product records.
    static let synthetic = CameraLimits(maxWidth: 3840, maxHeight: 2160, maxFramesPerSecond: 60)

    static func of(_ settings: RecordingSettings) -> CameraLimits {
        switch settings.source {
        case .synthetic:
            return synthetic
        case .stdin:
            // Whatever the producer was started with: the pipe cannot be asked for more.
            let pipe = settings.pipeMode
            return CameraLimits(maxWidth: pipe.width, maxHeight: pipe.height,
                                maxFramesPerSecond: Int(pipe.rate.framesPerSecond.rounded()))
        case .v4l2(let device, let pixelFormat):
            // A camera unplugged or busy elsewhere says nothing; the coordinator then
            // keeps its plan and the recording reports what went wrong.
            guard let info = try? V4L2Catalog.describe(device) else { return .unknown }
            // As V4L2Source reads --pixel-format: "yuyv" is YUYV.
            let forced = pixelFormat.flatMap { FourCC($0.uppercased()) }
            let formats = info.formats.filter { forced == nil || $0.fourcc == forced }
            return largest(formats.flatMap(\.sizes))
        }
    }

    /// The largest size (by area), and the fastest rate offered at it.
    static func largest(_ sizes: [CameraFrameSize]) -> CameraLimits {
        let area = sizes.map { $0.width * $0.height }.max() ?? 0
        let biggest = sizes.filter { $0.width * $0.height == area && area > 0 }
        guard let first = biggest.first else { return .unknown }
        let fastest = biggest.flatMap(\.rates).map(\.framesPerSecond).max() ?? 0
        return CameraLimits(maxWidth: first.width, maxHeight: first.height, maxFramesPerSecond: Int(fastest.rounded()))
    }
}
