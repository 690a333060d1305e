import Testing
@testable import DualCamStudio

@Suite struct StudioAccessTests {
    @Test func onLoopbackNoTokenIsNeeded() {
        let access = StudioAccess(requiresToken: false)
        #expect(access.token == nil)
        #expect(access.admits(session: nil))
    }

    @Test func theTokenWorksOnceAndANewOneTakesItsPlace() throws {
        let access = StudioAccess(requiresToken: true)
        let first = try #require(access.token)
        #expect(!access.admits(session: nil))
        #expect(!access.admits(session: "guess"))
        let session = try #require(access.exchange(token: first))
        #expect(access.admits(session: session))
        #expect(access.exchange(token: first) == nil, "a used token is spent")
        let second = try #require(access.token)
        #expect(second != first)
        // One digit changed (never to itself: a token may start with 0).
        let wrong = (second.first == "0" ? "1" : "0") + second.dropFirst()
        #expect(access.exchange(token: wrong) == nil)
        #expect(access.exchange(token: second) != nil)
    }

    @Test func csrfMustMatchExactly() {
        let access = StudioAccess(requiresToken: false)
        #expect(access.checksCSRF(access.csrf))
        #expect(!access.checksCSRF(nil))
        #expect(!access.checksCSRF(""))
        #expect(!access.checksCSRF(access.csrf + "0"))
    }

    @Test func onLoopbackOnlyLoopbackHostsAreAnswered() {
        let loopback = StudioAccess(requiresToken: false)
        for host in ["127.0.0.1:8080", "localhost:8080", "LOCALHOST", "[::1]:8080", "127.1.2.3:80"] {
            #expect(loopback.admits(host: host), "\(host)")
        }
        // A page whose name was re-pointed at 127.0.0.1 (DNS rebinding) names its own host.
        for host in ["evil.example:8080", "127.0.0.1.evil.example:8080", "localhost.evil:8080", "10.0.0.1:8080", "", "[::2]:8080"] {
            #expect(!loopback.admits(host: host), "\(host)")
        }
        #expect(!loopback.admits(host: nil))
        #expect(StudioAccess(requiresToken: true).admits(host: "studio.lan:8080"), "beyond loopback the cookie guards")
    }

    @Test func theWebSocketsOriginMustBeTheStudiosOwn() {
        #expect(StudioAccess.originMatches(origin: "http://127.0.0.1:8080", host: "127.0.0.1:8080"))
        #expect(StudioAccess.originMatches(origin: "https://studio.local:8443", host: "studio.local:8443"))
        #expect(StudioAccess.originMatches(origin: "http://[::1]:8080", host: "[::1]:8080"))
        #expect(!StudioAccess.originMatches(origin: "http://evil.example:8080", host: "127.0.0.1:8080"))
        #expect(!StudioAccess.originMatches(origin: "http://127.0.0.1:9999", host: "127.0.0.1:8080"))
        #expect(!StudioAccess.originMatches(origin: "null", host: "127.0.0.1:8080"))
        #expect(!StudioAccess.originMatches(origin: nil, host: "127.0.0.1:8080"))
        #expect(!StudioAccess.originMatches(origin: "file:///x", host: "127.0.0.1:8080"))
    }
}
