/// A libsodium call that did not succeed: the function, the code it returned, and what
/// DualCam was doing. The one error type of the libsodium wrapper (`Ristretto255`).
public struct SodiumError: Error, Sendable, Equatable, CustomStringConvertible {
    public let function: String
    public let code: Int32
    public let context: String

    init(_ function: String, returned code: Int32, _ context: String) {
        self.function = function
        self.code = code
        self.context = context
    }

    public var description: String { "\(context) (libsodium \(function) returned \(code))" }
}
