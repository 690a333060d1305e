import Hummingbird
import Logging
import NIOCore

/// Turns away every request without a session when the studio needs one (beyond
/// loopback); the page itself with the token in its query is how one is got. Wrong
/// tokens and cookies are counted per address (`TokenGuesses`). Every refusal, the
/// router's and Hummingbird's own included, is answered with a JSON sentence.
struct AccessMiddleware: RouterMiddleware {
    typealias Context = StudioContext
    let access: StudioAccess
    let guesses: TokenGuesses
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard access.admits(host: request.head.authority) else {
            throw StudioHTTPError(403, "this studio listens on loopback and answers only to localhost addresses; "
                + "open http://127.0.0.1:PORT/, or serve it with --listen ADDR:PORT for other devices")
        }
        if request.uri.path == "/" && request.uri.queryParameters.get("token") != nil {
            try refuseWhileGuessing(context)
            do {
                let response = try await next(request, context)
                context.admitted()
                return response
            } catch let error as StudioHTTPError where error.status == .unauthorized {
                wrong(context)
                throw error
            }
        }
        let cookie = request.cookies[StudioAccess.cookieName]?.value
        guard access.admits(session: cookie) else {
            // A browser holding its session is never held up by a guesser at the same
            // address (a NAT, this machine); an unknown cookie counts as a guess.
            if cookie != nil {
                try refuseWhileGuessing(context)
                wrong(context)
            }
            throw StudioHTTPError(401, "this studio needs the link with its token, printed on the coordinator's terminal")
        }
        context.admitted()
        do {
            return try await next(request, context)
        } catch let error as StudioHTTPError {
            throw error
        } catch let error as NIOTooManyBytesError {
            throw StudioHTTPError(413, "the request's body is over \(error.maxBytes.map { "\($0 / 1024) KiB" } ?? "the limit"); "
                + "the studio's requests are small JSON objects (docs/STUDIO.md)")
        } catch let error as HTTPError where error.status == .notFound || error.status == .methodNotAllowed {
            // The router's own refusals carry no body; the page and scripts read JSON.
            throw StudioHTTPError(Int(error.status.code), "no \(request.method) \(request.uri.path) here; see docs/STUDIO.md")
        } catch let error as any HTTPResponseError {
            throw StudioHTTPError(Int(error.status.code), "the studio refused \(request.method) \(request.uri.path): "
                + "\(error.status.reasonPhrase) (\(error)); see docs/STUDIO.md")
        } catch {
            logger.error("studio: \(request.method) \(request.uri.path) failed: \(error)")
            throw StudioHTTPError(500, "the studio could not answer \(request.method) \(request.uri.path): \(error); "
                + "the coordinator's log has the details")
        }
    }

    private func refuseWhileGuessing(_ context: Context) throws {
        if let seconds = guesses.waitBeforeTrying(context.peer) {
            throw StudioHTTPError(429, "too many wrong tokens or session cookies from this address; wait \(seconds) s, "
                + "then open the link the coordinator's terminal prints now")
        }
    }

    private func wrong(_ context: Context) {
        if let words = guesses.wrong(context.peer) { logger.warning("\(words)") }
    }
}
