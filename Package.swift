// swift-tools-version:6.0
import PackageDescription

// The layers, each a target whose dependencies point down only (README,
// "Architecture"; docs/architecture.md draws them and says where a change
// goes). Each C shim is imported by exactly one target:
//
//   prores-decode (CLI)      words, exit codes, options
//   ProResTesting            fuzz entry, test doubles
//   ProResPlayback ← CPulse: `play`'s session: keys, runs of frames, the HUD,
//                            the sound and the clock it paces frames by
//   ProResCheck ← CEBUR128:  check: rules, golden files, shards, lists,
//                            resume, merge, its pages and JUnit report,
//                            the loudness of each sound track
//   ProResBench              bench, its pages, the roofline, the timing plot
//   ProResReports            page style, SVG charts (nothing of ProRes)
//   ProResPipeline           decode run, decoder plan, sinks, image-file tags
//   ProResDisplay ← CXCB:    the `play` window and its events (no Vulkan)
//   ProResGPU                our ProRes decoder, converter, effects (no C)
//   ProResCPU ← CProResKernels: our ProRes decoder on the CPU
//   GPUKit        ← CVulkan, CShaderc: context, buffers, kernels, recording,
//                            PCI addresses, threads on the device's NUMA node
//   ProResFFmpeg  ← CFFmpeg, CZlib, CStreamingCopy: readers, CPU session,
//                            still images, MD5
//   ProResCore               ProRes and video: formats, surfaces, colour,
//                            timing (no C)
//   HostSupport ← CHashKernels, ProResOptions: tracing, clock, JSON, path
//                            bytes, BLAKE3, SHA-256, queues, worker threads,
//                            XML text, auxiliary inputs, sample memory, the
//                            environment's settings (nothing of ProRes:
//                            GPUKit's base)
//   ProResOptions            option tables and their strict parser, and the
//                            plain-decimal reader of every outside number
//                            (no C, no dependency: the fuzz target reaches it)
//
// ProResCheck and ProResBench stand on ProResPipeline and ProResReports,
// never on each other; ProResReports stands on HostSupport alone. A target
// imports HostSupport by name: ProResCore does not re-export it.
//
// Every link setting lives here and in the shim module maps, so a plain
// `swift build -c release` produces a working `prores-decode`.
// Every target, the test targets and their support included, builds in
// Swift 6 language mode (complete concurrency checking).
let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "prores-decode",
    products: [
        .executable(name: "prores-decode", targets: ["prores-decode"]),
        .library(name: "ProResPipeline", targets: ["ProResPipeline"]),
        .executable(name: "prores-decode-fuzz", targets: ["prores-decode-fuzz"]),
    ],
    targets: [
        // libavformat + libavcodec + libavutil behind one thin shim.
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev"])]
        ),
        // zlib: the deflate streams of the PNGs written on every core. No
        // pkg-config: its -L of the system library directory would come
        // first on the bundle's link line and pick FFmpeg's shared
        // libraries over the static ones (scripts/build-bundle.sh).
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // The Vulkan headers only: the loader is opened with dlopen at run time.
        .systemLibrary(name: "CVulkan", providers: [.apt(["libvulkan-dev"])]),
        // libshaderc from its static archives (see the module map).
        .systemLibrary(name: "CShaderc", providers: [.apt(["libshaderc-dev", "glslang-dev", "spirv-tools"])]),
        // libxcb: the `play` window (headers from libxcb1-dev).
        .systemLibrary(name: "CXCB", providers: [.apt(["libxcb1-dev"])]),
        // libebur128: the loudness, loudness range and true peak `check` measures.
        .systemLibrary(name: "CEBUR128", pkgConfig: "libebur128", providers: [.apt(["libebur128-dev"])]),
        // libpulse's asynchronous API (`play`'s sound) behind one small C layer:
        // its callbacks run on libpulse's own thread. libpulse is opened with
        // dlopen (headers from libpulse-dev), so the tool starts without it.
        .target(name: "CPulse"),
        // Our own C: streaming stores, which Swift cannot write.
        .target(name: "CStreamingCopy"),
        // The CPU decoder's IDCT on SSE2 (x86-64): the 16-bit multiply-adds Swift cannot emit.
        .target(name: "CProResKernels"),
        // BLAKE3 on x86-64, 4 or 8 chunks at once in SSE2/AVX2 lanes: Swift's
        // SIMD types have no lane shuffles (the transposes, the rotations by
        // 16 and 8), and in debug builds each of their operations is a call.
        .target(name: "CHashKernels"),
        .target(name: "HostSupport", dependencies: ["CHashKernels", "ProResOptions"], swiftSettings: swift6),
        .target(name: "ProResCore", dependencies: ["HostSupport"], swiftSettings: swift6),
        .target(name: "ProResOptions", swiftSettings: swift6),
        .target(
            name: "ProResFFmpeg", dependencies: ["HostSupport", "ProResCore", "CFFmpeg", "CZlib", "CStreamingCopy"],
            swiftSettings: swift6),
        // The GLSL of Shaders/ is built in (Plugins/EmbedShaders).
        .target(
            name: "GPUKit", dependencies: ["HostSupport", "CVulkan", "CShaderc"], swiftSettings: swift6,
            plugins: ["EmbedShaders"]),
        .target(name: "ProResGPU", dependencies: ["HostSupport", "ProResCore", "GPUKit"], swiftSettings: swift6),
        .target(
            name: "ProResCPU", dependencies: ["HostSupport", "ProResCore", "CProResKernels"], swiftSettings: swift6),
        .target(
            name: "ProResPipeline",
            dependencies: [
                "HostSupport", "ProResCore", "ProResOptions", "ProResFFmpeg", "GPUKit", "ProResGPU",
                "ProResCPU",
            ],
            swiftSettings: swift6),
        .target(name: "ProResReports", dependencies: ["HostSupport"], swiftSettings: swift6),
        .target(
            name: "ProResCheck",
            dependencies: [
                "HostSupport", "ProResCore", "ProResOptions", "ProResFFmpeg", "GPUKit", "ProResGPU",
                "ProResPipeline", "ProResReports", "CEBUR128",
            ],
            swiftSettings: swift6),
        .target(
            name: "ProResBench",
            dependencies: [
                "HostSupport", "ProResCore", "ProResFFmpeg", "GPUKit", "ProResGPU", "ProResCPU",
                "ProResPipeline", "ProResReports",
            ],
            swiftSettings: swift6),
        .target(name: "ProResDisplay", dependencies: ["CXCB"], swiftSettings: swift6),
        .target(
            name: "ProResPlayback",
            dependencies: [
                "HostSupport", "ProResCore", "ProResFFmpeg", "GPUKit", "ProResGPU", "ProResPipeline",
                "ProResDisplay", "CPulse",
            ],
            swiftSettings: swift6),
        .target(
            name: "ProResTesting",
            dependencies: ["ProResCore", "ProResOptions", "ProResFFmpeg", "ProResGPU", "ProResPipeline"],
            swiftSettings: swift6),
        .executableTarget(
            name: "prores-decode",
            dependencies: [
                "HostSupport", "ProResCore", "ProResOptions", "ProResFFmpeg", "GPUKit", "ProResGPU", "ProResPipeline",
                "ProResReports", "ProResCheck", "ProResBench", "ProResDisplay",
                "ProResPlayback",
            ],
            swiftSettings: swift6),
        .plugin(name: "EmbedShaders", capability: .buildTool()),
        // The libFuzzer target of `make fuzz` (scripts/fuzz.sh builds it with
        // -sanitize=fuzzer,address); built plainly it replays inputs.
        .executableTarget(name: "prores-decode-fuzz", dependencies: ["ProResTesting"], swiftSettings: swift6),
        // What every test target shares: the fixtures' paths, `runTool`,
        // the independent readers (b3sum, md5sum, the ffmpeg CLI, Python's
        // zlib), the X server. A plain target, built by `swift
        // build -c release` too: it imports the library targets without
        // `@testable`, and the test targets import it with `@testable`.
        // XCTest has no static module, so a `--static-swift-stdlib` build
        // names its product (scripts/build-bundle.sh, scripts/build-deb.sh).
        .target(
            name: "TestSupport", dependencies: ["ProResCore", "ProResFFmpeg"], path: "Tests/TestSupport",
            swiftSettings: swift6),
        // One test target per part of the product it tests (docs/testing.md).
        .testTarget(
            name: "CoreTests",
            dependencies: [
                "TestSupport", "HostSupport", "ProResOptions", "ProResCore", "ProResFFmpeg", "GPUKit", "ProResGPU",
                "ProResPipeline", "ProResCheck", "ProResTesting",
            ],
            swiftSettings: swift6),
        .testTarget(
            name: "DecoderTests",
            dependencies: [
                "TestSupport", "HostSupport", "ProResCore", "ProResFFmpeg", "GPUKit", "ProResGPU", "ProResCPU",
                "ProResPipeline", "ProResCheck", "ProResBench", "ProResTesting",
            ],
            swiftSettings: swift6),
        .testTarget(
            name: "PipelineTests",
            dependencies: [
                "TestSupport", "HostSupport", "ProResCore", "ProResFFmpeg", "GPUKit", "ProResGPU", "ProResPipeline",
                "ProResTesting",
            ],
            swiftSettings: swift6),
        .testTarget(
            name: "CheckTests",
            dependencies: [
                "TestSupport", "HostSupport", "ProResCore", "ProResFFmpeg", "GPUKit", "ProResGPU", "ProResPipeline",
                "ProResCheck", "ProResTesting",
            ],
            swiftSettings: swift6),
        .testTarget(
            name: "ReportsTests",
            dependencies: [
                "TestSupport", "HostSupport", "ProResCore", "ProResFFmpeg", "GPUKit", "ProResGPU", "ProResPipeline",
                "ProResReports", "ProResBench",
            ],
            swiftSettings: swift6),
        .testTarget(
            name: "CommandLineTests",
            dependencies: [
                "TestSupport", "HostSupport", "ProResOptions", "ProResCore", "ProResFFmpeg", "GPUKit", "ProResGPU",
                "ProResPipeline", "ProResCheck", "ProResDisplay", "ProResPlayback", "ProResTesting", "prores-decode",
            ],
            swiftSettings: swift6),
        // The repository's own rules, run by `make lint` and skipped by `make test`.
        .testTarget(
            name: "PolicyTests", dependencies: ["TestSupport", "ProResOptions", "prores-decode"], swiftSettings: swift6),
    ],
    swiftLanguageModes: [.v5]
)
