import Foundation
import XCTest

@testable import GPUKit
@testable import ProResCheck
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// The preview pieces without a GPU: the box filter, the pixel shading and
/// checkerboard, the sheet layout, names; and the downscaled path once
/// through the library on lavapipe.
final class CheckPreviewUnitTests: XCTestCase {
    private func image(_ width: Int, _ height: Int, _ pixels: [[Float]]) -> PreviewImage {
        PreviewImage(width: width, height: height, values: pixels.flatMap { $0.map(Float16.init) })
    }

    private func pixel(_ image: PreviewImage, _ x: Int, _ y: Int) -> [Double] {
        (0..<4).map { image.value(x: x, y: y, channel: $0) }
    }

    // MARK: - Box filter

    func testBoxWeightsCoverEachFootprint() {
        // 3 → 2: footprints [0, 1.5) and [1.5, 3).
        let weights = PreviewImage.boxWeights(source: 3, target: 2)
        XCTAssertEqual(weights.map { $0.map(\.index) }, [[0, 1], [1, 2]])
        XCTAssertEqual(weights[0].map(\.weight), [2.0 / 3, 1.0 / 3])
        XCTAssertEqual(weights[1].map(\.weight), [1.0 / 3, 2.0 / 3])
        // 4 → 2: two whole pixels each.
        XCTAssertEqual(
            PreviewImage.boxWeights(source: 4, target: 2).map { $0.map(\.weight) }, [[0.5, 0.5], [0.5, 0.5]])
        for (source, target) in [(1920, 320), (187, 96), (101, 53), (7, 7)] {
            for footprint in PreviewImage.boxWeights(source: source, target: target) {
                XCTAssertEqual(footprint.reduce(0) { $0 + $1.weight }, 1, accuracy: 1e-12, "\(source) → \(target)")
            }
        }
    }

    /// 4x2 → 2x1: each output pixel averages a 2x2 block, colour weighted by
    /// alpha (premultiplied), so a transparent pixel's colour does not bleed.
    func testDownscaleAveragesPremultipliedLinearValues() {
        let source = image(
            4, 2,
            [
                [1, 0, 0, 0], [0, 0, 1, 1], [0.25, 0.5, 1, 1], [0.75, 0.5, 0, 1],
                [1, 0, 0, 0], [0, 0, 1, 1], [4, 2, 0, 0.5], [0, 0, 0, 0.5],
            ])
        let small = source.downscaled(toWidth: 2)
        XCTAssertEqual([small.width, small.height], [2, 1])
        // Left: two transparent reds, two opaque blues → blue, alpha 0.5.
        XCTAssertEqual(pixel(small, 0, 0), [0, 0, 1, 0.5])
        // Right: premultiplied sums (0.25+0.75+2, 0.5+0.5+1, 1, 3) / alpha sum 3, alpha 3/4.
        XCTAssertEqual(pixel(small, 1, 0), [1, 2.0 / 3, 1.0 / 3, 0.75].map { Double(Float16($0)) })
        // The same size is the same picture; heights keep the aspect.
        XCTAssertEqual(source.downscaled(toWidth: 4).samples, source.samples)
        XCTAssertEqual(PreviewImage.scaledHeight(width: 1920, height: 1080, forWidth: 320), 180)
        XCTAssertEqual(PreviewImage.scaledHeight(width: 187, height: 101, forWidth: 96), 52)
    }

    // MARK: - Shading

