import Foundation

/// Ends the agent when the process that started it is gone (the demo's coordinator),
/// even if that process was SIGKILLed and could not clean up its children.
public enum ParentWatch {
    public static func exitWhenOrphaned() {
        let parent = getppid()
        let thread = Thread {
            while true {
                usleep(200_000)
                if getppid() != parent {
                    FileHandle.standardError.write(Data("dualcam-agent: parent process exited; stopping\n".utf8))
                    exit(3)
                }
            }
        }
        thread.name = "dualcam-parent-watch"
        thread.start()
    }
}
