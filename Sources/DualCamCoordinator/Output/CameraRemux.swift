import DualCamMedia
import Foundation

/// Builds one camera's MP4 from its segments as they arrive, in index order, copying
/// packets with their timestamps (never re-encoding), so that at stop only the last
/// segment and the trailer remain to be written.
final class CameraRemux {
    let outputPath: String
    let creationTime: Int64
    private var remuxer: MP4Remuxer?
    private var nextIndex = 0
    private var waiting: [Int: String] = [:]

    init(outputPath: String, creationTime: Int64) {
        self.outputPath = outputPath
        self.creationTime = creationTime
    }

    func add(segment path: String, index: Int) throws {
        waiting[index] = path
        while let next = waiting.removeValue(forKey: nextIndex) {
            if remuxer == nil {
                let parameters = try MediaDemuxer(path: next).videoParameters
                remuxer = try MP4Remuxer(outputPath: outputPath, parameters: parameters, creationTimeUnixSeconds: creationTime)
            }
            try remuxer?.append(segmentAt: next)
            nextIndex += 1
        }
    }

    /// Segments that never arrived leave a gap in the file; they are reported, not faked.
    var missingSegments: [Int] { waiting.keys.sorted() }

    func finish() throws {
        guard let remuxer else { throw CoordinatorError("no segment arrived for \(outputPath)") }
        try remuxer.finish()
    }
}
