import DualCamCoordinator
import DualCamCore
import DualCamMedia
import Foundation
import Hummingbird
import HummingbirdWebSocket


/// The library's HTTP side (docs/STUDIO.md, "Library"): the sessions, their files (with
/// range requests, so the browser's player can seek in an MP4), timelines, recompose with
/// progress and delete with confirmation. Every name in a URL is matched against what the
/// session lists (`LibraryBrowser`), never used as a path.
extension Studio {
    var libraryBrowser: LibraryBrowser {
        LibraryBrowser(directory: plan.withLockedValue { $0.base.outputDirectory })
    }

    func libraryRoutes(_ router: Router<StudioContext>) {
        router.get("/api/library") { _, _ in
            try WebFileResponse.json(LibraryListing(sessions: self.libraryBrowser.cards(), recompose: self.recomposeJob.withLockedValue { $0 },
                                                    importJob: self.importJob.withLockedValue { $0 }))
        }
        router.get("/api/library/{session}") { _, context in
            let browser = self.libraryBrowser
            let session = try Self.found { try browser.session(context.parameters.require("session")) }
            return try WebFileResponse.json(browser.card(session))
        }
        importRoute(router)
        router.post("/api/library/{session}/{action}") { request, context in
            try await self.libraryAction(request, session: context.parameters.require("session"),
                                         action: context.parameters.require("action"))
        }
        router.get("/library/{session}/{name}") { request, context in
            try await self.libraryFile(request, session: context.parameters.require("session"),
                                       name: context.parameters.require("name"), context: context)
        }
    }

