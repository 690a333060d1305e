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
