/// Everything the synthetic source draws into a frame, in order: the moving picture (in
/// the camera's colour when it has an identity), the camera's label, and last the DCTC
/// grid, so that nothing drawn before can reach a cell. Made once per take and size.
public struct SyntheticPattern: Sendable {
    public let width: Int
    public let height: Int
    public let identity: PatternIdentity?
    public let label: PatternLabel?

    /// `identity` nil: the plain pattern, neutral and unlabelled (benchmarks, tests).
    public init(width: Int, height: Int, identity: PatternIdentity?) {
        self.width = width
        self.height = height
        self.identity = identity
        label = identity.map { PatternLabel(identity: $0, width: width, height: height) }
    }

    public func render(frameIndex: Int64, code: UInt32, into image: inout YUV420Image) {
        SyntheticPicture.render(frameIndex: frameIndex, tint: identity?.tint, into: &image)
        label?.draw(into: &image)
        DCTC.draw(code, into: &image)
    }
}
