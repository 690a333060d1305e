/// A rectangle in pixels. Layouts keep x, y, width and height even so that 4:2:0
/// chroma lines up.
public struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// Scales pictures for the compositor. The core stays pure by depending only on this
/// protocol: the media module implements it with libswscale, and `ReferenceScaler` in
/// the core serves tests. A class, because real scalers cache contexts per geometry.
public protocol Scaler: AnyObject {
    /// Returns the `crop` rectangle of `source` scaled to exactly `width` x `height`.
    func scale(_ source: YUV420Image, crop: PixelRect, toWidth width: Int, height: Int) -> YUV420Image
}
