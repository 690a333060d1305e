import DualCamCore

/// The timelines `export` writes, by the name `--format` takes.
public enum ExportFormat: String, CaseIterable, Sendable {
    case fcpxml, xmeml, otio, edl

    /// The file's extension: xmeml is plain `.xml`, as Premiere and Resolve look for it.
    public var fileExtension: String {
        switch self {
        case .fcpxml: "fcpxml"
        case .xmeml: "xml"
        case .otio: "otio"
        case .edl: "edl"
        }
    }

    func text(_ timeline: EditTimeline) -> String {
        switch self {
        case .fcpxml: FCPXMLWriter.text(timeline)
        case .xmeml: XMEMLWriter.text(timeline)
        case .otio: OTIOWriter.text(timeline)
        case .edl: EDLWriter.text(timeline)
        }
    }

    public static func parse(_ text: String) throws -> ExportFormat {
        guard let format = ExportFormat(rawValue: text.lowercased()) else {
            throw CoordinatorError("--format \(text.prefix(40)) is not a timeline format: give fcpxml, xmeml, otio or edl")
        }
        return format
    }
}
