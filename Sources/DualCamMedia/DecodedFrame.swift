import DualCamCore

/// A decoded picture (always yuv420p) and its presentation time.
public struct DecodedFrame: Sendable, Equatable {
    public var image: YUV420Image
    public var ptsNanoseconds: Int64

    public init(image: YUV420Image, ptsNanoseconds: Int64) {
        self.image = image
        self.ptsNanoseconds = ptsNanoseconds
    }
}
