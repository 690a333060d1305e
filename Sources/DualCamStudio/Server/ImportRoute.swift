import DualCamCoordinator
import Foundation
import Hummingbird
import NIOCore

/// "Add recording" in the library (docs/STUDIO.md): the browser sends the file's bytes as
/// the body of `POST /api/library/SESSION/import?name=FILE` (its own upload shows the
/// progress), the studio writes them to a scratch folder of the library's, then imports
/// them as `dualcam-coordinator import` does, on a thread of its own; the page polls
/// `GET /api/library` for the stage and the result. One import at a time.
extension Studio {
    /// Larger than an hour of 4K from a phone; a body past it is cut off with a sentence.
    static let maxUploadBytes: Int64 = 64 << 30

    func importRoute(_ router: Router<StudioContext>) {
        router.post("/api/library/{session}/import") { request, context in
            try await self.libraryImport(request, session: context.parameters.require("session"))
        }
    }

    private func libraryImport(_ request: Request, session id: String) async throws -> Response {
        guard access.checksCSRF(request.headers[values: .init(StudioAccess.csrfHeader)!].first) else {
            throw StudioHTTPError(403, "missing or wrong \(StudioAccess.csrfHeader) header; reload the page")
        }
        let browser = libraryBrowser
        let session: SessionFolder
        do { session = try browser.session(id) } catch { throw StudioHTTPError(404, "\(error)") }
        // Only the name's last part, as the browser's file is called: never a path.
        let given = (request.uri.queryParameters.get("name") ?? "").split(separator: "/").last.map(String.init) ?? ""
        guard !given.isEmpty, !given.hasPrefix("."), given.utf8.count <= 200, !given.contains("\0") else {
            throw StudioHTTPError(400, "name the file: ?name=FILE.wav (its own name, as the browser has it)")
        }
        let claimed = importJob.withLockedValue { job -> Bool in
            if let job, !job.finished { return false }
            job = ImportJob(session: session.id, file: given, stage: "receiving", finished: false, error: nil, summary: nil)
            return true
        }
        guard claimed else { throw StudioHTTPError(409, "an import is under way; wait for it to finish") }
        let jobs = importJob
        let scratch = browser.library.directories[0] + "/.uploads/" + UUID().uuidString
        let path = scratch + "/" + given
        do {
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
                throw StudioHTTPError(507, "the studio cannot write the upload into \(browser.library.directories[0]); nothing was imported")
            }
            defer { try? handle.close() }
            var received: Int64 = 0
            for try await buffer in request.body {
                received += Int64(buffer.readableBytes)
                guard received <= Self.maxUploadBytes else {
                    throw StudioHTTPError(413, "the file is over \(Self.maxUploadBytes >> 30) GiB; import it on the laptop with "
                        + "`dualcam-coordinator import \(session.id) FILE` instead")
                }
                do {
                    try handle.write(contentsOf: buffer.readableBytesView)
                } catch {
                    throw StudioHTTPError(507, "the library's disk would not take the upload (\(error.localizedDescription)); "
                        + "nothing was imported. Free some space and try again")
                }
            }
        } catch {
            try? FileManager.default.removeItem(atPath: scratch)
            jobs.withLockedValue { $0?.finished = true; $0?.error = "\(error)" }
            throw error
        }
        let library = browser.library
        Thread.detachNewThread {
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            do {
                let outcomes = try SessionImporter.run(session: session, files: [path], name: nil, library: library,
                                                       sourceNames: ["\(given), uploaded from the studio"]) { stage in
                    jobs.withLockedValue { $0?.stage = stage.replacingOccurrences(of: path, with: given) }
                }
                let summary = outcomes.map {
                    String(format: "Imported %@: recorded from %+.3f s of the take, drift %+.1f ppm, confidence %.0f %%",
                           $0.name, $0.offsetSeconds, $0.driftPPM, $0.confidence * 100)
                        + ($0.video.map { ", \($0.pictures) pictures" } ?? "")
                }.joined(separator: "; ")
                jobs.withLockedValue { $0?.finished = true; $0?.summary = summary }
            } catch {
                jobs.withLockedValue { $0?.finished = true; $0?.error = "\(error)".replacingOccurrences(of: path, with: given) }
            }
        }
        return try WebFileResponse.json(["ok": true])
    }
}

/// An import started from the studio, as the page polls it.
struct ImportJob: Codable, Sendable {
    var session: String
    var file: String
    /// What it is doing: "receiving", "aligning …", "writing …".
    var stage: String
    var finished: Bool
    /// Why it was refused, in the importer's words.
    var error: String?
    /// What it placed where.
    var summary: String?
}
