import Foundation

/// Runs the built `dualcam-coordinator demo` as a user would, and collects what it prints.
struct DemoRun {
    var exitCode: Int32
    var stdout: String
    var stderr: String

    /// The executables sit next to the test bundle in SwiftPM's build folder.
    static var binDirectory: String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return (me as NSString).deletingLastPathComponent
    }

    /// The tests run the debug build, whose TLS and protobuf code makes a loopback round
    /// trip 3-4x longer than the release build's (docs/MEASUREMENTS.md); the start
    /// gate allows for that. What the tests assert is the sync measured in the files.
    static let debugBuildClockGate = ["--clock-threshold-us", "2500"]

    static func run(_ arguments: [String], timeout: TimeInterval = 240) throws -> DemoRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binDirectory + "/dualcam-coordinator")
        process.arguments = arguments + debugBuildClockGate
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Drain both pipes while waiting so that a chatty child never blocks on a full pipe.
        let outData = LineCollector(out.fileHandleForReading)
        let errData = LineCollector(err.fileHandleForReading)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(100_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        return DemoRun(exitCode: process.terminationStatus, stdout: outData.all(), stderr: errData.all())
    }

    /// Runs `executable` to its end with no input, collecting what it prints.
    static func child(_ executable: String, _ arguments: [String]) throws -> DemoRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = LineCollector(out.fileHandleForReading), stderr = LineCollector(err.fileHandleForReading)
        process.waitUntilExit()
        return DemoRun(exitCode: process.terminationStatus, stdout: stdout.all(), stderr: stderr.all())
    }

    var mp4Files: [String] { stdout.split(separator: "\n").map(String.init).filter { $0.hasSuffix(".mp4") } }
}

/// Collects a pipe's text as it arrives (POSIX reads: Foundation's readDataToEndOfFile
/// traps on EINTR).
final class LineCollector: @unchecked Sendable {
    // Invariant: `buffer` is touched only under `lock`. Bytes, decoded when read: a read
    // can end inside a character (é is two bytes), which decoding each read would mangle.
    private let lock = NSLock()
    private var buffer: [UInt8] = []
    private let ended = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        let fd = handle.fileDescriptor
        Thread.detachNewThread { [self] in
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(fd, &chunk, chunk.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                lock.withLock { buffer += chunk[0..<n] }
            }
            ended.signal()
        }
    }

    var text: String { lock.withLock { String(decoding: buffer, as: UTF8.self) } }

    /// The whole text, once the writer has closed the pipe. May be called again (in an
    /// assertion's message, say): the semaphore is handed on for the next caller.
    func all() -> String {
        ended.wait()
        ended.signal()
        return text
    }
}
