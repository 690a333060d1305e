/// The contact sheet's geometry: `columns` x `rows` tiles of the session's aspect, a thin
/// dark margin between them, each tile an even number of pixels (4:2:0 chroma lines up).
public struct ContactSheetLayout: Sendable, Hashable {
    public let tileWidth: Int
    public let tileHeight: Int
    public let columns: Int
    public let rows: Int
    public let margin: Int

    public init(sourceWidth: Int, sourceHeight: Int, tileWidth: Int = 240, columns: Int = 4, rows: Int = 3, margin: Int = 4) {
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

    /// The sheet: `tiles` (each `tileWidth` x `tileHeight`) pasted in order on a ground of
    /// luma `black` (16 for limited-range tiles, 0 for full-range ones).
    public func sheet(_ tiles: [YUV420Image], black: UInt8 = 16) -> YUV420Image {
        var sheet = YUV420Image(width: width, height: height)
        if black != 16 { sheet.y = [UInt8](repeating: black, count: sheet.y.count) }
        for (i, picture) in tiles.prefix(count).enumerated() {
            let place = tile(i)
            Self.paste(picture.y, stride: picture.lumaStride, width: min(picture.width, place.width),
                       rows: min(picture.height, place.height), into: &sheet.y, stride: sheet.lumaStride, x: place.x, y: place.y)
            let chromaWidth = min(picture.chromaWidth, place.width / 2), chromaRows = min(picture.chromaHeight, place.height / 2)
            Self.paste(picture.cb, stride: picture.chromaStride, width: chromaWidth, rows: chromaRows, into: &sheet.cb,
                       stride: sheet.chromaStride, x: place.x / 2, y: place.y / 2)
            Self.paste(picture.cr, stride: picture.chromaStride, width: chromaWidth, rows: chromaRows, into: &sheet.cr,
                       stride: sheet.chromaStride, x: place.x / 2, y: place.y / 2)
        }
        return sheet
    }

    /// Row by row as whole blocks: the sheet is made at stop, where every millisecond
    /// counts against the finalising (a loop per pixel costs ten times more unoptimised).
    private static func paste(_ source: [UInt8], stride sourceStride: Int, width: Int, rows: Int, into target: inout [UInt8],
                              stride targetStride: Int, x: Int, y: Int) {
        source.withUnsafeBufferPointer { from in
            target.withUnsafeMutableBufferPointer { to in
                for row in 0..<rows {
                    let a = row * sourceStride, b = (y + row) * targetStride + x
                    precondition(a + width <= from.count && b + width <= to.count, "tile outside the sheet")
                    UnsafeMutableRawPointer(to.baseAddress! + b).copyMemory(from: from.baseAddress! + a, byteCount: width)
                }
            }
        }
    }
}
