/// How a camera's picture meets a slot whose shape is not its own.
public enum LayoutFit: String, CaseIterable, Sendable {
    /// Scaled to cover the slot; what sticks out is cropped (where, the anchor says).
    case fill
    /// The whole picture, as large as the slot allows; the rest of the slot shows the
    /// layout's background (letterbox or pillarbox).
    case fit

    public static func parse(_ text: String) throws(LayoutError) -> LayoutFit {
        guard let fit = LayoutFit(rawValue: text.lowercased()) else {
            throw LayoutError("unknown fit '\(text)'; expected fill (cover the slot, cropping) or fit (the whole picture, with bars)")
        }
        return fit
    }
}

/// Which part of a filled picture is kept when it is taller than its slot. A picture
/// wider than its slot is always cropped equally left and right: cameras frame their
/// people in the middle, while heads sit in the upper part of the height.
public enum CropAnchor: String, CaseIterable, Sendable {
    case top
    case center
    case bottom

    public static func parse(_ text: String) throws(LayoutError) -> CropAnchor {
        let lowered = text.lowercased()
        if lowered == "centre" { return .center }
        guard let anchor = CropAnchor(rawValue: lowered) else {
            throw LayoutError("unknown crop anchor '\(text)'; expected top, center (or centre) or bottom")
        }
        return anchor
    }
}

/// The part of a source that a slot shows, and where in the output it lands.
public struct Placement: Sendable, Hashable, CustomStringConvertible {
    /// In source pixels.
    public var crop: PixelRect
    /// In output pixels: the slot itself when filled, the centred part of it when fitted.
    public var target: PixelRect

    public init(crop: PixelRect, target: PixelRect) {
        self.crop = crop
        self.target = target
    }

    /// Where source pixel coordinate (`x`, `y`) lands in the output, as real numbers, so
    /// that a reader of the DCTC grid can find its cells in any slot.
    public func outputPoint(sourceX x: Double, sourceY y: Double) -> (x: Double, y: Double) {
        (Double(target.x) + (x - Double(crop.x)) * horizontalScale,
         Double(target.y) + (y - Double(crop.y)) * verticalScale)
    }

    public var horizontalScale: Double { Double(target.width) / Double(crop.width) }
    public var verticalScale: Double { Double(target.height) / Double(crop.height) }

    public var description: String { "\(crop) -> \(target)" }
}

extension LayoutGeometry {
    /// How a `sourceWidth x sourceHeight` picture is drawn in `slot`, by the slot's fit
    /// and anchor. Rectangles are even where the source and slot allow, for 4:2:0.
    public static func placement(of slot: Slot, sourceWidth: Int, sourceHeight: Int) -> Placement {
        switch slot.fit {
        case .fill:
            return Placement(crop: coverCrop(sourceWidth: sourceWidth, sourceHeight: sourceHeight,
                                             slotWidth: slot.rect.width, slotHeight: slot.rect.height,
                                             anchor: slot.anchor),
                             target: slot.rect)
        case .fit:
            return Placement(crop: PixelRect(x: 0, y: 0, width: sourceWidth, height: sourceHeight),
                             target: fitRect(sourceWidth: sourceWidth, sourceHeight: sourceHeight, in: slot.rect))
        }
    }

    /// The largest rectangle of the source's aspect inside `rect`, centred, with even
    /// offsets and sizes (except a side that takes the whole of an odd slot side).
    public static func fitRect(sourceWidth: Int, sourceHeight: Int, in rect: PixelRect) -> PixelRect {
        precondition(sourceWidth > 0 && sourceHeight > 0 && rect.width > 0 && rect.height > 0,
                     "sizes must be positive")
        var width = rect.width, height = rect.height
        // Cross-multiplied, as in coverCrop, so no rounding decides which side is full.
        if rect.width * sourceHeight >= rect.height * sourceWidth {
            width = min(rect.width, max(2, evenNearest(sourceWidth * rect.height, over: sourceHeight)))
        } else {
            height = min(rect.height, max(2, evenNearest(sourceHeight * rect.width, over: sourceWidth)))
        }
        return PixelRect(x: rect.x + evenNearest(rect.width - width, over: 2),
                         y: rect.y + evenNearest(rect.height - height, over: 2),
                         width: width, height: height)
    }
}
