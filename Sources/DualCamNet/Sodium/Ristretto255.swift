import CSodium

/// The ristretto255 group (RFC 9496) through libsodium: a prime-order group without
/// cofactor pitfalls, in constant-time code that is reviewed and shipped by Debian, not
/// our own field arithmetic. Values cross this file as byte arrays; the C calls see them
/// only inside `withUnsafe…` closures that end here.
enum Ristretto255 {
    static let elementBytes = Int(crypto_core_ristretto255_BYTES)
    static let uniformBytes = Int(crypto_core_ristretto255_HASHBYTES)
    static let scalarBytes = Int(crypto_core_ristretto255_SCALARBYTES)

    /// A group element in its canonical 32-byte encoding.
    struct Element: Sendable, Equatable {
        let bytes: [UInt8]
    }

    /// A secret scalar, little endian. Only this file reads its bytes, so that a scalar
    /// cannot end up on the wire by mistake.
    struct Scalar: Sendable {
        fileprivate let bytes: [UInt8]

        /// A scalar given as bytes (the draft's test vectors), which libsodium takes with
        /// its top bit cleared.
        init(littleEndian bytes: [UInt8]) throws {
            try Ristretto255.expect(bytes, Ristretto255.scalarBytes, "crypto_scalarmult_ristretto255", "a scalar")
            self.bytes = bytes
        }

        /// Uniform in 1 … order − 1 (libsodium draws again on zero or a value past the order).
        static func random() throws -> Scalar {
            try Ristretto255.ready()
            var bytes = [UInt8](repeating: 0, count: Ristretto255.scalarBytes)
            bytes.withUnsafeMutableBufferPointer { crypto_core_ristretto255_scalar_random($0.baseAddress!) }
            return try Scalar(littleEndian: bytes)
        }
    }

    /// RFC 9496's element derivation ("from uniform bytes"): 64 hash bytes to an element,
    /// in constant time.
    static func element(fromUniform hash: [UInt8]) throws -> Element {
        let function = "crypto_core_ristretto255_from_hash"
        try expect(hash, uniformBytes, function, "element derivation")
        return try writeElement(function, "element derivation failed") { result in
            hash.withUnsafeBufferPointer { crypto_core_ristretto255_from_hash(result, $0.baseAddress!) }
        }
    }

    /// `scalar` times the element `encoded` (any 32 bytes, as they came from a peer):
    /// throws when they do not decode to an element or the product is the identity, the
    /// two cases in which CPace's scalar_mult_vfy returns G.I and the exchange must abort.
    static func multiply(_ scalar: Scalar, _ encoded: [UInt8]) throws -> Element {
        let function = "crypto_scalarmult_ristretto255"
        try expect(encoded, elementBytes, function, "an encoded element")
        return try writeElement(function, "not a ristretto255 element, or one whose product is the identity") { result in
            scalar.bytes.withUnsafeBufferPointer { n in
                encoded.withUnsafeBufferPointer { crypto_scalarmult_ristretto255(result, n.baseAddress!, $0.baseAddress!) }
            }
        }
    }

    private static func expect(_ bytes: [UInt8], _ count: Int, _ function: String, _ what: String) throws {
        guard bytes.count != count else { return }
        throw SodiumError(function, returned: -1, "\(what) takes \(count) bytes, not \(bytes.count)")
    }

    /// One libsodium call that writes an element; its code must be 0.
    private static func writeElement(_ function: String, _ failure: String,
                                     _ call: (UnsafeMutablePointer<UInt8>) -> Int32) throws -> Element {
        try ready()
        var out = [UInt8](repeating: 0, count: elementBytes)
        let code = out.withUnsafeMutableBufferPointer { call($0.baseAddress!) }
        guard code == 0 else { throw SodiumError(function, returned: code, failure) }
        return Element(bytes: out)
    }

    /// libsodium picks its random source and CPU-specific code in `sodium_init`, once per
    /// process (it returns 1 when already done); a static let runs it exactly once.
    private static let initialised: Int32 = sodium_init()

    private static func ready() throws {
        guard initialised >= 0 else { throw SodiumError("sodium_init", returned: initialised, "libsodium could not start") }
    }
}