    /// Written out from the documentation: alpha 0 is the checker's code
    /// exactly; opaque pixels follow --save-format png's curve; negatives
    /// clip; partial alpha mixes in linear light.
    func testShadeFollowsTheDocumentedCurveAndChecker() {
        let light = PreviewRenderer.checker(x: 0, y: 0)
        let dark = PreviewRenderer.checker(x: 8, y: 0)
        XCTAssertEqual(PreviewRenderer.checker(x: 7, y: 7), light)
        XCTAssertEqual(PreviewRenderer.checker(x: 8, y: 8), light)
        XCTAssertEqual(PreviewRenderer.checker(x: 0, y: 15), dark)
        func codes(_ r: Double, _ g: Double, _ b: Double, _ a: Double, _ k: Double) -> [UInt16] {
            let c = PreviewRenderer.shade(r: r, g: g, b: b, a: a, checker: k)
            return [c.0, c.1, c.2]
        }
        XCTAssertEqual(codes(5, -1, 0.3, 0, light), [0xCCCC, 0xCCCC, 0xCCCC])
        XCTAssertEqual(codes(5, -1, 0.3, 0, dark), [0x9999, 0x9999, 0x9999])
        func srgb(_ v: Double) -> Double { v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055 }
        func code(_ v: Double) -> UInt16 { UInt16((min(max(v, 0), 1) * 65535).rounded()) }
        // Mid tones: the sRGB curve alone.
        XCTAssertEqual(codes(0.5, 0.18, 0.001, 1, light), [code(srgb(0.5)), code(srgb(0.18)), code(srgb(0.001))])
        // Highlights: m = 2 → t = 0.75 + 0.25·(1 − e^−5), every channel × t/2; -1 clips to 0.
        let t = 0.75 + 0.25 * (1 - exp(-5.0))
        XCTAssertEqual(codes(2, 1, -1, 1, light), [code(srgb(t)), code(srgb(t / 2)), 0])
        XCTAssertLessThan(codes(2, 1, -1, 1, light)[0], 65535)
        // Half transparent: half the tone-mapped colour plus half the checker, in linear light.
        let k = pow((0.8 + 0.055) / 1.055, 2.4)  // the checker's light square, sRGB 0.8 decoded (IEC 61966-2-1)
        XCTAssertEqual(codes(0.5, 0, 0, 0.5, light), [code(srgb(0.25 + k / 2)), code(srgb(k / 2)), code(srgb(k / 2))])
        // Nothing the conversion cannot produce traps.
        XCTAssertEqual(codes(.nan, .infinity, -.infinity, .nan, light).count, 3)
    }

    /// The full frame's fast path (opaque pixels below the roll-off, from a
    /// table) gives exactly `shade`'s codes, and so does every other pixel.
    func testFrameCodesAreShadesCodes() {
        let values: [Float] = [0, 0.001, 0.0031, 0.2, 0.5, 0.74, 0.75, 0.7502, 1, 3, -0.1, .nan]
        var pixels: [[Float]] = []
        for r in values {
            for g in [Float(0.3), 0.75, 2] { for a in [Float(1), 0.5, 0] { pixels.append([r, g, 0.1, a]) } }
        }
        let source = image(pixels.count, 1, pixels)
        let frame = PreviewRenderer.frame(source)
        for (x, p) in pixels.enumerated() {
            let shaded = PreviewRenderer.shade(
                r: Double(Float16(p[0])), g: Double(Float16(p[1])), b: Double(Float16(p[2])),
                a: Double(Float16(p[3])), checker: PreviewRenderer.checker(x: x, y: 0))
            XCTAssertEqual(Array(frame.samples[3 * x..<3 * x + 3]), [shaded.0, shaded.1, shaded.2], "pixel \(p)")
        }
    }

    func testSheetLayout() {
        let tile = image(2, 1, [[0, 0, 0, 1], [0, 0, 0, 1]])
        let sheet = PreviewRenderer.sheet([tile, tile, tile, tile], columns: 3)
        XCTAssertEqual([sheet.width, sheet.height], [3 * 2 + 2 * 8, 2 * 1 + 8])
        let at = { (x: Int, y: Int) in Array(sheet.samples[(y * sheet.width + x) * 3..<(y * sheet.width + x) * 3 + 3]) }
        XCTAssertEqual(at(0, 0), [0, 0, 0])
        XCTAssertEqual(at(2, 0), [0x2020, 0x2020, 0x2020], "gap")
        XCTAssertEqual(at(10, 0), [0, 0, 0], "second thumbnail at 2 + 8")
        XCTAssertEqual(at(0, 9), [0, 0, 0], "second row at 1 + 8")
        XCTAssertEqual(at(10, 9), [0x2020, 0x2020, 0x2020], "empty cell")
        let one = PreviewRenderer.sheet([tile], columns: 3)
        XCTAssertEqual([one.width, one.height], [2, 1], "no gap around a single thumbnail")
    }

