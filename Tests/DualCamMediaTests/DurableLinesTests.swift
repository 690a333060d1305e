import DualCamMedia
import Foundation
import Testing

/// The durable lists (a spool's manifest, a session's segment index) live in folders a
/// hostile or careless hand may have written into: a list planted as a symbolic link
/// must be refused, not have lines appended to the file it points at.
struct DurableLinesTests {
    @Test func aListThatIsASymbolicLinkIsRefusedAndItsTargetKept() throws {
        let directory = NSTemporaryDirectory() + "dualcam-lines-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = directory + "/precious.txt"
        try Data("keep me\n".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: directory + "/index.jsonl", withDestinationPath: target)
        do {
            try DurableLines.append(Data("{\"index\":0}".utf8), to: directory + "/index.jsonl")
            Issue.record("a line was appended through a symbolic link")
        } catch {
            #expect(error.description.contains("symbolic link"), "\(error)")
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me\n")

        try DurableLines.append(Data("{\"index\":0}".utf8), to: directory + "/real.jsonl")
        #expect(try String(contentsOfFile: directory + "/real.jsonl", encoding: .utf8) == "{\"index\":0}\n")
    }
}
