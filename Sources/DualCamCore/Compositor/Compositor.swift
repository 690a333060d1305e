/// Builds one YUV 4:2:0 output frame per tick from N sources, per the layout.
///
/// Each source is placed by `LayoutGeometry.placement` (cropped to cover its slot, or
/// whole inside it) and scaled through the `Scaler` (skipped when it already has the
/// size it is drawn at), then copied in back to front. The picture-in-picture window gets its border, antialiased rounded corners and
/// shadow from a mask cached per geometry, so steady-state work per frame is row copies
/// and a few thousand integer blends.
///
/// Not thread-safe: one compositor belongs to one task. The scaler is called
/// synchronously from `compose`.
public final class Compositor {
    public let outputWidth: Int
    public let outputHeight: Int
    /// May change between frames; caches follow it.
    public var spec: LayoutSpec
    /// Fills the parts of the frame that no picture covers (gaps in a grid, the bars
    /// beside a fitted picture).
    public var background: YCbCrColor = .black
    /// A slot whose source is nil shows this ("no signal").
    public var noSignalColor = YCbCrColor(y: 32, cb: 128, cr: 128)

    private let scaler: any Scaler
    private var cachedSlots: (spec: LayoutSpec, count: Int, slots: [Slot])?
    private var masks: [InsetMask.Key: InsetMask] = [:]
    private var noSignalPictures: [NoSignalKey: YUV420Image] = [:]

    private struct NoSignalKey: Hashable {
        var width: Int, height: Int, color: YCbCrColor
    }

    public init(outputWidth: Int, outputHeight: Int, scaler: any Scaler,
                spec: LayoutSpec = LayoutSpec(kind: .pip)) {
        precondition(outputWidth >= 2 && outputHeight >= 2, "output must be at least 2x2")
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.scaler = scaler
        self.spec = spec
    }

    /// The slots the current spec gives for `streamCount` sources, in drawing order.
    public func slots(streamCount: Int) -> [Slot] {
        if let cached = cachedSlots, cached.spec == spec, cached.count == streamCount { return cached.slots }
        let slots = LayoutGeometry.slots(for: spec, outputWidth: outputWidth, outputHeight: outputHeight,
                                         streamCount: streamCount)
        cachedSlots = (spec, streamCount, slots)
        return slots
    }

    /// One output frame, tightly packed. A nil source is drawn as "no signal".
    public func compose(_ sources: [YUV420Image?]) -> YUV420Image {
        let slots = self.slots(streamCount: sources.count)
        let drawn = slots.map { picture(for: $0, source: sources[$0.stream]) }
        let insetMasks = slots.map { $0.isInset ? mask(for: $0.rect) : nil }

        let w = outputWidth, h = outputHeight
        let cw = (w + 1) / 2, ch = (h + 1) / 2
        // Non-inset slots never overlap, so equal areas mean every pixel gets written
        // and the background fill can be skipped.
        let covered = zip(slots, drawn).reduce(0) { $0 + ($1.0.isInset ? 0 : $1.1.rect.width * $1.1.rect.height) }
        let needsFill = covered != w * h
        let border = spec.pip.borderColor

        var cbPlane: [UInt8] = []
        var crPlane: [UInt8] = []
        let yPlane = [UInt8](unsafeUninitializedCapacity: w * h) { yOut, yCount in
            cbPlane = [UInt8](unsafeUninitializedCapacity: cw * ch) { cbOut, cbCount in
                crPlane = [UInt8](unsafeUninitializedCapacity: cw * ch) { crOut, crCount in
                    if needsFill {
                        yOut.initialize(repeating: background.y)
                        cbOut.initialize(repeating: background.cb)
                        crOut.initialize(repeating: background.cr)
                    }
                    for (index, (picture, r)) in drawn.enumerated() {
                        let chromaRect = PixelRect(x: r.x / 2, y: r.y / 2,
                                                   width: (r.width + 1) / 2, height: (r.height + 1) / 2)
                        if let mask = insetMasks[index] {
                            PlaneDrawing.drawInset(picture.y, stride: picture.lumaStride, into: yOut, stride: w,
                                                   mask: mask.luma, borderValue: border.y, shadowNeutral: 16)
                            PlaneDrawing.drawInset(picture.cb, stride: picture.chromaStride, into: cbOut, stride: cw,
                                                   mask: mask.chroma, borderValue: border.cb, shadowNeutral: 128)
                            PlaneDrawing.drawInset(picture.cr, stride: picture.chromaStride, into: crOut, stride: cw,
                                                   mask: mask.chroma, borderValue: border.cr, shadowNeutral: 128)
                        } else {
                            PlaneDrawing.copy(picture.y, stride: picture.lumaStride, into: yOut, stride: w, rect: r)
                            PlaneDrawing.copy(picture.cb, stride: picture.chromaStride, into: cbOut, stride: cw,
                                              rect: chromaRect)
                            PlaneDrawing.copy(picture.cr, stride: picture.chromaStride, into: crOut, stride: cw,
                                              rect: chromaRect)
                        }
                    }
                    crCount = cw * ch
                }
                cbCount = cw * ch
            }
            yCount = w * h
        }
        return YUV420Image(width: w, height: h, lumaStride: w, chromaStride: cw, y: yPlane, cb: cbPlane, cr: crPlane)
    }

    /// The source as it will appear, and where: placed by the slot's fit and anchor and
    /// scaled, or the no-signal picture over the whole slot.
    private func picture(for slot: Slot, source: YUV420Image?) -> (picture: YUV420Image, rect: PixelRect) {
        guard let source else { return (noSignalPicture(width: slot.rect.width, height: slot.rect.height), slot.rect) }
        let placement = LayoutGeometry.placement(of: slot, sourceWidth: source.width, sourceHeight: source.height)
        let r = placement.target, crop = placement.crop
        if crop.width == source.width && crop.height == source.height && source.width == r.width && source.height == r.height {
            return (source, r)
        }
        let scaled = scaler.scale(source, crop: crop, toWidth: r.width, height: r.height)
        precondition(scaled.width == r.width && scaled.height == r.height,
                     "scaler returned \(scaled.width)x\(scaled.height) for a \(r.width)x\(r.height) picture")
        return (scaled, r)
    }

    private func mask(for rect: PixelRect) -> InsetMask {
        let key = InsetMask.Key(rect: rect, borderWidth: spec.pip.borderWidth,
                                cornerRadius: spec.pip.cornerRadius, shadow: spec.pip.shadow)
        if let mask = masks[key] { return mask }
        // Layout changes are rare; a handful of geometries is all a session sees.
        if masks.count >= 16 { masks.removeAll() }
        let mask = InsetMask(key: key, outputWidth: outputWidth, outputHeight: outputHeight)
        masks[key] = mask
        return mask
    }

    private func noSignalPicture(width: Int, height: Int) -> YUV420Image {
        let key = NoSignalKey(width: width, height: height, color: noSignalColor)
        if let picture = noSignalPictures[key] { return picture }
        if noSignalPictures.count >= 16 { noSignalPictures.removeAll() }
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        let picture = YUV420Image(width: width, height: height, lumaStride: width, chromaStride: cw,
                                  y: [UInt8](repeating: noSignalColor.y, count: width * height),
                                  cb: [UInt8](repeating: noSignalColor.cb, count: cw * ch),
                                  cr: [UInt8](repeating: noSignalColor.cr, count: cw * ch))
        noSignalPictures[key] = picture
        return picture
    }
}
