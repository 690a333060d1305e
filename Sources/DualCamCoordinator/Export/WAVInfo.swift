import Foundation

/// The format of a WAV file from its chunks (a Broadcast Wave's `bext` and `iXML` may come
/// before `fmt `): enough for an editor's timeline (channels, rate, length) without
/// decoding it, and whether the file holds what its header promises.
struct WAVInfo {
    var channels: Int
    var sampleRate: Int
    var bytesPerFrame: Int
    /// The `data` chunk's size as the header states it (0 or 0xFFFFFFFF: streamed, unknown).
    var declaredDataBytes: UInt64
    /// What the file holds of it.
    var heldDataBytes: UInt64

    /// Sample frames in the file.
    var frames: Int { bytesPerFrame > 0 ? Int(heldDataBytes) / bytesPerFrame : 0 }

    /// Nil for a file that is not a PCM WAV with a format and a data chunk.
    init?(path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), (try? handle.seek(toOffset: 0)) != nil,
              let head = try? handle.read(upToCount: 12), head.count == 12,
              head.prefix(4) == Data("RIFF".utf8), head.suffix(4) == Data("WAVE".utf8) else { return nil }
        func little(_ data: Data, _ at: Int, _ count: Int) -> UInt64 {
            (0..<count).reduce(UInt64(0)) { $0 | UInt64(data[data.startIndex + at + $1]) << (8 * UInt64($1)) }
        }
        var offset: UInt64 = 12
        var format: Data?
        while offset + 8 <= size {
            guard (try? handle.seek(toOffset: offset)) != nil, let header = try? handle.read(upToCount: 8), header.count == 8 else { return nil }
            let id = String(decoding: header.prefix(4), as: UTF8.self)
            let length = little(header, 4, 4)
            if id == "fmt " {
                format = try? handle.read(upToCount: 16)
            } else if id == "data" {
                guard let format, format.count == 16 else { return nil }
                channels = Int(little(format, 2, 2))
                sampleRate = Int(little(format, 4, 4))
                bytesPerFrame = Int(little(format, 12, 2))
                guard (1...64).contains(channels), (8_000...384_000).contains(sampleRate), bytesPerFrame > 0 else { return nil }
                declaredDataBytes = length
                heldDataBytes = min(size - (offset + 8), length == 0 || length == 0xFFFF_FFFF ? .max : length)
                return
            }
            offset += 8 + length + (length & 1)
        }
        return nil
    }

    /// Seconds promised and held, when the header promises more sound than the file holds
    /// (a recorder that lost power, a copy that stopped: FFmpeg plays such a file to where
    /// it stops, so only the header tells); nil for a whole or streamed WAV.
    var shortfall: (promised: Double, held: Double)? {
        guard declaredDataBytes != 0, declaredDataBytes != 0xFFFF_FFFF, declaredDataBytes > heldDataBytes + 1 else { return nil }
        let perSecond = Double(bytesPerFrame * sampleRate)
        return (Double(declaredDataBytes) / perSecond, Double(heldDataBytes) / perSecond)
    }
}
