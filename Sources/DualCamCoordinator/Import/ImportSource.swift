import DualCamCore
import DualCamMedia
import Foundation

/// A file offered for import, checked before anything is written: every refusal is a
/// sentence that names the file and says what to do.
struct ImportSource {
    let path: String
    let formatDescription: String
    let sampleRate: Int
    let channels: Int
    let hasPictures: Bool
    let sizeBytes: Int64

    init(path: String) throws {
        let shown = "'\(path)'"
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw CoordinatorError("cannot import \(shown): there is no such file")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw CoordinatorError("cannot import \(shown): it is not a file (a folder?); name the recording itself")
        }
        guard status.st_size > 0 else {
            throw CoordinatorError("cannot import \(shown): it is empty (0 bytes); copy the recording from its card again")
        }
        if let problem = SoundFileReader.problem(path: path) {
            throw CoordinatorError("cannot import \(shown): \(problem). DualCam imports sound (WAV, FLAC, MP3, AAC/M4A) "
                + "and video with sound (MP4, MOV)")
        }
        if let (promised, held) = WAVInfo(path: path)?.shortfall {
            throw CoordinatorError(String(format: "cannot import %@: it is cut short: its header promises %.1f s of sound "
                + "but it holds %.1f s (a recorder that lost power, or a copy that stopped). Copy it from the recorder "
                + "again, or rewrite its header with `ffmpeg -i %@ -c copy repaired.wav` and import repaired.wav",
                shown, promised, held, shown))
        }
        let reader = try SoundFileReader(path: path, sampleRate: SoundAlignment.rate, channels: 1)
        self.path = path
        formatDescription = reader.formatDescription
        sampleRate = reader.sourceSampleRate
        channels = reader.sourceChannels
        hasPictures = reader.hasPictures
        sizeBytes = Int64(status.st_size)
    }

    /// The file's sound, mono at the alignment's rate.
    func analysisSound() throws -> [Float] {
        try SoundFileReader(path: path, sampleRate: SoundAlignment.rate, channels: 1).readAll()
    }
}
