import Foundation
import XCTest

@testable import GPUKit
@testable import ProResCheck
@testable import ProResGPU
@testable import ProResPipeline
@testable import TestSupport

/// `check` with `--decoder auto`: the device is made while the first file
/// is checked (on the CPU decoder until it is there), and the later files
/// are checked with it there; every frame's BLAKE3 is `b3sum`'s of the `ffmpeg`
/// CLI's frames, in order.
final class CheckDeviceStartTests: XCTestCase {
    private final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }

    func testTheFirstFileIsCheckedWhileTheDeviceStarts() throws {
        let dir = try makeTemporaryDirectory(self)
        let clips = dir.appendingPathComponent("clips")
        try FileManager.default.createDirectory(at: clips, withIntermediateDirectories: true)
        // Three files of moving pictures, each its own stretch of testsrc2.
        var expected: [[String]] = []
        for n in 0..<3 {
            let path = clips.appendingPathComponent("f\(n).mov").path
            _ = try FrameTools.runProcess(
                "/usr/bin/ffmpeg",
                [
                    "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=256x144:rate=24",
                    "-ss", "\(n)", "-frames:v", "12", "-c:v", "prores_ks", "-profile:v", "3", path,
                ])
            let raw = try FrameTools.runProcess(
                "/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-"])
            let size = 256 * 144 * 2 * 2
            XCTAssertEqual(raw.count, 12 * size)
            expected.append(try B3Sum.hexes((0..<12).map { raw.subdata(in: $0 * size..<($0 + 1) * size) }))
        }
        let inputs = CheckInputExpander.expand([clips.path])
        XCTAssertEqual(inputs.count, 3)
        let firstFileDone = Flag()
        let deviceMadeAfterIt = Flag()
        let batch = BatchCheck(
            inputs: inputs, options: CheckOptions(threadsPerFile: 1, decoder: .init(choice: .auto, validation: true)))
        // lavapipe as the hardware device, made only once the first file is checked (or after 20 s).
        batch.automaticDeviceMaker = {
            let deadline = Date().addingTimeInterval(20)
            while !firstFileDone.isSet && Date() < deadline { usleep(1000) }
            if firstFileDone.isSet { deviceMadeAfterIt.set() }
            return ((try? GPUDevice(context: VulkanContext(options: .init(validation: true)))).map { [$0] } ?? [], nil)
        }
        batch.onResult = { result in if result.input.path.hasSuffix("f0.mov") { firstFileDone.set() } }
        let results = try batch.run()
        XCTAssertTrue(deviceMadeAfterIt.isSet, "the first file was checked before the device was there")
        XCTAssertEqual(results.map(\.status), [.pass, .pass, .pass], results.map(\.errors).description)
        XCTAssertEqual(results.map { $0.hashes.map(\.hash) }, expected)
        XCTAssertEqual(results.map { $0.hashes.map(\.index) }, Array(repeating: Array(0..<12), count: 3))
        XCTAssertEqual(results[0].decoder, "cpu", "the first file ended before the device")
        // The later files are checked with the device there (lavapipe is no
        // hardware device, so `auto` keeps our CPU decoder on it).
        XCTAssertEqual(batch.devices.count, 1)
        XCTAssertTrue(batch.decoderDescription.hasPrefix("gpu ("), batch.decoderDescription)
        XCTAssertEqual(batch.devices.first?.context.validation?.messages ?? [], [])
    }
}
