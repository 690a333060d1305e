// swift-tools-version: 6.0
import PackageDescription

// Module shape (see docs/ARCHITECTURE.md): a pure core, a protocol module without
// sockets, a network module, a media module, the agent and coordinator as libraries,
// and two thin executables. Each C library sits behind exactly one Swift module.
// Products many targets name, spelled once.
let nioCore: Target.Dependency = .product(name: "NIOCore", package: "swift-nio")
let nioPosix: Target.Dependency = .product(name: "NIOPosix", package: "swift-nio")
let nioLocks: Target.Dependency = .product(name: "NIOConcurrencyHelpers", package: "swift-nio")
let nioEmbedded: Target.Dependency = .product(name: "NIOEmbedded", package: "swift-nio")
let nioSSL: Target.Dependency = .product(name: "NIOSSL", package: "swift-nio-ssl")
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")

// The core and its tests compiled with -O in debug builds as well (the last -O flag wins):
// `precondition` still holds there, `assert` would not (the core has none).
let optimisedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "DualCam",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "dualcam-agent", targets: ["dualcam-agent"]),
        .executable(name: "dualcam-coordinator", targets: ["dualcam-coordinator"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.30.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.10.0"),
        // Named for itself (not only through swift-certificates): identities read the
        // certificate's DER with it directly.
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.28.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.0"),
    ],
    targets: [
        // System libraries: one modulemap + shim header each.
        .systemLibrary(
            name: "CFFmpeg", path: "Sources/CFFmpeg", pkgConfig: "libavformat",
            providers: [.apt(["libavcodec-dev", "libavformat-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])]),
        .systemLibrary(
            name: "CV4L2", path: "Sources/CV4L2", pkgConfig: "libv4l2",
            providers: [.apt(["libv4l-dev"])]),
        // libasound directly, not libavdevice's ALSA input: it stamps audio with the
        // wall clock, and audio must be stamped with CLOCK_MONOTONIC like video frames.
        .systemLibrary(
            name: "CAlsa", path: "Sources/CAlsa", pkgConfig: "alsa",
            providers: [.apt(["libasound2-dev"])]),
        // The programme's loudness (EBU R128 / ITU-R BS.1770), measured as broadcasters do.
        .systemLibrary(
            name: "CEbur128", path: "Sources/CEbur128", pkgConfig: "libebur128",
            providers: [.apt(["libebur128-dev"])]),
        .systemLibrary(
            // No pkgConfig: avahi-client.pc only adds -D_REENTRANT, which SwiftPM rejects
            // with a warning; the headers are in /usr/include (libavahi-client-dev).
            name: "CAvahi", path: "Sources/CAvahi"),
        // libsodium's ristretto255 for pairing's CPace (PROTOCOL.md §14): reviewed
        // constant-time group arithmetic instead of our own.
        .systemLibrary(
            name: "CSodium", path: "Sources/CSodium", pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]),
        // The kernel's process controls (prctl is variadic) and UDP receive timestamps
        // (recvmsg's control messages); part of libc, nothing to link.
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),

        // Pure frame-sync core: no I/O, no C, time passed in. Optimised in debug builds too:
        // its tests simulate hours of frames, pings and sound (two minutes of CPU unoptimised,
        // the suite's unit phase), and the debug agent and coordinator run its loops per frame.
        .target(name: "DualCamCore", swiftSettings: optimisedInDebug),
        // Wire messages and per-connection state machines; no sockets.
        .target(
            name: "DualCamProtocol",
            dependencies: [
                "DualCamCore",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                nioCore,
            ]),
        // TLS transport, identities, discovery.
        .target(
            name: "DualCamNet",
            dependencies: [
                "DualCamCore", "DualCamProtocol", "CAvahi", "CLinux", "CSodium",
                nioCore,
                nioLocks,
                nioPosix,
                nioSSL,
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                crypto,
                logging,
            ]),
        // FFmpeg, V4L2, ALSA and libebur128 behind Swift types.
        .target(
            name: "DualCamMedia",
            dependencies: ["DualCamCore", "CFFmpeg", "CV4L2", "CAlsa", "CEbur128", "CLinux"]),
        .target(
            name: "DualCamAgent",
            dependencies: [
                "DualCamCore", "DualCamProtocol", "DualCamNet", "DualCamMedia",
                logging,
                nioCore,
                nioPosix,
                nioLocks,
                crypto,
            ]),
        .target(
            name: "DualCamCoordinator",
            dependencies: [
                "DualCamCore", "DualCamProtocol", "DualCamNet", "DualCamMedia",
                logging,
                nioCore,
                nioLocks,
                crypto,
            ]),
        // A QR code for a terminal (the studio's address at `serve`): pure Swift, its only
        // caller the command line.
        .target(name: "DualCamQR"),
        // The studio: the browser screen's server, a client of the rig's API only.
        .target(
            name: "DualCamStudio",
            dependencies: [
                "DualCamCoordinator", "DualCamCore", "DualCamNet", "DualCamMedia",
                nioCore,
                nioLocks,
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                logging,
            ],
            exclude: ["web"]),
        .executableTarget(
            name: "dualcam-agent",
            dependencies: [
                "DualCamAgent", "DualCamCore", "DualCamNet", "DualCamProtocol", "DualCamMedia", "CLinux",
                argumentParser,
                logging,
            ]),
        .executableTarget(
            name: "dualcam-coordinator",
            dependencies: [
                "DualCamCoordinator", "DualCamStudio", "DualCamQR", "DualCamCore", "DualCamNet", "DualCamProtocol", "DualCamMedia",
                "CLinux",
                argumentParser,
                logging,
            ]),
        .executableTarget(
            name: "dualcam-bench",
            dependencies: [
                "DualCamCore", "DualCamMedia", "DualCamNet", "DualCamProtocol", "DualCamCoordinator",
                // The simulated talk the import benchmark aligns, as the core tests do.
                "DualCamTestSupport",
                nioCore,
            ]),

        // What the test targets share, as NIOTestUtils does for SwiftNIO's: the seeded
        // generator, temporary folders, simulated time.
        .target(name: "DualCamTestSupport", dependencies: ["DualCamCore"], path: "Tests/DualCamTestSupport"),
        .testTarget(
            name: "DualCamCoreTests", dependencies: ["DualCamCore", "DualCamTestSupport"], exclude: ["Fixtures"],
            swiftSettings: optimisedInDebug),
        .testTarget(
            name: "DualCamProtocolTests",
            dependencies: [
                "DualCamProtocol", "DualCamCore", "DualCamTestSupport",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                nioCore,
                nioEmbedded,
            ]),
        .testTarget(
            name: "DualCamNetTests",
            dependencies: [
                "DualCamNet", "DualCamProtocol", "DualCamCore", "DualCamTestSupport",
                logging,
                crypto,
                nioCore,
                nioPosix,
                nioSSL,
                nioLocks,
                nioEmbedded,
            ]),
        .testTarget(name: "DualCamMediaTests", dependencies: ["DualCamMedia", "DualCamCore", "DualCamTestSupport"]),
        // Agent and coordinator code in one process over real TLS on loopback.
        .testTarget(
            name: "DualCamSystemTests",
            dependencies: [
                "DualCamAgent", "DualCamCoordinator", "DualCamNet", "DualCamProtocol", "DualCamMedia", "DualCamCore",
                "DualCamTestSupport",
                logging,
                nioLocks,
                // A UDP receiver standing in for a Pi camera's sync client.
                nioCore,
                nioPosix,
                // The in-process agents' segment checksums.
                crypto,
            ]),
        .testTarget(
            name: "DualCamStudioTests",
            dependencies: [
                // The agent: the camera routes are tested against a real one in this process.
                "DualCamStudio", "DualCamCoordinator", "DualCamCore", "DualCamNet", "DualCamAgent",
                "DualCamQR",
                nioCore,
                logging,
                nioLocks,
                nioEmbedded,
                nioSSL,
            ]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["DualCamMedia", "DualCamCore"]),
    ],
    swiftLanguageModes: [.v6]
)
