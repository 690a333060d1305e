import CEbur128

/// The one error type for libebur128: its return code, the call, and what was measured.
public struct EBUR128Error: Error, CustomStringConvertible {
    /// libebur128's code (EBUR128_ERROR_*), or 0 when the state could not be made.
    public let code: Int32
    public let call: String
    public let context: String

    public var description: String {
        let meaning: String
        switch code {
        case Int32(EBUR128_ERROR_NOMEM.rawValue): meaning = "out of memory"
        case Int32(EBUR128_ERROR_INVALID_MODE.rawValue): meaning = "the meter was not opened for this measurement"
        case Int32(EBUR128_ERROR_INVALID_CHANNEL_INDEX.rawValue): meaning = "no such channel"
        case 0: meaning = "could not open the meter (a channel count or sample rate it does not take)"
        default: meaning = "error \(code)"
        }
        return "loudness meter (\(context)): \(call) failed: \(meaning)"
    }
}

func ebur128Check(_ code: Int32, _ call: String, _ context: String) throws(EBUR128Error) {
    if code != Int32(EBUR128_SUCCESS.rawValue) { throw EBUR128Error(code: code, call: call, context: context) }
}
