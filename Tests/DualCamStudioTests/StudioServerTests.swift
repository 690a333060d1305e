import DualCamCoordinator
import DualCamNet
import Foundation
import Logging
import Testing
@testable import DualCamStudio
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The studio's HTTP side over a real socket, on a rig with no agent: access rules, and
/// bad commands answered with a JSON error that changes nothing.
@Suite(.serialized) struct StudioServerTests {
    struct Running {
        let studio: Studio
        let port: Int
        let task: Task<Void, any Error>
        let rigLoop: Task<Void, Never>
        let rig: Rig
        func stop() {
            task.cancel()
            rig.shutdown(sendShutdown: false)
        }
    }

    func start(host: String) async throws -> Running {
        let identity = try DeviceIdentity.generate(commonName: "studio-test")
        let rig = Rig(agents: [], identity: identity, logger: Logger(label: "test"))
        let loop = Task { await rig.run() }
        let plan = TakePlan(agents: [], outputDirectory: NSTemporaryDirectory(), durationSeconds: nil)
        let studio = Studio(rig: rig, plan: plan, host: host, port: 0, logger: Logger(label: "studio-test"))
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await studio.run(onListening: { portSink.yield($0) }) }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        return Running(studio: studio, port: port, task: task, rigLoop: loop, rig: rig)
    }

    /// A session that follows no redirects and keeps no cookies: each request says what it carries.
    final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }

    func fetch(_ url: String, method: String = "GET", headers: [String: String] = [:], body: String? = nil) async throws
        -> (status: Int, headers: [AnyHashable: Any], body: String)
    {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.httpShouldHandleCookies = false
        for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
        if let body { request.httpBody = Data(body.utf8) }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        let session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        return (http.statusCode, http.allHeaderFields, String(decoding: data, as: UTF8.self))
    }

    @Test func onLoopbackThePageAndStateAreServedAndCommandsNeedTheCSRFHeader() async throws {
        let s = try await start(host: "127.0.0.1")
        defer { s.stop() }
        let base = "http://127.0.0.1:\(s.port)"
        let page = try await fetch(base + "/")
        #expect(page.status == 200)
        #expect(page.body.contains("<html"))
        let state = try await fetch(base + "/api/state")
        #expect(state.status == 200)
        let json = try JSONSerialization.jsonObject(with: Data(state.body.utf8)) as! [String: Any]
        let csrf = try #require(json["csrf"] as? String)
        #expect(json["busy"] as? Bool == false)

        let noHeader = try await fetch(base + "/api/command", method: "POST", body: #"{"command":"stop"}"#)
        #expect(noHeader.status == 403)
        #expect(noHeader.body.contains("X-DualCam-CSRF"))

        let h = ["X-DualCam-CSRF": csrf, "Content-Type": "application/json"]
        let stop = try await fetch(base + "/api/command", method: "POST", headers: h, body: #"{"command":"stop"}"#)
        #expect(stop.status == 409)
        #expect(stop.body.contains("\"error\""))
        let badLayout = try await fetch(base + "/api/command", method: "POST", headers: h,
                                        body: #"{"command":"layout","layout":"diagonal"}"#)
        #expect(badLayout.status == 400)
        #expect(badLayout.body.contains("unknown layout"))
        let notJSON = try await fetch(base + "/api/command", method: "POST", headers: h, body: "start")
        #expect(notJSON.status == 400)
        let badSize = try await fetch(base + "/api/command", method: "POST", headers: h,
                                      body: #"{"command":"start","width":641}"#)
        #expect(badSize.status == 400)
        // A start with no agent is refused by the rig: nothing changed.
        let start = try await fetch(base + "/api/command", method: "POST", headers: h, body: #"{"command":"start"}"#)
        #expect(start.status == 409)
        #expect(start.body.contains("no agent"))
        let after = try await fetch(base + "/api/state")
        #expect(after.body.contains("\"busy\":false"))

        // Before a take, a layout sets the next take's layout.
        let layout = try await fetch(base + "/api/command", method: "POST", headers: h,
                                     body: #"{"command":"layout","layout":"grid"}"#)
        #expect(layout.status == 200)
        #expect(try await fetch(base + "/api/state").body.contains("\"kind\":\"grid\""))

        #expect(try await fetch(base + "/files/x/../../etc/passwd").status == 404)
        // DNS rebinding: a foreign name pointing at 127.0.0.1 is refused.
        let rebound = try await fetch(base + "/api/state", headers: ["Host": "evil.example:\(s.port)"])
        #expect(rebound.status == 403 && rebound.body.contains("localhost"), "\(rebound)")
        #expect(try await fetch(base + "/static/nothing.js").status == 404)
    }

    @Test func beyondLoopbackEverythingNeedsTheOneTimeTokensSession() async throws {
        let s = try await start(host: "0.0.0.0")
        defer { s.stop() }
        let base = "http://127.0.0.1:\(s.port)"
        for path in ["/", "/api/state", "/static/app.js", "/ws"] {
            let refused = try await fetch(base + path)
            #expect(refused.status == 401, "\(path)")
            #expect(refused.body.contains("token"), "\(path)")
        }
        #expect(try await fetch(base + "/?token=wrong").status == 401)
        let token = try #require(s.studio.access.token)
        let exchanged = try await fetch(base + "/?token=\(token)")
        #expect(exchanged.status == 303)
        let setCookie = try #require(exchanged.headers["Set-Cookie"] as? String)
        #expect(setCookie.contains("HttpOnly"))
        #expect(setCookie.lowercased().contains("samesite=strict"))
        let cookie = String(setCookie.split(separator: ";")[0])
        #expect(try await fetch(base + "/api/state", headers: ["Cookie": cookie]).status == 200)
        #expect(try await fetch(base + "/?token=\(token)").status == 401, "the token works once")
        #expect(s.studio.url(port: s.port).contains("token="))
    }
}