    func testNames() {
        XCTAssertEqual(PreviewOptions.baseName(key: "good/sub/hq.mov"), "good__sub__hq.mov")
        let options = PreviewOptions(directory: "out/")
        XCTAssertEqual(options.sheetPath(key: "a/b.mov"), "out/a__b.mov.sheet.png")
        XCTAssertEqual(options.framePath(key: "/abs/c.mov"), "out/__abs__c.mov.frame.png")
        XCTAssertEqual(PreviewOptions(directory: "/").sheetPath(key: "x"), "/x.sheet.png")
    }

    // MARK: - Downscaled thumbnails through the library

    /// 4444.mov with 96-pixel thumbnails (exactly half size): the transparent
    /// rows 28–55 become thumbnail rows 14–27, fully transparent, so the
    /// checker shows there exactly; the opaque rows 0–27 become rows 0–13.
    func testHalfSizeThumbnailsOnTheGPU() throws {
        let out = try makeTemporaryDirectory(self)
        let input = CheckInput(path: Repo.fixture("4444.mov"), key: "clips/4444.mov")
        let options = CheckOptions(
            threadsPerFile: 1,
            previews: PreviewOptions(
                directory: out.path, frames: 4, thumbnailWidth: 96,
                gpu: .init(context: .init(validation: true))))
        let result = try XCTUnwrap(try BatchCheck(inputs: [input], options: options).run().first)
        XCTAssertEqual(result.status, .pass)
        guard case .written(let sheetPath, let framePath, let frames, _, let full)? = result.previews else {
            return XCTFail("no previews: \(String(describing: result.previews))")
        }
        XCTAssertEqual(sheetPath, out.path + "/clips__4444.mov.sheet.png")
        XCTAssertEqual(frames, [0, 1, 3, 4], "FrameSampling of 5 frames, 4 samples")
        XCTAssertEqual(full, 3, "frames[4 / 2]")
        let sheet = try PNGPixels(sheetPath)
        XCTAssertEqual([sheet.width, sheet.height], [3 * 96 + 2 * 8, 2 * 56 + 8])
        for (left, top) in [(0, 0), (104, 0), (208, 0), (0, 64)] {
            for y in 14..<28 {
                for x in 0..<96 {
                    let grey: UInt16 = (x / 8 + y / 8) % 2 == 0 ? 0xCCCC : 0x9999
                    if sheet[left + x, top + y].rgb != [grey, grey, grey] {
                        return XCTFail(
                            "thumbnail at (\(left), \(top)), pixel (\(x), \(y)): \(sheet[left + x, top + y].rgb)")
                    }
                }
            }
        }
        let frame = try PNGPixels(framePath)
        XCTAssertEqual([frame.width, frame.height], [192, 112], "the full frame keeps its size")
        // An opaque thumbnail pixel is the mean of its 2x2 block, shaded:
        // compare with the mean of the full frame's linear values.
        func linear(_ code: UInt16) -> Double {  // IEC 61966-2-1's decoding, written out
            let v = Double(code) / 65535
            return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        }
        let thumbnail = (x: 208, y: 0)  // frame 3, the full frame's
        var compared = 0
        for y in 0..<14 {
            for x in stride(from: 1, to: 96, by: 7) {
                let block = [(0, 0), (1, 0), (0, 1), (1, 1)].map { frame[2 * x + $0.0, 2 * y + $0.1].rgb.map(linear) }
                // Only below the roll-off (every channel of the four ≤ 0.75)
                // is the shaded mean the mean of the shaded values.
                guard block.allSatisfy({ $0.allSatisfy { $0 < 0.74 } }) else { continue }
                for c in 0..<3 {
                    let mean = block.reduce(0) { $0 + $1[c] } / 4
                    XCTAssertEqual(
                        linear(sheet[thumbnail.x + x, thumbnail.y + y].rgb[c]), mean, accuracy: 1e-3,
                        "(\(x), \(y)) channel \(c)")
                }
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 50)
    }
}
