import Foundation

/// The format of a WAV file from its header: enough for an editor's timeline (channels,
/// rate) without decoding it.
struct WAVInfo {
    var channels: Int
    var sampleRate: Int

    /// Nil for a file that is not a PCM WAV this coordinator could have written.
    init?(path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 64), header.count >= 36,
              header.prefix(4) == Data("RIFF".utf8), header[8..<12] == Data("WAVE".utf8) else { return nil }
        func little(_ at: Int, _ count: Int) -> Int {
            (0..<count).reduce(0) { $0 | Int(header[header.startIndex + at + $1]) << (8 * $1) }
        }
        channels = little(22, 2)
        sampleRate = little(24, 4)
        guard (1...64).contains(channels), (8_000...384_000).contains(sampleRate) else { return nil }
    }
}
