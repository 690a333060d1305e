import NIOCore
import SwiftProtobuf

/// Lets SwiftProtobuf parse straight out of a ByteBuffer slice. A wrapper rather than a
/// retroactive conformance of ByteBuffer, which could clash with one NIO or SwiftProtobuf
/// might add later.
struct ByteBufferBytes: SwiftProtobufContiguousBytes {
    var buffer: ByteBuffer

    init(_ buffer: ByteBuffer) {
        self.buffer = buffer
    }

    init(repeating: UInt8, count: Int) {
        buffer = ByteBuffer(repeating: repeating, count: count)
    }

    init<S: Sequence>(_ sequence: S) where S.Element == UInt8 {
        buffer = ByteBuffer(bytes: sequence)
    }

    var count: Int { buffer.readableBytes }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try buffer.withUnsafeReadableBytes(body)
    }

    mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        try buffer.withUnsafeMutableReadableBytes(body)
    }
}
