import DualCamMedia
import Foundation

/// One place the programme is streamed to (`--stream URL`, `stream =` in coordinator.conf):
/// `rtmp://`, `rtmps://` or `srt://`. The stream key is a password: `shown` is the URL as
/// every log line, error and manifest may name it, the key masked.
public struct StreamDestination: Sendable, Equatable, CustomStringConvertible {
    public let url: String
    public let shown: String

    public init(_ text: String) throws(CoordinatorError) {
        let url = text.trimmingCharacters(in: .whitespaces)
        let scheme = url.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        // The schemes the muxer side streams to (LiveStreamOutput.formatName), said once.
        guard LiveStreamOutput.formatName(url: url) != nil, url.lowercased().hasPrefix(scheme + "://"),
              url.count > scheme.count + 3 else {
            throw CoordinatorError("--stream \(Self.mask(url)) is not an rtmp://, rtmps:// or srt:// address (e.g. "
                + "rtmp://a.rtmp.youtube.com/live2/KEY or srt://host:9000?streamid=KEY)")
        }
        self.url = url
        shown = Self.mask(url)
    }

    public var description: String { shown }

    /// The URL with its secrets as `****`: a user's password, the last path component of
    /// an RTMP address (where platforms put the key), and SRT's streamid and passphrase.
    public static func mask(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url.isEmpty ? url : "****" }
        let scheme = url[..<schemeEnd.lowerBound]
        var rest = String(url[schemeEnd.upperBound...])
        var query: String?
        if let q = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: q)...])
            rest = String(rest[..<q])
        }
        var parts = rest.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if let at = parts.first?.lastIndex(of: "@") {
            let user = parts[0][..<at].split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
            parts[0] = user + ":****" + parts[0][at...]
        }
        if parts.count > 2, !(parts.last ?? "").isEmpty { parts[parts.count - 1] = "****" }
        var masked = String(scheme) + "://" + parts.joined(separator: "/")
        if let query {
            let secret: Set<String> = ["streamid", "passphrase", "key", "token", "pass", "password"]
            masked += "?" + query.split(separator: "&").map { pair in
                let kv = pair.split(separator: "=", maxSplits: 1)
                return kv.count == 2 && secret.contains(kv[0].lowercased()) ? String(kv[0]) + "=****" : String(pair)
            }.joined(separator: "&")
        }
        return masked
    }
}
