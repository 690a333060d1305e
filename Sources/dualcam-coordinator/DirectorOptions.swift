import ArgumentParser
import DualCamCoordinator

/// `--director auto` and its tuning, on start, serve, demo and recompose.
struct DirectorOptions: ParsableArguments {
    @Option(help: "Cut the combined file to whoever speaks, from every node's sound: auto, or off (the default). docs/DIRECTOR.md tells how.")
    var director: String?
    @Option(help: "The director's style: standard (the default), calm (longer shots) or lively (quick cuts, wide shots in silences, reaction shots).")
    var style: String?
    @Option(name: .customLong("min-shot"), parsing: .unconditional, help: "Seconds every shot is held at least (director; standard 2).")
    var minShot: Double?
    @Option(name: .customLong("switch-delay"), parsing: .unconditional, help: "Seconds a new voice must go on before the director cuts to it (standard 0.6).")
    var switchDelay: Double?

    /// The settings, with coordinator.conf's keys under the flags (nil: the director is off).
    func settings(config: CoordinatorConfig = CoordinatorConfig()) throws -> DirectorSettings? {
        do {
            return try config.director(mode: director, style: style, minShot: minShot, switchDelay: switchDelay)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// Flags only (recompose, which reads no config: a render is asked for by hand).
    func flagSettings() throws -> DirectorSettings? {
        do {
            return try DirectorSettings.parse(mode: director, style: style, minShot: minShot, switchDelay: switchDelay)
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
