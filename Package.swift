// swift-tools-version:5.10
import PackageDescription

// Every link setting lives here and in the shim module maps, so a plain
// `swift build -c release` produces a working `prores-decode`.
let package = Package(
    name: "prores-decode",
    products: [
        .executable(name: "prores-decode", targets: ["prores-decode"]),
        .library(name: "ProResDecode", targets: ["ProResDecode"]),
    ],
    targets: [
        // libavformat + libavcodec + libavutil behind one thin shim.
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev"])]
        ),
        .target(
            name: "ProResDecode",
            dependencies: ["CFFmpeg"],
            swiftSettings: [.unsafeFlags(["-Ounchecked"], .when(configuration: .release))]
        ),
        .executableTarget(
            name: "prores-decode",
            dependencies: ["ProResDecode"]
        ),
        .testTarget(
            name: "ProResDecodeTests",
            dependencies: ["ProResDecode", "prores-decode"]
        ),
    ]
)
