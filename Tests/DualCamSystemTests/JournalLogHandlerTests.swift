@testable import DualCamAgent
import Logging
import Testing

struct JournalLogHandlerTests {
    @Test func linesCarryTheSyslogPriorityAndNoTimestamp() {
        #expect(JournalLogHandler.line(level: .error, message: "camera gone", metadata: [:]) == "<3>camera gone\n")
        #expect(JournalLogHandler.line(level: .warning, message: "disk low", metadata: ["free": "400 MB", "at": "/var"])
                == "<4>disk low at=/var free=400 MB\n")
        #expect(JournalLogHandler.line(level: .info, message: "two\nlines", metadata: [:]) == "<6>two lines\n")
        #expect(JournalLogHandler.priority(.debug) == 7 && JournalLogHandler.priority(.notice) == 5
                && JournalLogHandler.priority(.critical) == 2)
    }
}