    private static func found<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as CoordinatorError { throw StudioHTTPError(404, "\(error)") }
    }

    private func libraryAction(_ request: Request, session id: String, action: String) async throws -> Response {
        let asked = try await decodedBody(request, as: LibraryRequest.self, empty: LibraryRequest())
        let browser = libraryBrowser
        let session = try Self.found { try browser.session(id) }
        do {
            switch action {
            case "export":
                let format = try ExportFormat.parse(asked.format ?? "")
                let path: String
                do {
                    path = try SessionExporter.export(session, format: format)
                } catch let error as CoordinatorError {
                    throw error
                } catch {
                    // FFmpeg could not read a file the manifest names: the session's, not the request's, fault.
                    throw StudioHTTPError(422, "\(session.id) could not be exported as \(format.rawValue): \(error); nothing "
                        + "was written. A file of the session may be damaged: `dualcam-coordinator show \(session.id)` lists them")
                }
                return try WebFileResponse.json(["name": (path as NSString).lastPathComponent])
            case "recompose":
                try startRecompose(session, asked)
                return try WebFileResponse.json(["ok": true])
            case "delete":
                // The terminal asks "delete <id>?" with what goes; here the page must say
                // the session's ID back, after showing the same.
                guard asked.confirm == session.id else {
                    throw StudioHTTPError(400, "deleting \(session.id) needs \"confirm\": \"\(session.id)\" (its ID, as a confirmation)")
                }
                if recomposeJob.withLockedValue({ $0.map { $0.session == session.id && !$0.finished } ?? false }) {
                    throw StudioHTTPError(409, "\(session.id) is being recomposed; wait for it to finish")
                }
                try browser.library.delete(session)
                return try WebFileResponse.json(["ok": true])
            default:
                throw StudioHTTPError(404, "unknown library action '\(action.prefix(40))'; expected export, recompose or delete")
            }
        } catch let error as CoordinatorError {
            throw StudioHTTPError(409, "\(error)")
        }
    }

    /// Recomposes on a thread of its own (FFmpeg blocks), one at a time; the page polls
    /// `GET /api/library` for its progress.
    private func startRecompose(_ session: SessionFolder, _ asked: LibraryRequest) throws {
        var request = RecomposeRequest()
        do {
            if let text = asked.layout, !text.isEmpty { request.layout = try LayoutSpec(parsing: text) }
            if let name = asked.filter, !name.isEmpty {
                request.filter = try CommandRequest.checkedFilter(named: name, intensity: asked.intensity ?? 100)
            }
        } catch {
            throw StudioHTTPError(400, "\(error)")
        }
        if let preset = asked.preset, !preset.isEmpty {
            guard Self.presets.contains(preset) else {
                throw StudioHTTPError(400, "preset \(preset.prefix(40)) is not one of \(Self.presets.joined(separator: ", "))")
            }
            request.preset = preset
        }
        let claimed = recomposeJob.withLockedValue { job -> Bool in
            if let job, !job.finished { return false }
            job = RecomposeJob(session: session.id, fraction: 0, framesPerSecond: 0, finished: false, error: nil, file: nil)
            return true
        }
        guard claimed else { throw StudioHTTPError(409, "a recompose is under way; wait for it to finish") }
        let jobs = recomposeJob
        let asked = request
        let clock = self.clock
        Thread.detachNewThread {
            do {
                let result = try Recomposer.run(session, request: asked, clock: clock) { p in
                    jobs.withLockedValue {
                        $0?.fraction = p.framesExpected > 0 ? min(Double(p.framesComposed) / Double(p.framesExpected), 1) : 0
                        $0?.framesPerSecond = p.framesPerSecond
                    }
                }
                jobs.withLockedValue {
                    $0?.finished = true
                    $0?.fraction = 1
                    $0?.file = (result.combinedFile as NSString).lastPathComponent
                }
            } catch {
                jobs.withLockedValue {
                    $0?.finished = true
                    $0?.error = "\(error)"
                }
            }
        }
    }

    /// A session's file, whole or the byte range asked for (206), with its type.
    private func libraryFile(_ request: Request, session: String, name: String,
                             context: StudioContext) async throws -> Response {
        guard let path = libraryBrowser.path(session: session, name: name) else {
            throw StudioHTTPError(404, "\(name.prefix(80)) is not a file of session \(session.prefix(40))")
        }
        let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
        var headers: HTTPFields = [.contentType: Self.contentType(name), .acceptRanges: "bytes", .cacheControl: "no-store"]
        if request.uri.queryParameters.get("download") != nil {
            headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        }
        if let text = request.headers[.range] {
            guard let range = ByteRange.parse(text, size: size) else {
                headers[.contentRange] = "bytes */\(size)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
            let body = try await FileIO().loadFile(path: path, range: range, context: context)
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
            headers[.contentLength] = "\(range.count)"
            return Response(status: .partialContent, headers: headers, body: body)
        }
        headers[.contentLength] = "\(size)"
        let body = try await FileIO().loadFile(path: path, context: context)
        return Response(status: .ok, headers: headers, body: body)
    }

    /// What the studio's recompose offers: every preset but `placebo` (hours for a take).
    static let presets = VideoEncoderSettings.presets.filter { $0 != "placebo" }

    static func contentType(_ name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "mp4": "video/mp4"
        case "wav": "audio/wav"
        case "jpg": "image/jpeg"
        case "json", "otio": "application/json"
        case "fcpxml", "xml": "application/xml"
        default: "text/plain; charset=utf-8"
        }
    }
}

/// `GET /api/library`.
struct LibraryListing: Encodable {
    var sessions: [LibraryBrowser.Card]
    var recompose: RecomposeJob?
    var importJob: ImportJob?
}

/// A recompose started from the studio, as the page polls it.
struct RecomposeJob: Codable, Sendable {
    var session: String
    var fraction: Double
    var framesPerSecond: Double
    var finished: Bool
    var error: String?
    /// The file it wrote, once finished.
    var file: String?
}

/// The body of `POST /api/library/SESSION/ACTION`.
struct LibraryRequest: Decodable {
    var format: String?
    var layout: String?
    var filter: String?
    var intensity: Int?
    var preset: String?
    var confirm: String?
}
