import Foundation

/// A PCM WAV file written as sound arrives, for editors: samples are placed by their
/// position on the session's timeline from `startPosition` (T0 by default, so every
/// node's file lines up at zero in an editor; gaps become silence, repeats are ignored),
/// and the header's sizes are set when the file is finished, then it is fsynced.
public final class WAVWriter {
    public let path: String
    public let sampleRate: Int
    public let channels: Int
    public let bits: Int
    private let handle: FileHandle
    /// Samples per channel written so far, from position `startPosition`.
    private var written: Int64 = 0
    private let startPosition: Int64
    private var finished = false
    private let broadcast: BroadcastWave?

    /// `broadcast`: written as a Broadcast Wave (EBU Tech 3285), whose `bext` and `iXML`
    /// chunks tell an editor at which time of day the first sample lies.
    public init(path: String, sampleRate: Int, channels: Int, bits: Int, startPosition: Int64 = 0,
                broadcast: BroadcastWave? = nil) throws {
        guard bits == 16 || bits == 24, channels > 0 else {
            throw FFmpegError.invalid("WAVWriter.init", path: path, "\(bits)-bit \(channels) ch: 16 or 24 bits, 1 or more channels")
        }
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw FFmpegError(code: -EACCES, call: "WAVWriter.init", path: path, detail: "cannot create the file")
        }
        self.path = path
        self.sampleRate = sampleRate
        self.channels = channels
        self.bits = bits
        self.handle = handle
        self.startPosition = startPosition
        self.broadcast = broadcast
        try handle.write(contentsOf: header(dataBytes: 0))
    }

    /// Writes interleaved samples (`sourceChannels` wide; extra channels are dropped)
    /// whose first is at `position` (samples since the session's T0).
    public func write(_ samples: [Float], sourceChannels: Int, atPosition position: Int64) throws {
        guard !finished else { throw FFmpegError.invalid("WAVWriter.write", path: path, "already finished") }
        let next = startPosition + written
        let frames = samples.count / max(sourceChannels, 1)
        let skip = Int(min(max(0, next - position), Int64(frames)))
        guard skip < frames else { return }
        if position > next { try writeSilence(Int(position - next)) }
        let bytesPerSample = bits / 8
        var data = Data(capacity: (frames - skip) * channels * bytesPerSample)
        for i in skip..<frames {
            for ch in 0..<channels {
                let v = Double(max(-1, min(1, samples[i * sourceChannels + min(ch, sourceChannels - 1)])))
                if bits == 16 {
                    let s = Int16(clamping: Int((v * 32768).rounded()))
                    withUnsafeBytes(of: s.littleEndian) { data.append(contentsOf: $0) }
                } else {
                    let s = Int32(clamping: min(Int((v * 8_388_608).rounded()), 8_388_607))
                    data.append(contentsOf: [UInt8(truncatingIfNeeded: s), UInt8(truncatingIfNeeded: s >> 8),
                                             UInt8(truncatingIfNeeded: s >> 16)])
                }
            }
        }
        try handle.write(contentsOf: data)
        written += Int64(frames - skip)
    }

    private func writeSilence(_ frames: Int) throws {
        try handle.write(contentsOf: Data(count: frames * channels * bits / 8))
        written += Int64(frames)
    }

    /// Samples per channel in the file.
    public var sampleCount: Int64 { written }

    public func finish() throws {
        guard !finished else { return }
        finished = true
        try handle.seek(toOffset: 0)
        try handle.write(contentsOf: header(dataBytes: Int(written) * channels * bits / 8))
        try handle.close()
        try FileSync.sync(path: path)
    }

    private func header(dataBytes: Int) -> Data {
        var d = Data()
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: v).littleEndian) { d.append(contentsOf: $0) } }
        let blockAlign = channels * bits / 8
        let extra = broadcast.map { $0.chunks(sampleRate: sampleRate) } ?? Data()
        d.append(contentsOf: Array("RIFF".utf8)); u32(36 + extra.count + dataBytes); d.append(contentsOf: Array("WAVE".utf8))
        d.append(extra)
        d.append(contentsOf: Array("fmt ".utf8)); u32(16); u16(1); u16(channels); u32(sampleRate)
        u32(sampleRate * blockAlign); u16(blockAlign); u16(bits)
        d.append(contentsOf: Array("data".utf8)); u32(dataBytes)
        return d
    }
}
