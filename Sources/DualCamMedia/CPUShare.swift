import Foundation

/// How many cores this process may use: the online cores, or fewer under a cgroup CPU quota
/// (a container, a systemd CPUQuota=, the budget benchmark). A quota runs the process at
/// full speed until its share of each 100 ms period is spent, then stops it: a short
/// measurement can fall between two stops and see the whole machine. CPU time over this
/// share is what the process sustains whatever the window.
public enum CPUShare {
    public static func cores() -> Double {
        let online = Double(max(ProcessInfo.processInfo.activeProcessorCount, 1))
        guard let quota = quotaCores() else { return online }
        return min(online, quota)
    }

    /// This process's CPU time (user and system, every thread) so far.
    public static func processNanoseconds() -> Int64 {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        func ns(_ t: timeval) -> Int64 { Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_usec) * 1_000 }
        return ns(usage.ru_utime) + ns(usage.ru_stime)
    }

    /// The quota of this process's own group in cores, nil when none (or unreadable).
    public static func quotaCores() -> Double? {
        guard let groups = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8) else { return nil }
        return quota(cgroupFile: groups) { try? String(contentsOfFile: $0, encoding: .utf8) }
    }

    /// `/proc/self/cgroup`'s lines ("N:controllers:/path"): v1's cpu controller
    /// (cpu.cfs_quota_us over cpu.cfs_period_us, -1 for none), else v2's unified group
    /// (cpu.max, "max PERIOD" for none). `read` reads a file.
    public static func quota(cgroupFile: String, read: (String) -> String?) -> Double? {
        for line in cgroupFile.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let path = fields[2] == "/" ? "" : String(fields[2])
            if fields[1].split(separator: ",").contains("cpu") {
                for root in ["/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"] {
                    guard let q = read("\(root)\(path)/cpu.cfs_quota_us").flatMap(number),
                          let p = read("\(root)\(path)/cpu.cfs_period_us").flatMap(number) else { continue }
                    return q > 0 && p > 0 ? q / p : nil
                }
            }
        }
        for line in cgroupFile.split(separator: "\n") where line.hasPrefix("0::") {
            let path = line.dropFirst(3) == "/" ? "" : String(line.dropFirst(3))
            guard let max = read("/sys/fs/cgroup\(path)/cpu.max") else { return nil }
            let parts = max.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            guard parts.count == 2, let q = Double(parts[0]), let p = Double(parts[1]), q > 0, p > 0 else { return nil }
            return q / p
        }
        return nil
    }

    private static func number(_ text: String) -> Double? { Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) }
}
