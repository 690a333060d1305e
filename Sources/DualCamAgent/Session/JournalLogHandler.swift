import Foundation
import Logging

/// Log lines for systemd's journal. When stderr is the journal (systemd sets
/// JOURNAL_STREAM), each line starts with the syslog priority, `<3>` for an error, which
/// journald files as the entry's priority (so `journalctl -p warning` works), and carries
/// no timestamp, since journald stamps entries itself. Elsewhere swift-log's own
/// stream handler writes to stderr as before.
public struct JournalLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level = .info

    public init() {}

    /// The handler for `label`: this one under systemd, the stream handler otherwise.
    public static func make(label: String) -> any LogHandler {
        if ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil { return JournalLogHandler() }
        return StreamLogHandler.standardError(label: label)
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        if let extra = event.metadata { all.merge(extra) { $1 } }
        // One write per line: lines from several threads never interleave.
        FileHandle.standardError.write(Data(Self.line(level: event.level, message: "\(event.message)", metadata: all).utf8))
    }

    static func line(level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        let fields = metadata.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        // A message spanning lines would lose its priority after the first one.
        let flat = message.replacingOccurrences(of: "\n", with: " ")
        return "<\(priority(level))>\(flat)\(fields)\n"
    }

    /// sd-daemon(3) priorities.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
