import ArgumentParser
import DualCamCoordinator
import DualCamStudio
import DualCamQR
import Foundation
import Logging

/// Where the studio (the browser screen) listens: loopback unless told otherwise.
struct StudioOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Address and port of the studio (the browser screen). Beyond loopback (e.g. 0.0.0.0:8080 for a tablet) a "
            + "browser needs the one-time link printed here.", valueName: "ADDR:PORT"))
    var listen = "127.0.0.1:8080"
    @Flag(help: ArgumentHelp("Serve the studio over HTTPS with the coordinator's own certificate (self-signed: the "
        + "browser asks once to trust it). A secure context, so a tablet shows H.264 previews instead of JPEG."))
    var https = false

    func address() throws -> (host: String, port: Int) {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
              (0...65_535).contains(port) else {
            throw ValidationError("--listen \(listen) is not ADDR:PORT, e.g. 127.0.0.1:8080 or 0.0.0.0:8080")
        }
        var host = String(listen[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ValidationError("--listen \(listen) names no address; e.g. 0.0.0.0:8080") }
        return (host, port)
    }

    /// Serves the studio for `rig` until the task is cancelled, printing where to open it.
    func serve(rig: Rig, plan: TakePlan, logger: Logger) async throws {
        let (host, port) = try address()
        let needsToken = !Studio.isLoopback(host)
        let https = self.https
        let studio = Studio(rig: rig, plan: plan, host: host, port: port, https: https, logger: logger, announce: { url in
            CommandSupport.say("studio: open \(url)")
            guard needsToken else { return }
            // A tablet scans it instead of typing a 32-digit token.
            if isatty(STDERR_FILENO) == 1, let code = try? QRCode(url) {
                FileHandle.standardError.write(Data(QRTerminal.render(code).utf8))
            }
            CommandSupport.say("studio: listening beyond loopback; this link works once (each use prints the next)")
            if https {
                CommandSupport.say("studio: the certificate is the coordinator's own, device ID \(rig.identity.deviceID)")
            }
        })
        try await studio.run(onListening: { _ in })
    }
}
