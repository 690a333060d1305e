import DualCamCore
import DualCamMedia
import Foundation

/// The session's contact sheet (a dozen pictures of the combined file) and thumbnail, made
/// from pictures the composer already holds: the core's `FrameSampler` says which ticks to
/// keep, each kept one is scaled down at once, and at stop only the tiling and two JPEG
/// encodes remain, so the sheet costs the finalising next to nothing and no file is read
/// again. Used on the composer's queue only.
final class ContactSheetRecorder {
    static let sheetName = "contact-sheet.jpg"
    static let thumbnailName = "thumbnail.jpg"

    private var sampler = FrameSampler()
    private var pictures: [Int64: YUV420Image] = [:]
    let layout: ContactSheetLayout
    private let scaler = SwsScaler()
    /// CPU time spent scaling kept pictures while recording.
    private(set) var samplingNanoseconds: Int64 = 0

    init(width: Int, height: Int) {
        layout = ContactSheetLayout(sourceWidth: width, sourceHeight: height)
    }

    func offer(_ picture: YUV420Image, tick: Int64) {
        guard sampler.wants(tick: tick) else { return }
        let started = Self.threadCPUNanoseconds()
        // Stretched to JPEG's full range now, while recording, so that the stop pays only
        // for pasting and encoding.
        pictures[tick] = JPEGEncoder.fullRange(
            scaler.scale(picture, crop: PixelRect(x: 0, y: 0, width: picture.width, height: picture.height),
                         toWidth: layout.tileWidth, height: layout.tileHeight))
        for dropped in sampler.keep(tick: tick) { pictures[dropped] = nil }
        samplingNanoseconds += Self.threadCPUNanoseconds() - started
    }

    /// Writes the sheet and the thumbnail into `directory` (each under a temporary name,
    /// then renamed); returns the CPU time it took. CPU time, not time on the wall: at stop
    /// the remuxes finish on the other core(s) at once, and waiting for a core is not
    /// what the sheet costs.
    func write(into directory: String) throws -> Int64 {
        let started = Self.threadCPUNanoseconds()
        let picks = sampler.pick(layout.count).compactMap { pictures[$0] }
        guard let middle = picks.isEmpty ? nil : picks[picks.count / 2] else { return 0 }
        try Self.writeJPEG(layout.sheet(picks, black: 0), to: directory + "/" + Self.sheetName, quality: 4)
        try Self.writeJPEG(middle, to: directory + "/" + Self.thumbnailName, quality: 3)
        return Self.threadCPUNanoseconds() - started
    }

    private static func writeJPEG(_ picture: YUV420Image, to path: String, quality: Int) throws {
        let bytes = try JPEGEncoder(width: picture.width, height: picture.height, quality: quality).encode(picture, fullRange: true)
        let temporary = (path as NSString).deletingLastPathComponent + "/.tmp-" + (path as NSString).lastPathComponent
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)), rename(temporary, path) == 0 else {
            try? FileManager.default.removeItem(atPath: temporary)
            throw CoordinatorError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    static func threadCPUNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    static func nanoseconds(since start: ContinuousClock.Instant) -> Int64 {
        let d = ContinuousClock.now - start
        return d.components.seconds * 1_000_000_000 + d.components.attoseconds / 1_000_000_000
    }
}
