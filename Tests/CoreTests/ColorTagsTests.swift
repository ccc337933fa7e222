import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

final class ColorTagsTests: XCTestCase {
    func testFrameHeaderWinsAndDisagreementIsReported() {
        let tags = ColorTags(bitstream: (9, 16, 9), container: (1, 1, 1, nil), height: 2160)
        XCTAssertEqual(tags.primaries.value.name, "bt2020")
        XCTAssertEqual(tags.primaries.source, .bitstream)
        XCTAssertEqual(tags.transfer.value.name, "smpte2084")
        XCTAssertEqual(tags.matrix.value.name, "bt2020nc")
        XCTAssertEqual(tags.conflicts.count, 3)
        XCTAssertTrue(tags.conflicts[1].contains("smpte2084") && tags.conflicts[1].contains("bt709"), tags.conflicts[1])
    }

    func testAgreementIsNotAConflict() {
        let tags = ColorTags(bitstream: (1, 1, 1), container: (1, 1, 1, false), height: 1080)
        XCTAssertTrue(tags.conflicts.isEmpty)
        XCTAssertEqual(tags.range.value, .video)
        XCTAssertEqual(tags.range.source, .container)
        XCTAssertFalse(tags.usesFallback)
    }

    func testContainerFillsUnspecifiedHeaderFields() {
        // Codes 0 (reserved/unknown) and 2 (unspecified) say nothing.
        let tags = ColorTags(bitstream: (2, 0, 2), container: (12, 18, 1, true), height: 1080)
        XCTAssertEqual(tags.primaries.value.name, "smpte432")
        XCTAssertEqual(tags.primaries.source, .container)
        XCTAssertEqual(tags.transfer.value.name, "arib-std-b67")
        XCTAssertEqual(tags.transfer.source, .container)
        XCTAssertEqual(tags.range.value, .full)
        XCTAssertTrue(tags.conflicts.isEmpty)
    }

    func testDocumentedFallbackBySize() {
        let hd = ColorTags(bitstream: (2, 2, 2), container: (2, 2, 2, nil), height: 1080)
        XCTAssertEqual(
            [hd.primaries.value.name, hd.transfer.value.name, hd.matrix.value.name], ["bt709", "bt709", "bt709"])
        XCTAssertEqual(hd.primaries.source, .fallback)
        XCTAssertEqual(hd.range.source, .fallback)
        XCTAssertEqual(hd.range.value, .video)
        XCTAssertTrue(hd.usesFallback)
        let ntsc = ColorTags(bitstream: nil, container: (2, 2, 2, nil), height: 486)
        XCTAssertEqual(ntsc.primaries.value.name, "smpte170m")
        XCTAssertEqual(ntsc.matrix.value.name, "smpte170m")
        let pal = ColorTags(bitstream: nil, container: (2, 2, 2, nil), height: 576)
        XCTAssertEqual(pal.primaries.value.name, "bt470bg")
        XCTAssertEqual(pal.matrix.value.name, "bt470bg")
    }

    func testUnknownCodeIsNotTrusted() {
        // 200 is no H.273 code point: treat as unspecified, not as a value.
        let tags = ColorTags(bitstream: (200, 1, 1), container: (2, 2, 2, nil), height: 1080)
        XCTAssertEqual(tags.primaries.source, .fallback)
    }
}
