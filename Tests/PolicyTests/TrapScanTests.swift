import Foundation
import XCTest

@testable import TestSupport

/// Nothing from outside (files, stdin, the environment, caches, devices)
/// may reach a trap: `try!`, `fatalError(`, `as!` or a `!` force-unwrap
/// crash the process (SIGILL) and leave temporaries behind. Every such site
/// in Sources/ is listed here with how many the file holds and why each is
/// an internal invariant; a new one fails this test until it is removed or
/// listed with its reason (and a site removed must leave the list too).
final class TrapScanTests: XCTestCase {
    private static let vulkanHandle =
        "a Vulkan handle or buffer read after the call that made it succeeded (its VkResult checked)"
    private static let ownOpaque = "the opaque pointer our own callback registration handed to the C library, never nil"
    private static let nonEmptyBuffer = "baseAddress of a buffer or stack value that is never empty there"
    private static let setOnce =
        "a value set before the only path that reads it (a result a worker stored before signalling)"

    /// Path (from the package root) → (sites, why each is safe).
    static let allowed: [String: (count: Int, reason: String)] = [
        "Sources/GPUKit/CommandRecorder.swift": (
            2, "the transfer family exists when a transfer recorder is made; pools allocate every buffer asked or throw"
        ),
        "Sources/GPUKit/Kernel.swift": (5, vulkanHandle),
        "Sources/GPUKit/KernelInterface.swift": (1, nonEmptyBuffer),
        "Sources/GPUKit/PresentationSurface.swift": (1, vulkanHandle),
        "Sources/GPUKit/Swapchain.swift": (1, vulkanHandle),
        "Sources/ProResGPU/TextureCache.swift": (1, "the cache's staging buffers are made host-mapped"),
        "Sources/GPUKit/TimestampQueries.swift": (
            2,
            "the pool was made (VkResult checked); vkResetQueryPool is loaded with Vulkan 1.2, which the context requires"
        ),
        "Sources/GPUKit/ValidationLog.swift": (1, vulkanHandle),
        "Sources/GPUKit/VulkanBuffer.swift": (7, vulkanHandle),
        "Sources/GPUKit/VulkanContext.swift": (7, vulkanHandle),
        "Sources/GPUKit/VulkanFunctions.swift": (1, "VulkanLoader's initialiser throws only VulkanError"),
        "Sources/ProResReports/Charts/LineChart.swift": (
            2, "rows starts with one row; lower is set when the series has one"
        ),
        "Sources/ProResCore/Color/FrameColorResolver.swift": (
            1, "try!: every code picked is checked supported first, and the fallbacks are supported by construction"
        ),
        "Sources/ProResCore/Color/Matrix3.swift": (1, "max of three values"),
        "Sources/ProResCore/Effects/CubeLUT.swift": (1, "first of a list whose count was checked to be 1"),
        "Sources/HostSupport/ThreadAffinity.swift": (2, nonEmptyBuffer + "; " + setOnce),
        "Sources/ProResCore/Timing/SMPTETimecode.swift": (
            1, "fields computed modulo a day are in range by construction"
        ),
        "Sources/HostSupport/BLAKE3.swift": (4, nonEmptyBuffer),
        "Sources/HostSupport/BLAKE3Message.swift": (3, "the reading position is set while bytes remain"),
        "Sources/HostSupport/BlockingQueue.swift": (1, "a ring slot below the count holds an element"),
        "Sources/HostSupport/Deferred.swift": (1, setOnce),
        "Sources/HostSupport/Directories.swift": (1, "d_name of a readdir entry"),
        "Sources/HostSupport/JSON.swift": (1, "escapedText of a scalar just found to stand for a byte"),
        "Sources/ProResCore/Surfaces/FrameBytesMD5.swift": (
            1, "keys taken from the dictionary itself; " + nonEmptyBuffer
        ),
        "Sources/HostSupport/PathBytes.swift": (3, "scalars U+10FF80...U+10FFFF are valid; " + nonEmptyBuffer),
        "Sources/HostSupport/XMLText.swift": (1, "escapedText of a scalar just found to stand for a byte"),
        "Sources/ProResCore/Surfaces/PixelBufferPool.swift": (1, "the pool is made in the initialiser"),
        "Sources/ProResCore/Timing/TimingSummary.swift": (1, "names are the dictionary's own keys"),
        "Sources/ProResDisplay/X11Window.swift": (
            29,
            "libxcb entry points: pd_xcb_load fails (no display) unless every one was found; replies checked nil first"
        ),
        "Sources/ProResFFmpeg/AssetReader.swift": (7, "FFmpeg's streams array below nb_streams; " + ownOpaque),
        "Sources/ProResFFmpeg/FFmpegDecodeSession.swift": (1, "a head rejected by the pre-check carries its rejection"),
        "Sources/ProResFFmpeg/DecoderSurfaceAllocator.swift": (1, ownOpaque),
        "Sources/ProResFFmpeg/ElementaryStreamReader.swift": (
            3, "the description is set by the initialiser; " + nonEmptyBuffer
        ),
        "Sources/ProResFFmpeg/PNGEncoder.swift": (3, setOnce + "; " + nonEmptyBuffer),
        "Sources/ProResFFmpeg/RawVideoMuxer.swift": (
            9, ownOpaque + "; FFmpeg allocated the context, stream and packet (checked)"
        ),
        "Sources/ProResFFmpeg/SamplePacket.swift": (1, ownOpaque),
        "Sources/ProResFFmpeg/SampleSourceOpening.swift": (1, nonEmptyBuffer),
        "Sources/ProResFFmpeg/SampleTableReader.swift": (
            3, "a read is queued for each index taken; " + setOnce + "; an allocated packet has data"
        ),
        "Sources/ProResPipeline/DecoderSelection.swift": (
            2, "device is non-nil in that branch; an empty list of devices made means an error was kept"
        ),
        "Sources/ProResGPU/Effects/EffectChain.swift": (2, "the parameter buffer is host-mapped; " + nonEmptyBuffer),
        "Sources/ProResGPU/Effects/EffectKernel.swift": (1, "every matrix effect has a matrix"),
        "Sources/ProResGPU/Effects/LUTKernel.swift": (1, "the table is uploaded before the kernel is dispatched"),
        "Sources/ProResGPU/GPUFrameConverter.swift": (7, "a slot's buffers are made when the slot is"),
        "Sources/ProResGPU/GPUProResDecoder+Transform.swift": (2, "a slot's buffers are made when the slot is"),
        "Sources/ProResGPU/GPUProResDecoder.swift": (
            11,
            "every frame of a batch is parsed (or the batch throws) before it is used; a slot's buffers are made with it"
        ),
        "Sources/ProResGPU/Presentation/FramePresenter.swift": (2, "the staging buffer is made with the presenter"),
        "Sources/ProResGPU/Presentation/PresentKernel.swift": (
            1, "the RGB-to-P3 matrix of a supported primaries set is invertible"
        ),
        "Sources/ProResGPU/SliceTable.swift": (1, nonEmptyBuffer),
        "Sources/ProResGPU/SurfacePasses/PreviewThumbnailPass.swift": (
            5, "the pass's buffers are made host-mapped with it"
        ),
        "Sources/ProResBench/DecoderBenchmark.swift": (1, "latencies of at least one frame (--frames is 1 or more)"),
        "Sources/ProResCheck/BatchCheck.swift": (1, "each file's result is stored before the batch ends"),
        "Sources/ProResCore/Surfaces/FrameBytes.swift": (
            1, "read only where a piece has bytes left, and a non-empty buffer has a base address"
        ),
        "Sources/ProResCheck/FrameSeries.swift": (4, "the series exist when the statistics that fill them do"),
        "Sources/ProResCheck/GoldenFile.swift": (1, "keys are the dictionary's own"),
        "Sources/ProResCheck/GoldenVerdict.swift": (1, "a verdict not in the golden file carries its problem"),
        "Sources/ProResCheck/Page/CheckPage.swift": (2, "every status is in the fixed order list"),
        "Sources/ProResCheck/PreviewCollector.swift": (2, "the image is read back whenever it is kept"),
        "Sources/ProResCheck/PreviewRenderer.swift": (2, "max over thumbnails, at least one (precondition)"),
        "Sources/ProResBench/WholeProcessBenchmark.swift": (2, nonEmptyBuffer + " (mkstemp's template)"),
        "Sources/ProResCPU/ProResCPUDecoder.swift": (
            2, nonEmptyBuffer + " (a quantisation matrix always holds 64 weights)"
        ),
        "Sources/ProResPipeline/Sinks/ConvertedFrameSink.swift": (1, nonEmptyBuffer),
        "Sources/ProResPipeline/Sinks/FrameSink.swift": (
            1, "implicitly unwrapped: set in the initialiser once self exists"
        ),
        "Sources/ProResPipeline/Sinks/OutputFile.swift": (1, "the vector array is not empty inside the loop"),
        "Sources/ProResBench/TimingPlot.swift": (2, "frames filtered to those with a latency"),
        "Sources/ProResTesting/FuzzEntry.swift": (4, "checked non-nil on the same line; " + nonEmptyBuffer),
        "Sources/prores-decode/CheckCommand.swift": (1, "lastIndex of a character just found in the string"),
        "Sources/prores-decode/Console.swift": (1, nonEmptyBuffer),
        "Sources/prores-decode/DeviceListOption.swift": (
            3, "in messages about a list that was split from the same non-nil value"
        ),
        "Sources/prores-decode/main.swift": (1, "argv entries below argc are never NULL"),
    ]

