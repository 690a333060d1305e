/// An 8-bit planar YUV 4:2:0 picture (limited range), owned by value.
///
/// Planes are stored with explicit strides so that pictures coming from FFmpeg or V4L2
/// (whose rows are padded) can be described without repacking. Chroma planes are
/// `(width+1)/2 x (height+1)/2`.
public struct YUV420Image: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let lumaStride: Int
    public let chromaStride: Int
    public var y: [UInt8]
    public var cb: [UInt8]
    public var cr: [UInt8]

    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }

    /// A black picture (Y 16, Cb/Cr 128) with tight strides.
    public init(width: Int, height: Int) {
        precondition(width > 0 && height > 0, "image size must be positive")
        self.width = width
        self.height = height
        self.lumaStride = width
        self.chromaStride = (width + 1) / 2
        self.y = [UInt8](repeating: 16, count: width * height)
        self.cb = [UInt8](repeating: 128, count: chromaStride * ((height + 1) / 2))
        self.cr = [UInt8](repeating: 128, count: chromaStride * ((height + 1) / 2))
    }

    /// A black picture whose rows are padded to a multiple of `strideAlignment` bytes,
    /// for writers (libswscale's SIMD stores) that may write a little past a row's end.
    public init(width: Int, height: Int, strideAlignment: Int) {
        precondition(width > 0 && height > 0 && strideAlignment > 0, "image size and alignment must be positive")
        func aligned(_ n: Int) -> Int { (n + strideAlignment - 1) / strideAlignment * strideAlignment }
        let lumaStride = aligned(width), chromaStride = aligned((width + 1) / 2), chromaRows = (height + 1) / 2
        self.init(width: width, height: height, lumaStride: lumaStride, chromaStride: chromaStride,
                  y: [UInt8](repeating: 16, count: lumaStride * height),
                  cb: [UInt8](repeating: 128, count: chromaStride * chromaRows),
                  cr: [UInt8](repeating: 128, count: chromaStride * chromaRows))
    }

    public init(width: Int, height: Int, lumaStride: Int, chromaStride: Int,
                y: [UInt8], cb: [UInt8], cr: [UInt8]) {
        precondition(lumaStride >= width && chromaStride >= (width + 1) / 2, "stride below width")
        precondition(y.count >= lumaStride * height, "luma plane too small")
        precondition(cb.count >= chromaStride * ((height + 1) / 2), "Cb plane too small")
        precondition(cr.count >= chromaStride * ((height + 1) / 2), "Cr plane too small")
        self.width = width
        self.height = height
        self.lumaStride = lumaStride
        self.chromaStride = chromaStride
        self.y = y
        self.cb = cb
        self.cr = cr
    }

    @inlinable public func luma(_ x: Int, _ y: Int) -> UInt8 { self.y[y * lumaStride + x] }
}
