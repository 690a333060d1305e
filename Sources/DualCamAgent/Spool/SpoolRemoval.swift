import Foundation
import Glibc

extension SegmentSpool {
    /// Removes a session's folder with every file in it (segments, manifest, index lists,
    /// a segment cut short) and returns the bytes its files held, or nil when the spool
    /// holds no such session.
    ///
    /// The walk goes through directory descriptors opened with O_NOFOLLOW and unlinks
    /// names relative to them, so a symbolic link anywhere in the folder is removed as a
    /// link, never followed, and a folder swapped for a link while the walk runs is not
    /// entered: what goes is only ever inside the spool. A session "folder" that is itself
    /// a link is refused.
    public func remove(session: String) throws -> Int64? {
        let directory = try checkedDirectory(session)
        var status = stat()
        guard lstat(directory, &status) == 0 else {
            if errno == ENOENT { return nil }
            throw SpoolError.system("lstat", errno, directory)
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw SpoolError("\(directory) is not a folder (a symbolic link or a file put there by hand); it is left alone")
        }
        let rootDescriptor = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard rootDescriptor >= 0 else { throw SpoolError.system("open", errno, root) }
        defer { close(rootDescriptor) }
        let freed = try Self.removeFolder(named: session, in: rootDescriptor, path: directory, depth: 0)
        return freed
    }

    /// A session folder holds files only; anything nested deeper than this was not put
    /// there by the agent and is not worth an unbounded recursion.
    private static let maxDepth = 8

    private static func removeFolder(named name: String, in parent: Int32, path: String, depth: Int) throws -> Int64 {
        guard depth <= maxDepth else { throw SpoolError("\(path) is nested deeper than \(maxDepth) folders; left alone") }
        let descriptor = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw SpoolError.system("open", errno, path) }
        // fdopendir takes its own descriptor, closed by closedir.
        let listing = dup(descriptor)
        guard listing >= 0, let stream = fdopendir(listing) else {
            let failure = SpoolError.system("opendir", errno, path)
            if listing >= 0 { close(listing) }
            close(descriptor)
            throw failure
        }
        var names: [String] = []
        while let entry = readdir(stream) {
            let entryName = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if entryName != "." && entryName != ".." { names.append(entryName) }
        }
        closedir(stream)
        defer { close(descriptor) }
        var freed: Int64 = 0
        for entryName in names {
            var status = stat()
            guard fstatat(descriptor, entryName, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
                if errno == ENOENT { continue }
                throw SpoolError.system("stat", errno, path + "/" + entryName)
            }
            if status.st_mode & S_IFMT == S_IFDIR {
                freed += try removeFolder(named: entryName, in: descriptor, path: path + "/" + entryName, depth: depth + 1)
                continue
            }
            guard unlinkat(descriptor, entryName, 0) == 0 || errno == ENOENT else {
                throw SpoolError.system("unlink", errno, path + "/" + entryName)
            }
            if status.st_mode & S_IFMT == S_IFREG { freed += Int64(status.st_size) }
        }
        guard unlinkat(parent, name, AT_REMOVEDIR) == 0 else { throw SpoolError.system("rmdir", errno, path) }
        return freed
    }
}

extension SpoolError {
    /// A failed system call, with its errno read at once.
    static func system(_ call: String, _ code: Int32, _ path: String) -> SpoolError {
        SpoolError("\(call) \(path): \(String(cString: strerror(code)))")
    }
}
