import CFFmpeg
import Glibc

/// Durability helpers for finished media files.
enum FileSync {
    /// fsync the file, then its directory (a new file's directory entry is only durable
    /// once the directory itself is synced).
    static func sync(path: String) throws {
        try syncOne(path, flags: O_RDONLY)
        try syncOne(directory(of: path), flags: O_RDONLY | O_DIRECTORY)
    }

    static func size(path: String) throws -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw FFmpegError(code: dc_averror(errno), call: "stat", path: path)
        }
        return Int(info.st_size)
    }

    private static func syncOne(_ path: String, flags: Int32) throws {
        let descriptor = open(path, flags | O_CLOEXEC)
        guard descriptor >= 0 else { throw FFmpegError(code: dc_averror(errno), call: "open", path: path) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw FFmpegError(code: dc_averror(errno), call: "fsync", path: path) }
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }
}
