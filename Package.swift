// swift-tools-version:5.10
import PackageDescription

// Every link setting lives here and in the shim module maps, so a plain
// `swift build -c release` produces a working `prores-decode`.
let package = Package(
    name: "prores-decode",
    products: [
        .executable(name: "prores-decode", targets: ["prores-decode"]),
        .library(name: "ProResDecode", targets: ["ProResDecode"]),
        .executable(name: "prores-decode-fuzz", targets: ["prores-decode-fuzz"]),
    ],
    targets: [
        // libavformat + libavcodec + libavutil behind one thin shim.
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev"])]
        ),
        // The Vulkan headers only: the loader is opened with dlopen at run time.
        .systemLibrary(name: "CVulkan", providers: [.apt(["libvulkan-dev"])]),
        // libshaderc from its static archives (see the module map).
        .systemLibrary(name: "CShaderc", providers: [.apt(["libshaderc-dev", "glslang-dev", "spirv-tools"])]),
        .target(
            name: "ProResDecode",
            dependencies: ["CFFmpeg", "CVulkan", "CShaderc"],
            swiftSettings: [.unsafeFlags(["-Ounchecked"], .when(configuration: .release))]
        ),
        .executableTarget(
            name: "prores-decode",
            dependencies: ["ProResDecode"]
        ),
        // The libFuzzer target of `make fuzz` (scripts/fuzz.sh builds it with
        // -sanitize=fuzzer,address); built plainly it replays inputs.
        .executableTarget(
            name: "prores-decode-fuzz",
            dependencies: ["ProResDecode"]
        ),
        .testTarget(
            name: "ProResDecodeTests",
            dependencies: ["ProResDecode", "prores-decode"]
        ),
    ]
)
