import DualCamCore

extension SessionManifest {
    /// What the director did in a combined file: its settings and every cut it put in
    /// the file, in order (`show --json` lists them as `director.cuts`).
    struct DirectorRecord: Codable, Equatable {
        var style: String
        var switchDelaySeconds: Double
        var minShotSeconds: Double
        var cuts: [Cut]
        /// Seconds of the take the operator held the programme by hand.
        var operatorSeconds: Double? = nil

        struct Cut: Codable, Equatable {
            /// Seconds from T0.
            var at: Double
            /// The node names of the cameras the shot shows.
            var shot: [String]
        }
    }

    /// The layout changes of a file, each marked as the director's or the operator's
    /// when a director cut it.
    static func layoutChanges(_ timeline: LayoutTimeline, direction: CompositeDirection?) -> [LayoutChange] {
        timeline.entries.map { entry in
            LayoutChange(presentationNanoseconds: entry.presentationNanoseconds, layout: entry.spec.description,
                         by: direction.map { $0.ownChanges.contains(entry.presentationNanoseconds) ? "director" : "operator" })
        }
    }
}

extension CompositeDirection {
    /// The record for the manifest, naming the cameras by `nodeNames` (in the take's order).
    func record(nodeNames: [String], timeline: LayoutTimeline, endNanoseconds: Int64) -> SessionManifest.DirectorRecord {
        let cameras = nodeNames.count
        // Time on the operator's layouts: from each change not the director's to the next.
        var manual: Int64 = 0
        let entries = timeline.entries
        for (i, entry) in entries.enumerated() where !ownChanges.contains(entry.presentationNanoseconds) {
            let end = i + 1 < entries.count ? entries[i + 1].presentationNanoseconds : endNanoseconds
            manual += max(0, min(end, endNanoseconds) - entry.presentationNanoseconds)
        }
        return .init(style: settings.style.rawValue, switchDelaySeconds: settings.tuning.switchDelay,
                     minShotSeconds: settings.tuning.minShot,
                     cuts: cuts.map { cut in
                         .init(at: Double(cut.atNanoseconds) / 1e9,
                               shot: cut.shot.shown(of: cameras).map { $0 < cameras ? nodeNames[$0] : "camera \($0 + 1)" })
                     },
                     operatorSeconds: manual > 0 ? Double(manual) / 1e9 : nil)
    }
}
