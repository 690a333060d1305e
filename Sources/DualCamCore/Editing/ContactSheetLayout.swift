/// The contact sheet's geometry: `columns` x `rows` tiles of the session's aspect, a thin
/// dark margin between them, each tile an even number of pixels (4:2:0 chroma lines up).
public struct ContactSheetLayout: Sendable, Hashable {
    public let tileWidth: Int
    public let tileHeight: Int
    public let columns: Int
    public let rows: Int
    public let margin: Int

    public init(sourceWidth: Int, sourceHeight: Int, tileWidth: Int = 320, columns: Int = 4, rows: Int = 3, margin: Int = 4) {
        self.tileWidth = tileWidth & ~1
        let height = Int((Double(tileWidth) * Double(max(sourceHeight, 1)) / Double(max(sourceWidth, 1))).rounded())
        tileHeight = max(height & ~1, 2)
        self.columns = columns
        self.rows = rows
        self.margin = margin & ~1
    }

    public var count: Int { columns * rows }
    public var width: Int { columns * tileWidth + (columns + 1) * margin }
    public var height: Int { rows * tileHeight + (rows + 1) * margin }

    /// Where tile `index` goes, row by row.
    public func tile(_ index: Int) -> PixelRect {
        PixelRect(x: margin + (index % columns) * (tileWidth + margin), y: margin + (index / columns) * (tileHeight + margin),
                  width: tileWidth, height: tileHeight)
    }

    /// The sheet: `tiles` (each `tileWidth` x `tileHeight`) pasted in order on black.
    public func sheet(_ tiles: [YUV420Image]) -> YUV420Image {
        var sheet = YUV420Image(width: width, height: height)
        for (i, picture) in tiles.prefix(count).enumerated() {
            let place = tile(i)
            for row in 0..<min(picture.height, place.height) {
                let from = row * picture.lumaStride, to = (place.y + row) * sheet.lumaStride + place.x
                sheet.y.replaceSubrange(to..<to + min(picture.width, place.width), with: picture.y[from..<from + min(picture.width, place.width)])
            }
            let chromaWidth = min(picture.chromaWidth, place.width / 2)
            for row in 0..<min(picture.chromaHeight, place.height / 2) {
                let from = row * picture.chromaStride, to = (place.y / 2 + row) * sheet.chromaStride + place.x / 2
                sheet.cb.replaceSubrange(to..<to + chromaWidth, with: picture.cb[from..<from + chromaWidth])
                sheet.cr.replaceSubrange(to..<to + chromaWidth, with: picture.cr[from..<from + chromaWidth])
            }
        }
        return sheet
    }
}
