import Foundation
import NIOConcurrencyHelpers

/// Who may use the studio. On loopback anybody on this machine may (as with the terminal);
/// beyond it only a browser that came with the one-time token printed on the terminal,
/// and that holds the session cookie it was given for it. Every state-changing request
/// also needs the CSRF value (a custom header no other site's page can set without a
/// preflight this server never grants), and a WebSocket's Origin must be the studio's.
public final class StudioAccess: Sendable {
    public let requiresToken: Bool
    /// Given to the page in its state; required in `X-DualCam-CSRF` on every POST.
    public let csrf: String
    private let state = NIOLockedValueBox(State())

    private struct State {
        var token: String?
        var sessions: Set<String> = []
    }

    public static let cookieName = "dualcam_session"
    public static let csrfHeader = "X-DualCam-CSRF"

    public init(requiresToken: Bool) {
        self.requiresToken = requiresToken
        csrf = Self.randomHex()
        if requiresToken { state.withLockedValue { $0.token = Self.randomHex() } }
    }

    /// The token a new browser needs now (a fresh one after each use); nil on loopback.
    public var token: String? { state.withLockedValue { $0.token } }

    /// Exchanges the one-time token for a session; nil when it is not the current token.
    /// The token is spent either way it matches, and a new one takes its place.
    public func exchange(token offered: String) -> String? {
        state.withLockedValue { s in
            guard let token = s.token, Self.constantTimeEqual(token, offered) else { return nil }
            let session = Self.randomHex()
            s.sessions.insert(session)
            s.token = Self.randomHex()
            return session
        }
    }

    public func admits(session: String?) -> Bool {
        guard requiresToken else { return true }
        guard let session else { return false }
        return state.withLockedValue { $0.sessions.contains(session) }
    }

    public func checksCSRF(_ header: String?) -> Bool {
        guard let header else { return false }
        return Self.constantTimeEqual(header, csrf)
    }

    /// The WebSocket's Origin must name the host the browser asked for (its Host header):
    /// a page of another site cannot open the studio's socket with the user's cookie.
    public static func originMatches(origin: String?, host: String?) -> Bool {
        guard let origin, let host, let url = URL(string: origin), let scheme = url.scheme, let originHost = url.host else {
            return false
        }
        guard scheme == "http" || scheme == "https" else { return false }
        let port = url.port.map { ":\($0)" } ?? ""
        let bracketed = originHost.contains(":") && !originHost.hasPrefix("[") ? "[\(originHost)]" : originHost
        return (bracketed + port).lowercased() == host.lowercased()
    }

    /// On loopback no token is asked for, so the Host the browser names must be a
    /// loopback one: a web page whose own name was re-pointed at 127.0.0.1 (DNS
    /// rebinding) would otherwise be the studio's "own origin" and could drive it.
    public func admits(host: String?) -> Bool {
        guard !requiresToken else { return true }  // there the session cookie guards
        guard let host else { return false }
        var name = host.lowercased()
        if name.hasPrefix("[") {
            name = String(name.dropFirst().prefix { $0 != "]" })
        } else if let colon = name.lastIndex(of: ":") {
            name = String(name[..<colon])
        }
        return name == "localhost" || name == "::1" || Self.isIPv4Loopback(name)
    }

    private static func isIPv4Loopback(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    static func randomHex() -> String {
        var generator = SystemRandomNumberGenerator()  // getrandom(2): cryptographically secure
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    private static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }
}
