import DualCamCore
import Foundation

/// Reading and rewriting a finished session's `manifest.json`.
extension SessionManifest {
    static let fileName = "manifest.json"

    static func read(sessionDirectory: String) throws -> SessionManifest {
        let path = sessionDirectory + "/" + fileName
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CoordinatorError("cannot read \(path): \(error.localizedDescription)")
        }
        let manifest: SessionManifest
        do {
            manifest = try JSONDecoder().decode(SessionManifest.self, from: withDefaults(data))
        } catch {
            throw CoordinatorError("\(path) is not a readable session manifest: \(DecodingProblem.text(error))")
        }
        let problems = manifest.problems
        guard problems.isEmpty else {
            throw CoordinatorError("\(path) holds impossible values (\(problems.joined(separator: "; ")))")
        }
        return manifest
    }

    /// Fields added to the manifest later with a default value are still required by
    /// the synthesized decoder; an older manifest gets them filled in here, so that
    /// sessions recorded before a field existed stay readable.
    private static var laterTopFields: [String: Any] { ["stopSharedNanoseconds": 0] }
    private static var laterCompositeFields: [String: Any] { ["timeline": [Any]()] }
    private static var laterCameraFields: [String: Any] {
        ["clockRoundTripNanoseconds": 0, "reconnects": 0, "rejoins": 0, "missingSegments": [Any]()]
    }

    private static func withDefaults(_ data: Data) throws -> Data {
        guard var top = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { return data }
        func fill(_ object: inout [String: Any], _ defaults: [String: Any]) {
            for (key, value) in defaults where object[key] == nil { object[key] = value }
        }
        fill(&top, laterTopFields)
        if var composite = top["composite"] as? [String: Any] {
            fill(&composite, laterCompositeFields)
            top["composite"] = composite
        }
        if let cameras = top["cameras"] as? [[String: Any]] {
            top["cameras"] = cameras.map { camera -> [String: Any] in
                guard var statistics = camera["statistics"] as? [String: Any] else { return camera }
                fill(&statistics, laterCameraFields)
                var filled = camera
                filled["statistics"] = statistics
                return filled
            }
        }
        return try JSONSerialization.data(withJSONObject: top)
    }

    /// Written to a temporary file and renamed over the old one, so that a crash leaves
    /// either manifest whole, never half of one. Same formatting as the recorder's.
    func write(sessionDirectory: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: sessionDirectory + "/" + Self.fileName), options: .atomic)
    }

    /// The composite's layout over the session, as recorded: the initial layout and
    /// every change made while recording.
    func compositeTimeline() throws -> LayoutTimeline {
        do {
            let edition = LayoutEdition(stored: composite.layoutEdition)
            var timeline = LayoutTimeline(initial: try LayoutSpec(parsing: composite.layout, edition: edition))
            for change in composite.timeline {
                timeline.change(at: change.presentationNanoseconds, to: try LayoutSpec(parsing: change.layout, edition: edition))
            }
            return timeline
        } catch {
            throw CoordinatorError("the manifest's layout cannot be replayed (\(error)); give one with --layout")
        }
    }

    /// The composite's filter over the session, as recorded: the first and every change
    /// made while recording.
    func compositeFilters() throws -> ChangeTimeline<FilterSetting> {
        var filters = ChangeTimeline(initial: try Self.filterSetting(composite.filter))
        for change in composite.filterTimeline ?? [] {
            filters.change(at: change.presentationNanoseconds, to: try Self.filterSetting(change.filter))
        }
        return filters
    }

    /// The combined file's sound mix over the session, as recorded.
    func compositeMixes() throws -> ChangeTimeline<AudioMixSpec> {
        var mixes = ChangeTimeline(initial: try composite.mix.map { try AudioMixSpec(parsing: $0) } ?? .all)
        for change in composite.mixTimeline ?? [] {
            mixes.change(at: change.presentationNanoseconds, to: try AudioMixSpec(parsing: change.mix))
        }
        return mixes
    }

    /// A filter from the text the recorder writes ("vivid 80%").
    private static func filterSetting(_ text: String) throws -> FilterSetting {
        do {
            return try FilterSetting(parsing: text)
        } catch {
            throw CoordinatorError("the manifest's filter '\(text)' cannot be replayed; give one with --filter")
        }
    }

}
