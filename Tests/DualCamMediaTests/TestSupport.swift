import DualCamCore
import DualCamMedia
import DualCamTestSupport
import Foundation

enum TestPictures {
    /// A smooth diagonal gradient with a bright square that moves with `frame`: easy for
    /// the codec (so quality checks are meaningful) and different in every frame.
    static func moving(width: Int, height: Int, frame: Int) -> YUV420Image {
        var image = YUV420Image(width: width, height: height)
        let squareX = (frame * 4) % max(1, width - 32), squareY = height / 3
        for row in 0..<height {
            for column in 0..<width {
                var value = 32 + (column * 160) / width + (row * 40) / height
                if column >= squareX && column < squareX + 32 && row >= squareY && row < squareY + 32 { value = 220 }
                image.y[row * image.lumaStride + column] = UInt8(value)
            }
        }
        for row in 0..<image.chromaHeight {
            for column in 0..<image.chromaWidth {
                image.cb[row * image.chromaStride + column] = UInt8(96 + (column * 64) / image.chromaWidth)
                image.cr[row * image.chromaStride + column] = UInt8(160 - (row * 64) / image.chromaHeight)
            }
        }
        return image
    }

    /// Luma PSNR in dB between two pictures of the same size (strides may differ).
    static func lumaPSNR(_ a: YUV420Image, _ b: YUV420Image) -> Double {
        precondition(a.width == b.width && a.height == b.height)
        var squared = 0.0
        for row in 0..<a.height {
            for column in 0..<a.width {
                let d = Double(a.luma(column, row)) - Double(b.luma(column, row))
                squared += d * d
            }
        }
        let mse = squared / Double(a.width * a.height)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }
}

extension Int64 {
    /// The 90 kHz tick the TS muxer stores for this nanosecond time.
    var ticks90k: Int64 { (self * 9 + 50_000) / 100_000 }
}

enum Encoding {
    static let width = 320, height = 240
    static let rate = FrameRate.fps30

    static func settings(gop: Int = 60) -> VideoEncoderSettings {
        VideoEncoderSettings(width: width, height: height, rate: rate, gopFrames: gop, threads: 1)
    }

    /// Encodes one picture per timestamp, forcing a keyframe where `keyframeAt` says.
    static func encode(timestamps: [Int64], keyframeAt: (Int) -> Bool) throws -> (CodecParameters, [EncodedPacket]) {
        let encoder = try VideoEncoder(settings: settings())
        var packets: [EncodedPacket] = []
        for (index, pts) in timestamps.enumerated() {
            packets += try encoder.encode(TestPictures.moving(width: width, height: height, frame: index),
                                          ptsNanoseconds: pts, forceKeyframe: keyframeAt(index))
        }
        packets += try encoder.flush()
        return (encoder.parameters, packets)
    }

    /// Writes packets into consecutive segments, cutting before each keyframe.
    static func writeSegments(_ packets: [EncodedPacket], parameters: CodecParameters,
                              in folder: TemporaryFolder) throws -> [(String, SegmentInfo)] {
        var result: [(String, SegmentInfo)] = []
        var writer: SegmentWriter?
        var path = ""
        for packet in packets {
            if packet.isKeyframe, let current = writer {
                result.append((path, try current.finish()))
                writer = nil
            }
            if writer == nil {
                path = folder.file("segment-\(result.count).ts")
                writer = try SegmentWriter(path: path, parameters: parameters)
            }
            try writer!.write(packet)
        }
        if let writer { result.append((path, try writer.finish())) }
        return result
    }
}