    func testEveryTrapInSourcesIsListedWithItsReason() throws {
        let sources = Repo.root.appendingPathComponent("Sources")
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        var found: [String: [String]] = [:]
        for name in files {
            let path = "Sources/" + name
            let text = try String(contentsOf: sources.appendingPathComponent(name), encoding: .utf8)
            for (number, line) in Self.codeLines(text) {
                for site in Self.traps(in: line) { found[path, default: []].append("\(path):\(number): \(site)") }
            }
        }
        XCTAssertFalse(found.isEmpty, "the scan found nothing: it is not reading Sources/")
        for (path, sites) in found.sorted(by: { $0.key < $1.key }) {
            let allowed = Self.allowed[path]?.count ?? 0
            XCTAssertLessThanOrEqual(
                sites.count, allowed,
                "a trap that outside data may reach; remove it, or list it with why it is safe:\n"
                    + sites.joined(separator: "\n"))
            XCTAssertGreaterThanOrEqual(sites.count, allowed, "\(path) holds fewer traps than listed: lower its count")
        }
        for path in Self.allowed.keys where found[path] == nil {
            XCTFail("\(path) holds no trap any more: remove it from the list")
        }
        for (path, entry) in Self.allowed { XCTAssertFalse(entry.reason.isEmpty, "\(path) is listed without a reason") }
    }

