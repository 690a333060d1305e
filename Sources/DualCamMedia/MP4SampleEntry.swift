import CFFmpeg
import Glibc

/// Rewrites a finished MP4's H.264/H.265 sample entries from `avc1`/`hvc1` to `avc3`/`hev1`:
/// the forms whose parameter sets may change in the stream. A camera whose encoder stepped
/// to another preset during a take (`--preset auto`) starts that segment with new SPS/PPS
/// in band (ISO/IEC 14496-15 §5.4.2); with `avc1` the sample entry's sets would claim to be
/// the only ones. The muxer decides the entry at its header, before the change is known,
/// hence the patch after the trailer: four bytes, in place, then fsync.
public enum MP4SampleEntry {
    static let renames: [String: String] = ["avc1": "avc3", "hvc1": "hev1"]

    /// Returns how many sample entries were renamed.
    @discardableResult
    static func allowInBandParameterSets(path: String) throws -> Int {
        var renamed = 0
        try withEntries(path: path, writable: true) { file, entry in
            guard let new = renames[entry.type] else { return }
            try file.write(Array(new.utf8), at: entry.start + 4)
            renamed += 1
        }
        if renamed > 0 { try FileSync.sync(path: path) }
        return renamed
    }

    /// Every track's sample entry types, e.g. ["avc1", "mp4a"].
    public static func types(path: String) throws -> [String] {
        var types: [String] = []
        try withEntries(path: path, writable: false) { _, entry in types.append(entry.type) }
        return types
    }

    private static func withEntries(path: String, writable: Bool, _ body: (BoxFile, BoxFile.Box) throws -> Void) throws {
        let descriptor = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC)
        guard descriptor >= 0 else { throw FFmpegError(code: dc_averror(errno), call: "open", path: path) }
        defer { close(descriptor) }
        let file = BoxFile(descriptor: descriptor, path: path)
        guard let moov = try file.children(from: 0, to: try file.size()).first(where: { $0.type == "moov" }) else {
            throw FFmpegError.invalid("MP4SampleEntry", path: path, "no moov box")
        }
        for trak in try file.children(of: moov) where trak.type == "trak" {
            guard let stsd = try file.descend(trak, through: ["mdia", "minf", "stbl", "stsd"]) else { continue }
            // A full box: version and flags, then the entry count, then the entries.
            for entry in try file.children(from: stsd.bodyStart + 8, to: stsd.end) { try body(file, entry) }
        }
    }
}

/// Box headers of an ISO BMFF file read through a descriptor.
private struct BoxFile {
    struct Box {
        var type: String
        var start: Int64
        var bodyStart: Int64
        var end: Int64
    }

    let descriptor: Int32
    let path: String

    func size() throws -> Int64 {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw FFmpegError(code: dc_averror(errno), call: "fstat", path: path) }
        return Int64(info.st_size)
    }

    func children(of box: Box) throws -> [Box] { try children(from: box.bodyStart, to: box.end) }

    func children(from start: Int64, to end: Int64) throws -> [Box] {
        var boxes: [Box] = []
        var offset = start
        while offset + 8 <= end {
            let header = try read(16, at: offset)
            guard header.count >= 8 else { break }
            var size = Int64(UInt32(header[0]) << 24 | UInt32(header[1]) << 16 | UInt32(header[2]) << 8 | UInt32(header[3]))
            let type = String(decoding: header[4..<8], as: UTF8.self)
            var headerSize: Int64 = 8
            if size == 1 {
                guard header.count == 16 else { break }
                size = header[8..<16].reduce(Int64(0)) { $0 << 8 | Int64($1) }
                headerSize = 16
            } else if size == 0 {
                size = end - offset
            }
            guard size >= headerSize, offset + size <= end else {
                throw FFmpegError.invalid("MP4SampleEntry", path: path, "box '\(type)' at \(offset) overruns its parent")
            }
            boxes.append(Box(type: type, start: offset, bodyStart: offset + headerSize, end: offset + size))
            offset += size
        }
        return boxes
    }

    func descend(_ box: Box, through path: [String]) throws -> Box? {
        var current = box
        for type in path {
            guard let next = try children(of: current).first(where: { $0.type == type }) else { return nil }
            current = next
        }
        return current
    }

    func read(_ count: Int, at offset: Int64) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
        guard got >= 0 else { throw FFmpegError(code: dc_averror(errno), call: "pread", path: path) }
        return Array(bytes.prefix(got))
    }

    func write(_ bytes: [UInt8], at offset: Int64) throws {
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, bytes.count, off_t(offset)) }
        guard written == bytes.count else { throw FFmpegError(code: dc_averror(errno), call: "pwrite", path: path) }
    }
}
