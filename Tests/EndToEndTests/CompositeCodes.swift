import DualCamCore

/// Where each camera's DCTC grid lies in a composite, from the core's own geometry (slot,
/// fit, anchor), so a reader follows the layout wherever it put a picture.
struct CompositeCodes {
    /// Indexed by stream.
    let placements: [Placement]
    let sourceWidth: Int
    let sourceHeight: Int

    init(_ layout: LayoutSpec, outputWidth: Int, outputHeight: Int, sourceWidth: Int, sourceHeight: Int, streams: Int = 2) {
        let slots = LayoutGeometry.slots(for: layout, outputWidth: outputWidth, outputHeight: outputHeight, streamCount: streams)
        placements = (0..<streams).map { stream in
            LayoutGeometry.placement(of: slots.first { $0.stream == stream }!, sourceWidth: sourceWidth, sourceHeight: sourceHeight)
        }
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
    }

    /// One code per stream.
    func read(_ frame: YUV420Image) -> [UInt32] {
        placements.map { DCTC.read(frame, placement: $0, sourceWidth: sourceWidth, sourceHeight: sourceHeight) }
    }
}
