import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A node's key and self-signed certificate, created on first run and kept in its state
/// folder (files mode 0600). Certificates are self-signed on purpose: trust comes from
/// pinning the peer's device ID at pairing, never from a CA.
public struct DeviceIdentity: Sendable {
    public let certificatePEM: String
    public let privateKeyPEM: String
    public let certificateDER: [UInt8]
    public let deviceID: DeviceID

    public static let certificateFile = "identity.crt"
    public static let keyFile = "identity.key"

    public init(certificatePEM: String, privateKeyPEM: String) throws {
        let cert = try Certificate(pemEncoded: certificatePEM)
        var serializer = DER.Serializer()
        try serializer.serialize(cert)
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
        self.certificateDER = serializer.serializedBytes
        self.deviceID = DeviceID(certificateDER: serializer.serializedBytes)
    }

    /// Makes a fresh P-256 identity valid from `notBefore` for `years`.
    public static func generate(commonName: String, notBefore: Date = Date(timeIntervalSinceNow: -3600),
                                validity: TimeInterval = 20 * 365 * 86400) throws -> DeviceIdentity {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(commonName) }
        let cert = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(key.publicKey),
            notValidBefore: notBefore,
            notValidAfter: notBefore.addingTimeInterval(validity),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                KeyUsage(digitalSignature: true)
                try ExtendedKeyUsage([.serverAuth, .clientAuth])
            },
            issuerPrivateKey: .init(key))
        return try DeviceIdentity(certificatePEM: try cert.serializeAsPEM().pemString,
                                  privateKeyPEM: key.pemRepresentation)
    }

    /// Loads the identity from `directory`; nil when there is none (a command that only
    /// talks to paired peers has nothing to gain from a new one).
    public static func loadIfPresent(in directory: String) throws -> DeviceIdentity? {
        let fm = FileManager.default
        guard fm.fileExists(atPath: directory + "/" + certificateFile), fm.fileExists(atPath: directory + "/" + keyFile) else {
            return nil
        }
        return try loadOrCreate(in: directory, commonName: "unused")
    }

    /// Loads the identity from `directory`, creating the folder and a new identity when
    /// there is none.
    public static func loadOrCreate(in directory: String, commonName: String) throws -> DeviceIdentity {
        let fm = FileManager.default
        let certPath = directory + "/" + certificateFile
        let keyPath = directory + "/" + keyFile
        if fm.fileExists(atPath: certPath) && fm.fileExists(atPath: keyPath) {
            do {
                return try DeviceIdentity(certificatePEM: String(contentsOfFile: certPath, encoding: .utf8),
                                          privateKeyPEM: String(contentsOfFile: keyPath, encoding: .utf8))
            } catch {
                throw IdentityError("the identity in \(directory) cannot be read (\(error)); move the folder aside to create a new one, then pair again")
            }
        }
        do {
            try fm.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                   attributes: [.posixPermissions: 0o700])
        } catch {
            throw IdentityError("cannot create the state folder \(directory): \(error.localizedDescription)")
        }
        let identity = try generate(commonName: commonName)
        try writePrivate(identity.privateKeyPEM, to: keyPath)
        try writePrivate(identity.certificatePEM, to: certPath)
        return identity
    }

    private static func writePrivate(_ text: String, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw IdentityError("cannot write \(path)")
        }
    }

    func sslCertificate() throws -> NIOSSLCertificate {
        try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem)
    }

    func sslPrivateKey() throws -> NIOSSLPrivateKey {
        try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
    }
}

public struct IdentityError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
