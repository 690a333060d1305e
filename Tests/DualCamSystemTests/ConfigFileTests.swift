import Foundation
import DualCamAgent
import Testing

struct ConfigFileTests {
    @Test func linesBecomeOptionsBeforeTheCommandLinesOwn() throws {
        let text = """
        # a comment
        role = guest
        name = "Guest camera"   # trailing comment
        trust = AAA
        trust = BBB
        mdns = false
        prune-acknowledged = true
        free-run = false
        """
        #expect(try ConfigFile.parse(text, path: "x") == ["--role", "guest", "--name", "Guest camera", "--trust", "AAA",
                                                         "--trust", "BBB", "--no-mdns", "--prune-acknowledged"])
    }

    @Test func aBadLineNamesFileAndLine() {
        #expect(throws: ConfigFile.Failure.self) { try ConfigFile.parse("role = host\nnonsense\n", path: "/etc/x.conf") }
        do {
            _ = try ConfigFile.parse("role = host\nnonsense\n", path: "/etc/x.conf")
        } catch {
            #expect("\(error)".contains("/etc/x.conf:2"))
        }
    }

    @Test func theFileGoesAfterTheSubcommandAndBeforeTheFlags() throws {
        let path = NSTemporaryDirectory() + "dualcam-config-\(getpid()).conf"
        try "size = 640x360\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try ConfigFile.expand(["run", "--config", path, "--size", "1280x720"])
                == ["run", "--size", "640x360", "--size", "1280x720"])
    }

    /// The shipped file sets `crf = 23`; `--bitrate` by hand must replace it, not be
    /// refused as exclusive with it. Likewise `--free-run` against `genlock = true`.
    @Test func aFlagByHandReplacesTheFilesExclusivePartner() throws {
        let path = NSTemporaryDirectory() + "dualcam-config-partner-\(getpid()).conf"
        try "crf = 23\ngenlock = true\nsize = 640x360\nmdns = false\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try ConfigFile.expand(["run", "--config", path, "--bitrate", "6M", "--free-run", "--mdns"])
                == ["run", "--size", "640x360", "--bitrate", "6M", "--free-run", "--mdns"])
        #expect(try ConfigFile.expand(["run", "--config", path, "--bitrate=6M"])
                == ["run", "--genlock", "--size", "640x360", "--no-mdns", "--bitrate=6M"])
        // Without a partner on the command line, the file's options all stay.
        #expect(try ConfigFile.expand(["run", "--config", path, "--crf", "18"])
                == ["run", "--crf", "23", "--genlock", "--size", "640x360", "--no-mdns", "--crf", "18"])
    }
}
