import DualCamMedia
import Foundation

/// `demo --audio-files`: the files are checked here, before any agent starts, because
/// an agent refusing its file would only show as an agent that never came up.
enum DemoSoundFiles {
    /// The files as absolute paths (the agents run in another folder), one per agent;
    /// nil when the demo plays none.
    static func check(_ options: DemoOptions) throws -> [String]? {
        let files = options.audioFiles
        guard !files.isEmpty else { return nil }
        guard options.sound else {
            throw CoordinatorError("--audio-files and --no-sound exclude each other: drop one")
        }
        guard files.count == options.cameras else {
            throw CoordinatorError("--audio-files names \(files.count) file\(files.count == 1 ? "" : "s") for \(options.cameras) "
                + "agents: give one per agent, host first, then guest, then any extra cameras, separated by commas")
        }
        let folder = FileManager.default.currentDirectoryPath
        return try files.map { file in
            let path = file.hasPrefix("/") ? file : folder + "/" + file
            if let problem = SoundFileReader.problem(path: path) {
                throw CoordinatorError("--audio-files: \(file): \(problem); give sound files FFmpeg can decode (WAV, FLAC, MP3, Ogg, ...)")
            }
            return path
        }
    }
}
