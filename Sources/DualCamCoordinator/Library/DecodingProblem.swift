import Foundation

/// A JSON decoding error in a line a user can read: the field and what is wrong with
/// it, instead of the decoder's nested dump.
enum DecodingProblem {
    static func text(_ error: Error) -> String {
        guard let error = error as? DecodingError else {
            // JSONSerialization's own errors (the manifest is parsed once before decoding).
            let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            return reason.map { "not valid JSON (\($0))" } ?? "\(error)"
        }
        func field(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return path.isEmpty ? "" : "field \(path): "
        }
        switch error {
        case .dataCorrupted(let context):
            // The JSON parser's own reason (truncated, a bad character) is in the underlying error.
            let reason = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return field(context) + (context.codingPath.isEmpty ? "not valid JSON" : context.debugDescription)
                + (reason.map { " (\($0))" } ?? "")
        case .keyNotFound(let key, let context):
            return field(context) + "'\(key.stringValue)' is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return field(context) + context.debugDescription
        @unknown default:
            return "\(error)"
        }
    }
}
