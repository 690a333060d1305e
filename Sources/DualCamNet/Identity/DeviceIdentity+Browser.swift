import NIOSSL

extension DeviceIdentity {
    /// A TLS server configuration presenting this identity to browsers (the studio over
    /// HTTPS): no client certificate is asked for, TLS 1.2 and up as browsers speak it.
    /// The certificate is self-signed, so a browser asks once to trust it; its device ID
    /// (printed by the coordinator) is what to compare in the browser's certificate view.
    public func browserTLSConfiguration() throws -> TLSConfiguration {
        var config = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try sslCertificate())], privateKey: .privateKey(try sslPrivateKey()))
        config.minimumTLSVersion = .tlsv12
        config.certificateVerification = .none
        return config
    }
}