    /// The scanner itself, on lines written by hand.
    func testTheScannerFindsEachKindAndSkipsCommentsAndStrings() {
        XCTAssertEqual(Self.traps(in: "let x = try! f()"), ["try!"])
        XCTAssertEqual(Self.traps(in: "fatalError(\"no\")"), ["fatalError("])
        XCTAssertEqual(Self.traps(in: "let y = z as! Int"), ["as!"])
        XCTAssertEqual(Self.traps(in: "a.b!.c + d[0]! + e()!"), ["b!", "]!", ")!"])
        XCTAssertEqual(Self.traps(in: "let m = list.min { $0 < $1 }!"), ["}!"])
        XCTAssertEqual(Self.traps(in: "if a != b, !c { }"), [])
        XCTAssertEqual(Self.codeLines("let s = \"a! \\(b!) c!\"").flatMap { Self.traps(in: $0.1) }, ["b!"])
        XCTAssertEqual(
            Self.codeLines("let a = 1 // b!\nlet s = \"c!\"\n\"\"\"\nd!important\n\"\"\"\nz!").map(\.1),
            ["let a = 1 ", "let s = \"\"", "z!"])
    }

    /// Each line's code: comments, string contents and multi-line string
    /// bodies removed (a `!` there is text, not an unwrap).
    static func codeLines(_ text: String) -> [(Int, String)] {
        var lines: [(Int, String)] = []
        var inBlock = false
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.contains("\"\"\"") {
                let before = inBlock ? "" : String(line[..<line.range(of: "\"\"\"")!.lowerBound])
                if line.components(separatedBy: "\"\"\"").count == 2 { inBlock.toggle() }
                if !before.isEmpty { lines.append((index + 1, strip(before))) }
                continue
            }
            if !inBlock { lines.append((index + 1, strip(Substring(line)))) }
        }
        return lines
    }

    /// The line without its comment and string contents; the code of a
    /// string's interpolations (`\(x!)`) is kept.
    private static func strip<Line: StringProtocol>(_ line: Line) -> String {
        var out = ""
        var inString = false
        var escaped = false
        var depth = 0
        var previous: Character = " "
        for character in line {
            if depth > 0 {
                if character == "(" { depth += 1 } else if character == ")" { depth -= 1 }
                if depth > 0 { out.append(character) } else { out.append(" ") }
                continue
            }
            if inString {
                if escaped {
                    escaped = false
                    if character == "(" { depth = 1 }
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                    out.append("\"")
                }
                continue
            }
            if character == "/" && previous == "/" {
                out.removeLast()
                break
            }
            if character == "\"" { inString = true }
            out.append(character)
            previous = character
        }
        return out
    }

    /// `try!`, `fatalError(`, `as!`, and `!` right after a name, `)`, `]`, `>` or `}` (not `!=`).
    static func traps(in line: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #"try!|fatalError\(|as!|[A-Za-z0-9_\)\]>}]!(?!=)"#)
        let range = NSRange(line.startIndex..., in: line)
        return pattern.matches(in: line, range: range).compactMap { Range($0.range, in: line).map { String(line[$0]) } }
            .map { site in
                site == "try!" || site == "as!" || site == "fatalError(" ? site : String(site.suffix(2))
            }
    }
}
