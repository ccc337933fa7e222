import Foundation
import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResGPU
@testable import TestSupport

/// Per-frame statistics of every fixture three ways: a plain loop written
/// here over the ffmpeg CLI's own decode (the reference), the CPU
/// measurement `check` uses (`PictureSums(frame:range:light:)`), and the GPU
/// pass over the frames packed as the GPU decoder leaves them
/// (`FrameStatisticsPass`). Integers must be equal; light within 1e-4.
final class FrameStatisticsFixtureTests: XCTestCase {
    /// Every clip in Fixtures/ the GPU decoder could decode (all but 4:2:2
    /// with alpha, of which there is none). `hq.prores` is left out: ffmpeg
    /// 5.1 cannot read a raw ProRes stream, and its frames are hq.mov's.
    static func clips() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: Repo.fixtures.path)
            .filter { $0.hasSuffix(".mov") || $0.hasSuffix(".mxf") }.sorted()
    }

    private func frames(_ clip: String) throws -> (FormatDescription, [PlanarTestFrame]) {
        let (format, _) = try fixtureSamples(clip)
        let frames = try ffmpegPlanarFrames(
            clip, format: format.nativeFormat, width: format.width, height: format.height)
        XCTAssertEqual(frames.count, format.frameCount, clip)
        return (format, frames)
    }

    func testEveryFixtureMeasuresTheSameOnCPUAndGPU() throws {
        let device = try StatisticsDevice.shared.get()
        let clips = try Self.clips()
        XCTAssertGreaterThanOrEqual(clips.count, 19)
        var worst = 0.0
        for clip in clips {
            let (format, frames) = try frames(clip)
            XCTAssertFalse(
                format.chroma == .c422 && format.hasAlpha, "\(clip): the GPU decoder does not decode 4:2:2 with alpha")
            let range = format.colorTags.range.value
            let light = try LightLevelMeter(tags: format.colorTags, bitDepth: format.nativeFormat.bitDepth)
            let cpu = frames.map { $0.cpuSums(range: range, light: light) }
            for (i, frame) in frames.enumerated() {
                let integers = cpu[i].integers
                XCTAssertEqual(
                    integers, referenceSums(frame, videoRange: range == .video),
                    "\(clip) frame \(i): CPU vs the plain loop")
            }
            let (gpu, grids) = try device.measure(frames, range: range, light: light)
            for i in frames.indices { worst = max(worst, assertSameSums(gpu[i], cpu[i], "\(clip) frame \(i)")) }
            for (i, frame) in frames.enumerated() {
                XCTAssertEqual(grids[i].samples, frame.referenceGrid(), "\(clip) frame \(i): GPU still grid")
            }
        }
        print("FrameStatisticsFixtureTests: worst light relative error (tagged PQ/HLG fixtures) \(worst)")
        XCTAssertEqual(device.validationMessages, [])
    }

    /// pq.mov and hlg.mov with their own tags, and every other fixture
    /// measured as if tagged PQ and HLG (BT.2020), so the light is checked
    /// on 10 and 12 bits, y416 and v216, odd sizes and every picture.
    func testLightOnGPUMatchesTheCPU() throws {
        let device = try StatisticsDevice.shared.get()
        var worst = (error: 0.0, what: "")
        for clip in try Self.clips() {
            let (format, frames) = try frames(clip)
            let depth = format.nativeFormat.bitDepth
            var meters: [(String, LightLevelMeter)] = []
            for transfer in [16, 18] {
                let tags = ColorTags(bitstream: (9, transfer, 9), container: (2, 2, 2, nil), height: format.height)
                meters.append(("transfer \(transfer)", try XCTUnwrap(try LightLevelMeter(tags: tags, bitDepth: depth))))
            }
            if let own = try LightLevelMeter(tags: format.colorTags, bitDepth: depth) {
                meters.append(("own tags", own))
            }
            for (name, meter) in meters {
                let cpu = frames.map { $0.cpuSums(range: .video, light: meter) }
                let gpu = try device.sums(frames, range: .video, light: meter)
                for i in frames.indices {
                    let error = assertSameSums(gpu[i], cpu[i], "\(clip) \(name) frame \(i)")
                    if error > worst.error {
                        worst = (error, "\(clip) \(name) frame \(i): GPU \(gpu[i].light!) CPU \(cpu[i].light!)")
                    }
                }
            }
        }
        print("FrameStatisticsFixtureTests: worst light relative error \(worst.error) at \(worst.what)")
        XCTAssertEqual(device.validationMessages, [])
    }
}
