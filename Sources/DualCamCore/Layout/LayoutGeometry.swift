/// One stream's place in the composite.
public struct Slot: Sendable, Hashable {
    /// Index into the compositor's sources.
    public var stream: Int
    public var rect: PixelRect
    /// The small picture-in-picture window: the one that gets border, corners and shadow.
    public var isInset: Bool
    /// How the stream's picture meets `rect` (`LayoutGeometry.placement`).
    public var fit: LayoutFit
    public var anchor: CropAnchor

    public init(stream: Int, rect: PixelRect, isInset: Bool = false, fit: LayoutFit = .fill, anchor: CropAnchor = .center) {
        self.stream = stream
        self.rect = rect
        self.isInset = isInset
        self.fit = fit
        self.anchor = anchor
    }
}

/// Where each stream goes for a layout, and which part of a source fills its slot.
///
/// Every rectangle lies inside the frame with even x and y, so 4:2:0 chroma lines up.
/// Widths and heights are even too, except that a slot ending on an odd output edge
/// reaches that edge (outputs for 4:2:0 encoders are even anyway).
///
/// A slot is the room a picture gets; its `fit` and `anchor` say how the picture uses it
/// (`placement(of:sourceWidth:sourceHeight:)`): the geometry does not know the cameras'
/// shapes, the compositor does.
///
/// Stream counts other than two:
/// - `pip`: the large stream fills the frame and every other stream gets a window, in a
///   row along the chosen edge (starting at the chosen corner, or centred); if the row
///   does not fit inside the margins the layout falls back to a grid without gaps.
/// - `split-vertical` / `split-horizontal`: N equal bands / columns.
/// - `dominance`: the large stream keeps the top 70%; the others share the bottom band
///   as equal columns, each picture fitted whole into its column.
/// - `equal`: two cells along the output's long side; above two streams the grid's cells
///   without gaps.
/// - `grid`: ceil(sqrt(N)) columns, as many rows as needed, `margin` between cells and
///   around them, a short last row centred.
/// - A single stream gets the whole frame in every layout.
///
/// `shown` (the director's shots) narrows the streams to a subset, in its order, and the
/// layout is drawn as if those were all the cameras: one shown stream fills the frame.
///
/// `swapped` exchanges streams 0 and 1 before placing: in `pip` and `dominance` stream 1
/// becomes the large one, elsewhere it takes stream 0's place.
public enum LayoutGeometry {
    /// The slots in back-to-front drawing order.
    public static func slots(for spec: LayoutSpec, outputWidth: Int, outputHeight: Int,
                             streamCount: Int) -> [Slot] {
        precondition(outputWidth >= 2 && outputHeight >= 2, "output must be at least 2x2")
        guard streamCount > 0 else { return [] }
        var order = spec.shownStreams(of: streamCount)
        let streamCount = order.count
        if spec.pip.swapped && streamCount >= 2 { order.swapAt(0, 1) }
        let w = outputWidth, h = outputHeight
        let fit = spec.mainFit, anchor = spec.mainAnchor
        func framed(_ slots: [Slot]) -> [Slot] {
            slots.map { Slot(stream: $0.stream, rect: $0.rect, isInset: $0.isInset,
                             fit: $0.isInset ? .fill : fit, anchor: anchor) }
        }
        if streamCount == 1 {
            return framed([Slot(stream: order[0], rect: PixelRect(x: 0, y: 0, width: w, height: h))])
        }
        switch spec.kind {
        case .pip:
            return framed(pip(spec.pip, order: order, width: w, height: h)
                ?? grid(order: order, width: w, height: h, gap: 0))
        case .splitVertical:
            return framed(rows(order: order, width: w, height: h))
        case .splitHorizontal:
            return framed(columns(order: order, y: 0, width: w, height: h))
        case .dominance:
            let top = evenNearest(h * 7, over: 10)
            let large = Slot(stream: order[0], rect: PixelRect(x: 0, y: 0, width: w, height: top), fit: fit, anchor: anchor)
            // A band column is far wider than tall: filled, it would show a slit of the
            // camera, so its picture is fitted whole unless the spec says fill.
            let band = columns(order: Array(order.dropFirst()), y: top, width: w, height: h - top).map {
                Slot(stream: $0.stream, rect: $0.rect, fit: spec.fit ?? .fit, anchor: anchor)
            }
            return [large] + band
        case .equal:
            if streamCount > 2 { return framed(grid(order: order, width: w, height: h, gap: 0)) }
            return framed(w >= h ? columns(order: order, y: 0, width: w, height: h)
                                 : rows(order: order, width: w, height: h))
        case .grid:
            return framed(grid(order: order, width: w, height: h, gap: spec.pip.margin.pixels(outputWidth: w)))
        }
    }

    /// The part of a source that, scaled to the slot, covers it without distortion or
    /// letterbox: centred across, and up or down by `anchor`. Coordinates and sizes are
    /// even where the source allows, so the crop's aspect matches the slot's to within
    /// two source pixels.
    public static func coverCrop(sourceWidth: Int, sourceHeight: Int,
                                 slotWidth: Int, slotHeight: Int, anchor: CropAnchor = .center) -> PixelRect {
        precondition(sourceWidth > 0 && sourceHeight > 0 && slotWidth > 0 && slotHeight > 0,
                     "sizes must be positive")
        var cropWidth = sourceWidth, cropHeight = sourceHeight
        // Compare aspects by cross-multiplying, so no rounding decides the branch.
        if slotWidth * sourceHeight >= slotHeight * sourceWidth {
            cropHeight = min(sourceHeight, max(2, evenNearest(sourceWidth * slotHeight, over: slotWidth)))
        } else {
            cropWidth = min(sourceWidth, max(2, evenNearest(sourceHeight * slotWidth, over: slotHeight)))
        }
        // The even offset nearest the centre: the two leftovers differ by at most 2.
        let y: Int
        switch anchor {
        case .top: y = 0
        case .center: y = evenNearest(sourceHeight - cropHeight, over: 2)
        case .bottom: y = (sourceHeight - cropHeight) & ~1
        }
        return PixelRect(x: evenNearest(sourceWidth - cropWidth, over: 2), y: y,
                         width: cropWidth, height: cropHeight)
    }

