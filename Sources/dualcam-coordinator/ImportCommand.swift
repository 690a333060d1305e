import ArgumentParser
import DualCamCoordinator
import DualCamMedia
import Foundation

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add other recorders' files (a sound recorder, a phone, an action camera) to a session, aligned by their sound.",
        discussion: """
            Each FILE (WAV/BWF, FLAC, MP3, AAC/M4A; MP4/MOV with sound) is placed on the session's timeline by \
            matching its sound against the cameras' own, its clock's drift measured and taken out. An aligned copy \
            (48 kHz BWF whose first sample is T0, with the cameras' timecode) is written in the session's imports/ \
            folder, the original is kept untouched beside it, and the manifest lists the import. A file that does not \
            match the take's sound is refused and nothing is changed. See docs/IMPORT.md.
            """)
    @Argument(help: "The session's ID (see `list`) or its folder's path.") var session: String
    @Argument(help: "The files to import.") var files: [String] = []
    @Option(help: "The import's name (default: the file's name); with several files, NAME-1, NAME-2, ...") var name: String?
    @Option(help: "Remove the import NAME (its copies and its entry) instead of importing.") var remove: String?
    @OptionGroup var folder: LibraryFolderOption

    func validate() throws {
        if remove != nil, !files.isEmpty { throw ValidationError("--remove takes no files: give either files to import or --remove NAME") }
        if remove == nil, files.isEmpty { throw ValidationError("name at least one file to import (or --remove NAME)") }
    }

    func run() throws {
        MediaLog.setQuiet()
        let found = try LibraryCommandSupport.resolve(session, in: folder)
        if let remove {
            let removed = try SessionImporter.remove(session: found, name: remove, library: folder.library)
            print("Removed import \(remove) from \(found.id)" + (removed.isEmpty ? "" : " (\(removed.joined(separator: ", ")))"))
            return
        }
        let outcomes = try SessionImporter.run(session: found, files: files, name: name, library: folder.library) {
            FileHandle.standardError.write(Data(($0 + "\n").utf8))
        }
        for o in outcomes {
            print("Imported \(o.name): \(o.file)")
            print(String(format: "  recorded from %+.4f s of the take, drift %+.1f ppm, confidence %.0f %%, aligned in %.1f s",
                         o.offsetSeconds, o.driftPPM, o.confidence * 100, o.alignSeconds))
            if o.pieces > 1 { print("  the recorder was paused: \(o.pieces) pieces, each placed on its own") }
            if o.beforeT0Seconds > 0.0005 {
                print(String(format: "  its first %.1f s were recorded before the take began and are not in the aligned copy (the original keeps them)", o.beforeT0Seconds))
            }
            let sync = o.lipSyncMs.map { $0.map { String(format: "%+.2f ms", $0) } ?? "silent" }
            print("  against the cameras' sound after alignment: start \(sync[0]), middle \(sync[1]), end \(sync[2])")
            if let video = o.video {
                print(String(format: "  its pictures: %@, %d copied from %+.3f s of the take", video.file, video.pictures, video.firstPictureSeconds)
                    + (video.leftOut > 0 ? ", \(video.leftOut) recorded before the take left out (the original keeps them)" : ""))
            }
        }
    }
}
