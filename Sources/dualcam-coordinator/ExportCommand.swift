import ArgumentParser
import DualCamCoordinator
import DualCamMedia
import Foundation

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a session's timeline for an editor: FCPXML, FCP 7 XML (xmeml), OpenTimelineIO or a CMX3600 EDL.",
        discussion: """
            Every camera's file and the combined one are placed where they sit on the session's shared timeline, \
            with the timecode each file carries. Media paths are relative to the timeline's file (a moved session \
            folder still opens) unless --absolute. Written beside the manifest unless --out says where (a file, or \
            a folder to write DualCam_<session>.<ext> into). Here --out is the timeline's place, as in `--out FILE`; \
            the library to find SESSION in is --library (SESSION may also be a session folder's path). See docs/EDITING.md.
            """)
    @Argument(help: "The session's ID (see `list`) or its folder's path.") var session: String
    @Option(help: "Folder holding the sessions (default: the library).") var library: String?
    @Option(help: "fcpxml (Final Cut Pro, Resolve), xmeml (Premiere Pro, Resolve), otio (Resolve, Kdenlive) or edl.")
    var format: String
    @Option(help: "Where to write it: a file, or a folder to write DualCam_<session>.<ext> into (default: the session folder).")
    var out: String?
    @Flag(help: "Absolute media paths, for editors that want them.") var absolute = false

    func validate() throws {
        _ = try ExportFormat.parse(format)
    }

    func run() throws {
        MediaLog.setQuiet()
        let found = try SessionLibrary(directories: [library ?? SessionHome.directory()]).resolve(session)
        let format = try ExportFormat.parse(format)
        var out = out
        var isDirectory: ObjCBool = false
        if let given = out, FileManager.default.fileExists(atPath: given, isDirectory: &isDirectory), isDirectory.boolValue {
            out = given + "/" + (SessionExporter.defaultPath(found, format: format) as NSString).lastPathComponent
        }
        print(try SessionExporter.export(found, format: format, out: out, absolute: absolute))
    }
}
