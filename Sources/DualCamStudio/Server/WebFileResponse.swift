import Foundation
import Hummingbird
import NIOCore

/// Responses built from the embedded page files and from JSON values.
enum WebFileResponse {
    static func file(_ name: String) throws -> Response {
        guard let file = WebFiles.files[name], let bytes = Data(base64Encoded: file.base64) else {
            throw StudioHTTPError(404, "no file \(name) in the studio")
        }
        // The page is small and changes with the binary: no caching keeps a new version's
        // page from meeting an old script.
        return Response(status: .ok, headers: [.contentType: file.contentType, .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(value)
        return Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// A refusal the page can show: a status and `{"error": "..."}`.
struct StudioHTTPError: Error, HTTPResponseError {
    let status: HTTPResponse.Status
    let message: String

    init(_ code: Int, _ message: String) {
        status = HTTPResponse.Status(code: code)
        self.message = message
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try WebFileResponse.json(["error": message])
        response.status = status
        return response
    }
}

/// Turns away every request without a session when the studio needs one (beyond
/// loopback); the page itself with the token in its query is how one is got.
struct AccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: StudioAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard access.admits(host: request.head.authority) else {
            throw StudioHTTPError(403, "this studio listens on loopback and answers only to localhost addresses; "
                + "open http://127.0.0.1:PORT/, or serve it with --listen ADDR:PORT for other devices")
        }
        if request.uri.path == "/" && request.uri.queryParameters.get("token") != nil {
            return try await next(request, context)
        }
        guard access.admits(session: request.cookies[StudioAccess.cookieName]?.value) else {
            throw StudioHTTPError(401, "this studio needs the link with its token, printed on the coordinator's terminal")
        }
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound || error.status == .methodNotAllowed {
            // The router's own refusals carry no body; the page and scripts read JSON.
            throw StudioHTTPError(Int(error.status.code), "no \(request.method) \(request.uri.path) here; see docs/STUDIO.md")
        }
    }
}