    // MARK: - Layout pieces

    private static func pip(_ options: PiPOptions, order: [Int], width w: Int, height h: Int) -> [Slot]? {
        let insetWidth = min(w & ~1, max(2, evenNearest(w * options.sizePercent, over: 100)))
        // The window takes the output's aspect: sources are assumed to share it.
        let insetHeight = min(h & ~1, max(2, evenNearest(insetWidth * h, over: w)))
        let margin = options.margin.pixels(outputWidth: w)
        let marginX = min(margin, ((w - insetWidth) / 2) & ~1)
        let marginY = min(margin, ((h - insetHeight) / 2) & ~1)
        let insets = order.dropFirst()
        let count = insets.count
        let rowWidth = count * insetWidth + (count - 1) * margin
        guard rowWidth <= w - 2 * marginX else { return nil }

        let top = marginY
        let bottom = (h - insetHeight - marginY) & ~1
        let y: Int, firstX: Int, step: Int
        switch options.position {
        case .topLeft: (y, firstX, step) = (top, marginX, insetWidth + margin)
        case .bottomLeft: (y, firstX, step) = (bottom, marginX, insetWidth + margin)
        case .topRight: (y, firstX, step) = (top, (w - insetWidth - marginX) & ~1, -(insetWidth + margin))
        case .bottomRight: (y, firstX, step) = (bottom, (w - insetWidth - marginX) & ~1, -(insetWidth + margin))
        case .center: (y, firstX, step) = (((h - insetHeight) / 2) & ~1, ((w - rowWidth) / 2) & ~1, insetWidth + margin)
        }
        var slots = [Slot(stream: order[0], rect: PixelRect(x: 0, y: 0, width: w, height: h))]
        for (i, stream) in insets.enumerated() {
            let rect = PixelRect(x: firstX + i * step, y: y, width: insetWidth, height: insetHeight)
            slots.append(Slot(stream: stream, rect: rect, isInset: true))
        }
        return slots
    }

    private static func rows(order: [Int], width w: Int, height h: Int) -> [Slot] {
        let cuts = evenCuts(h, parts: order.count)
        return order.enumerated().map { i, stream in
            Slot(stream: stream, rect: PixelRect(x: 0, y: cuts[i], width: w, height: cuts[i + 1] - cuts[i]))
        }
    }

    private static func columns(order: [Int], y: Int, width w: Int, height h: Int) -> [Slot] {
        let cuts = evenCuts(w, parts: order.count)
        return order.enumerated().map { i, stream in
            Slot(stream: stream, rect: PixelRect(x: cuts[i], y: y, width: cuts[i + 1] - cuts[i], height: h))
        }
    }

    /// Cells `gap` apart and `gap` from the edges; with no room for the gaps, none.
    private static func grid(order: [Int], width w: Int, height h: Int, gap: Int) -> [Slot] {
        let n = order.count
        var columnCount = 1
        while columnCount * columnCount < n { columnCount += 1 }
        let rowCount = (n + columnCount - 1) / columnCount
        var gap = gap
        if w - (columnCount + 1) * gap < 2 * columnCount || h - (rowCount + 1) * gap < 2 * rowCount { gap = 0 }
        // Without gaps the cells reach the frame's edges, odd or not; with them, the
        // cells keep even sizes and an odd pixel goes to the right or bottom gap.
        let cellsWidth = gap == 0 ? w : (w - (columnCount + 1) * gap) & ~1
        let cellsHeight = gap == 0 ? h : (h - (rowCount + 1) * gap) & ~1
        let xCuts = evenCuts(cellsWidth, parts: columnCount)
        let yCuts = evenCuts(cellsHeight, parts: rowCount)
        var slots: [Slot] = []
        for (i, stream) in order.enumerated() {
            let row = i / columnCount, column = i % columnCount
            let inRow = min(columnCount, n - row * columnCount)
            // A short last row is centred rather than left-aligned.
            let shift = inRow < columnCount ? ((cellsWidth - xCuts[inRow] + (columnCount - inRow) * gap) / 2) & ~1 : 0
            slots.append(Slot(stream: stream, rect: PixelRect(
                x: gap + xCuts[column] + column * gap + shift, y: gap + yCuts[row] + row * gap,
                width: xCuts[column + 1] - xCuts[column], height: yCuts[row + 1] - yCuts[row])))
        }
        return slots
    }

    // MARK: - Even arithmetic

    /// `parts + 1` boundaries from 0 to `length`, each inner one the even number nearest
    /// to its exact position, so neighbouring slots share an edge with no gap.
    static func evenCuts(_ length: Int, parts: Int) -> [Int] {
        (0...parts).map { i in i == parts ? length : evenNearest(i * length, over: parts) }
    }

    /// The even integer nearest to `numerator / denominator` (both non-negative).
    static func evenNearest(_ numerator: Int, over denominator: Int) -> Int {
        2 * ((numerator + denominator) / (2 * denominator))
    }
}
