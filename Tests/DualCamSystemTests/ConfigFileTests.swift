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

    // What `dualcam-agent run` takes, as its parser describes it (ConfigKeys.swift).
    let keys = ConfigFile.Keys(options: ["role", "name", "gain", "port", "trust", "size", "crf", "bitrate"],
                               flags: ["genlock", "free-run", "mdns", "no-mdns", "mute", "prune-acknowledged"])

    /// `--gain -6` reads to the parser as a value-less --gain and an option -6: the
    /// service refused to start with any negative number in its file.
    @Test func aNegativeNumberIsPassedAsAValue() throws {
        #expect(try ConfigFile.parse("gain = -6\n", path: "x", keys: keys) == ["--gain=-6"])
        #expect(try ConfigFile.parse("gain = \"-6\"\n", path: "x") == ["--gain=-6"])
    }

    @Test func falseTurnsOffAFlagThatIsOnByDefault() throws {
        #expect(try ConfigFile.parse("genlock = false\n", path: "x", keys: keys) == ["--free-run"])
        #expect(try ConfigFile.parse("genlock = false\n", path: "x") == ["--free-run"])
        #expect(try ConfigFile.parse("mdns = off\nmute = false\n", path: "x", keys: keys) == ["--no-mdns"])
    }

    @Test func aHashInsideQuotesIsPartOfTheValue() throws {
        #expect(try ConfigFile.parse("name = \"Studio #2\"   # the second room\n", path: "x", keys: keys)
                == ["--name", "Studio #2"])
        #expect(throws: ConfigFile.Failure.self) { try ConfigFile.parse("name = \"Studio #2\n", path: "x", keys: keys) }
    }

    /// A file saved on Windows: "\r\n" is one Character in Swift, so splitting at "\n"
    /// found one line and the role read "guest\r\nname = …".
    @Test func aFileWithCRLFLineEndsReadsLikeAnyOther() throws {
        #expect(try ConfigFile.parse("role = guest\r\nname = Cam\r\n# note\r\nmute = true\r\n", path: "x", keys: keys)
                == ["--role", "guest", "--name", "Cam", "--mute"])
    }

    @Test func anUnknownKeyIsRefusedWithFileLineAndTheNearestKey() {
        do {
            _ = try ConfigFile.parse("role = host\n\nprot = 7420\n", path: "/etc/dualcam/agent.conf", keys: keys)
            Issue.record("an unknown key was accepted")
        } catch {
            let text = "\(error)"
            #expect(text.contains("/etc/dualcam/agent.conf:3") && text.contains("unknown key `prot`")
                    && text.contains("did you mean `port`"), "\(text)")
        }
    }

    /// Known keys tell values from flags: a name that reads `yes` stays a name, and a
    /// flag given something other than a boolean is refused with its line.
    @Test func valuesAreValuesAndFlagsTakeBooleans() throws {
        #expect(try ConfigFile.parse("name = yes\n", path: "x", keys: keys) == ["--name", "yes"])
        do {
            _ = try ConfigFile.parse("role = host\nmute = sometimes\n", path: "/a.conf", keys: keys)
            Issue.record("a flag took a non-boolean value")
        } catch {
            #expect("\(error)".contains("/a.conf:2") && "\(error)".contains("true or false"), "\(error)")
        }
    }

    @Test func aJoinedValueSurvivesTheExclusivePartnerCheck() throws {
        let path = NSTemporaryDirectory() + "dualcam-config-joined-\(getpid()).conf"
        try "gain = -6\ncrf = 23\ngenlock = false\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try ConfigFile.expand(["run", "--config", path, "--bitrate", "6M"], keys: keys)
                == ["run", "--gain=-6", "--free-run", "--bitrate", "6M"])
    }
}
