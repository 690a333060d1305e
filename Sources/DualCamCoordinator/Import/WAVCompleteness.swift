import Foundation

/// Whether a WAV holds all the sound its header promises: a recorder that lost power, or a
/// copy that stopped, leaves a header whose `data` size runs past the end of the file.
/// FFmpeg plays such a file to where it stops, so only the header tells.
enum WAVCompleteness {
    /// Seconds promised and held, when the file is a RIFF WAV holding less than promised;
    /// nil for a whole WAV, a streamed one (size 0 or 0xFFFFFFFF) or any other file.
    static func shortfall(path: String) -> (promised: Double, held: Double)? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), (try? handle.seek(toOffset: 0)) != nil,
              let head = try? handle.read(upToCount: 12), head.count == 12,
              head.prefix(4) == Data("RIFF".utf8), head.suffix(4) == Data("WAVE".utf8) else { return nil }
        var offset: UInt64 = 12
        var bytesPerSecond = 0
        while offset + 8 <= size {
            guard (try? handle.seek(toOffset: offset)) != nil, let header = try? handle.read(upToCount: 8), header.count == 8 else { return nil }
            let id = String(decoding: header.prefix(4), as: UTF8.self)
            let length = header.suffix(4).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
            if id == "fmt ", let fmt = try? handle.read(upToCount: 12), fmt.count == 12 {
                bytesPerSecond = fmt.suffix(4).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            }
            if id == "data" {
                guard length != 0, length != 0xFFFF_FFFF, bytesPerSecond > 0 else { return nil }
                let held = size - (offset + 8)
                guard length > held + 1 else { return nil }
                return (Double(length) / Double(bytesPerSecond), Double(held) / Double(bytesPerSecond))
            }
            offset += 8 + length + (length & 1)
        }
        return nil
    }
}
