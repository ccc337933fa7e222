import Foundation
import XCTest

@testable import GPUKit
@testable import HostSupport
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import TestSupport

/// `bench`'s link ceiling on the gpu decoder: the bytes a frame takes to
/// the device against the packets FFmpeg reads from the file and the slices
/// their picture headers declare, and the ceiling and share against the
/// other numbers the same result reports.
final class BenchLinkCeilingTests: XCTestCase {
    /// Each packet of the clip's video track, as FFmpeg's demuxer gives it.
    private func packets(_ clip: String) throws -> [Data] {
        let sizes = try runProgram(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size",
                "-of", "csv=p=0", Repo.fixture(clip),
            ])
        XCTAssertEqual(sizes.status, 0, sizes.stderr)
        let lengths = sizes.stdoutText.split(whereSeparator: \.isNewline).compactMap {
            Int($0.trimmingCharacters(in: .whitespaces))
        }
        let copy = try runProgram(
            "/usr/bin/ffmpeg",
            ["-v", "error", "-i", Repo.fixture(clip), "-map", "0:v:0", "-c", "copy", "-f", "data", "-"])
        XCTAssertEqual(copy.status, 0, copy.stderr)
        XCTAssertEqual(copy.stdout.count, lengths.reduce(0, +), "\(clip): the stream copy holds exactly the packets")
        var offset = copy.stdout.startIndex
        return lengths.map { length in
            defer { offset += length }
            return copy.stdout[offset..<offset + length]
        }
    }

    /// Slices a ProRes frame declares (RDD 36: the frame header's size at
    /// byte 8, then each picture header's slice count at its bytes 5-6; an
    /// interlaced frame holds two pictures).
    private func slices(_ frame: Data) -> Int {
        let bytes = [UInt8](frame)
        func be16(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
        func be32(_ at: Int) -> Int { be16(at) << 16 | be16(at + 2) }
        let headerSize = be16(8)
        let interlaced = (bytes[8 + 12] >> 2) & 3 != 0
        var picture = 8 + headerSize
        var count = 0
        for _ in 0..<(interlaced ? 2 : 1) {
            count += be16(picture + 5)
            picture += be32(picture + 1)
        }
        return count
    }

    func testTheGPUResultsCeilingAgreesWithItsOwnNumbersAndTheFile() throws {
        for clip in ["hq.mov", "4444.mov"] {
            let frames = try packets(clip)
            XCTAssertGreaterThan(frames.count, 1, clip)
            // Whole loops of the clip, so that every sample counts the same.
            let timed = 4 * frames.count
            let result = try runTool(
                ["bench", Repo.fixture(clip), "--decoders", "cpu,gpu", "--frames", "\(timed)", "--json"], timeout: 300)
            XCTAssertEqual(result.status, 0, result.stderr)
            let report = try XCTUnwrap(
                (try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])?.first)
            let results = try XCTUnwrap(report["results"] as? [[String: Any]])
            let cpu = try XCTUnwrap(results.first { $0["decoder"] as? String == "cpu" })
            let gpu = try XCTUnwrap(results.first { $0["decoder"] as? String == "gpu" })
            XCTAssertTrue(cpu["link"] is NSNull, "\(clip): a CPU decoder has no link: \(cpu)")
            let link = try XCTUnwrap(gpu["link"] as? [String: Any], "\(clip): \(gpu)")
            func number(_ key: String) throws -> Double {
                try XCTUnwrap((link[key] as? NSNumber)?.doubleValue, "\(clip) link.\(key)")
            }

            // The samples are the file's packets, byte for byte.
            let sampleBytes = Double(frames.reduce(0) { $0 + $1.count }) / Double(frames.count)
            XCTAssertEqual(try number("sample_bytes_per_frame"), sampleBytes, accuracy: 0.051, clip)
            // 64 zero bytes after each sample, a staged one's rounded up to a whole 4-byte word.
            let padding = try number("padding_bytes_per_frame")
            XCTAssertTrue((64...67).contains(padding), "\(clip): padding \(padding)")
            // The tables: 32 bytes a slice and 144 a frame, each batch's two tables rounded up to 256 bytes.
            let exactTables = Double(frames.reduce(0) { $0 + 32 * slices($1) + 144 }) / Double(frames.count)
            let tables = try number("table_bytes_per_frame")
            XCTAssertGreaterThanOrEqual(tables, exactTables - 0.051, clip)
            XCTAssertLessThanOrEqual(tables, exactTables + 2 * 255, clip)
            let bytesPerFrame = try number("bytes_per_frame")
            XCTAssertEqual(bytesPerFrame, sampleBytes + padding + tables, accuracy: 0.16, clip)

            // The ceiling from the bandwidth and the bytes, the share from the fps and the ceiling,
            // each within the rounding of the numbers printed.
            let bandwidth = try number("bytes_per_second")
            let ceiling = try number("ceiling_fps")
            let share = try number("share")
            let fps = try XCTUnwrap((gpu["fps"] as? NSNumber)?.doubleValue)
            XCTAssertGreaterThan(bandwidth, 0, clip)
            XCTAssertEqual(ceiling, bandwidth / bytesPerFrame, accuracy: 0.05 + ceiling * 0.05 / bytesPerFrame, clip)
            XCTAssertEqual(share, fps / ceiling, accuracy: 5e-9 + share * (0.05 / fps + 0.05 / ceiling), clip)
            XCTAssertTrue((link["method"] as? String ?? "").contains("vkCmdCopyBuffer"), "\(clip): \(link)")
        }
    }

    /// Every upload path counts each sample once with its padding: 64 zero
    /// bytes copied after a sample from imported memory, a staged sample's
    /// rounded up to a whole word; the tables come on top.
    func testEveryUploadPathCountsTheSamplesAndTheirPadding() throws {
        let context = try VulkanContext()
        try XCTSkipUnless(context.info.hostMemoryImport, "the device cannot import host memory")
        let kernels = KernelCache(context: context, compiler: try ShaderCompiler(cacheDirectory: nil))
        let frames = try packets("hq.mov")
        let sampleBytes = frames.reduce(0) { $0 + $1.count }
        let staged = frames.reduce(0) { $0 + ($1.count + 64 + 3) / 4 * 4 - $1.count }
        for (upload, padding) in [(UploadPath.fromSampleMemory, 64 * frames.count), (.copy, staged), (.direct, staged)]
        {
            let source = try openSampleSource(Repo.fixture("hq.mov"))
            let session = try GPUDecodeSession(
                format: source.format, context: context, kernels: kernels,
                configuration: .init(framesPerBatch: 2, readback: false, upload: upload)
            ) { _ in }
            while let sample = try source.nextSample() { try session.decode(sample) }
            try session.finish()
            let traffic = session.linkTraffic
            XCTAssertEqual(traffic.frames, frames.count, "\(upload)")
            XCTAssertEqual(traffic.sampleBytes, sampleBytes, "\(upload)")
            XCTAssertEqual(traffic.paddingBytes, padding, "\(upload)")
            XCTAssertGreaterThan(traffic.tableBytes, 0, "\(upload)")
            XCTAssertEqual(traffic.bytes, traffic.sampleBytes + traffic.paddingBytes + traffic.tableBytes, "\(upload)")
        }
    }

    /// The text result says the same on the gpu decoder's lines and nothing on the CPU's.
    func testTheTextNamesTheCeilingOnTheGPULinesOnly() throws {
        let result = try runTool(
            ["bench", Repo.fixture("hq.mov"), "--decoders", "cpu,gpu", "--frames", "10"], timeout: 300)
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        let gpuStart = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("gpu: ") }, result.stdoutText)
        let linkLines = lines.indices.filter { lines[$0].hasPrefix("  link: ") }
        XCTAssertEqual(linkLines.count, 1, result.stdoutText)
        XCTAssertGreaterThan(linkLines.first ?? 0, gpuStart, result.stdoutText)
        let line = lines[linkLines.first ?? 0]
        for words in [
            "a frame to the device", "of sample", "of padding", "of tables", "GB/s", "ceiling", "fps",
            "% of it reached",
        ] {
            XCTAssertTrue(line.contains(words), "'\(words)' in: \(line)")
        }
    }
}
