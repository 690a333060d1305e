import CFFmpeg
import Glibc

/// Codec extradata in and out of AVCodecParameters, shared by the video and audio sides.
enum Extradata {
    static func read(_ par: UnsafePointer<AVCodecParameters>) -> [UInt8] {
        guard let data = par.pointee.extradata, par.pointee.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(par.pointee.extradata_size)))
    }

    /// Replaces the extradata. libav* frees it with av_free and may read past the end with
    /// SIMD parsers, hence av_mallocz with the documented padding.
    static func write(_ extradata: [UInt8], to par: UnsafeMutablePointer<AVCodecParameters>, path: String?) throws {
        av_freep(&par.pointee.extradata)
        par.pointee.extradata_size = 0
        guard !extradata.isEmpty else { return }
        guard let buffer = av_mallocz(extradata.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
            throw FFmpegError(code: dc_averror(ENOMEM), call: "av_mallocz", path: path)
        }
        let bytes = buffer.assumingMemoryBound(to: UInt8.self)
        extradata.withUnsafeBufferPointer { bytes.update(from: $0.baseAddress!, count: extradata.count) }
        par.pointee.extradata = bytes
        par.pointee.extradata_size = Int32(extradata.count)
    }
}
