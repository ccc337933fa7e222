import Foundation
import GPUKit
@testable import ProResPipeline
import XCTest

/// `check` on the GPU decoder makes the decoders of the kinds of file ahead
/// while earlier files decode (`BatchCheck.prepareDecodersAhead`): the files
/// that take them get the same verdicts and hashes as without.
final class CheckPreparedDecoderTests: XCTestCase {
    private func check(prepareAhead: Bool) throws -> (results: [FileCheckResult], prepared: Int) {
        let clips = ["hq.mov", "4444-alpha8.mov", "interlaced-bff.mov", "hq.mov", "4444-alpha8.mov"]
        let inputs = clips.enumerated().map { CheckInput(path: Repo.fixture($0.element), key: "\($0.offset)/\($0.element)") }
        let options = CheckOptions(threadsPerFile: 1, decoder: .init(choice: .gpu, validation: true))
        let batch = BatchCheck(inputs: inputs, options: options)
        batch.preparesAhead = prepareAhead
        batch.smallestDeviceForPreparing = 0
        let results = try batch.run()
        XCTAssertEqual(batch.devices.first?.context.validation?.messages ?? [], [])
        return (results, batch.decodersPreparedAhead)
    }

    func testFilesTakeTheDecodersMadeAheadAndCheckTheSame() throws {
        let plain = try check(prepareAhead: false)
        let ahead = try check(prepareAhead: true)
        XCTAssertEqual(plain.prepared, 0)
        // Three kinds. The second file's is made while the first decodes;
        // later ones may be reached by the worker first, which then makes its own.
        XCTAssertGreaterThanOrEqual(ahead.prepared, 1, "no file took a decoder made ahead")
        XCTAssertEqual(ahead.results.count, plain.results.count)
        for (a, p) in zip(ahead.results, plain.results) {
            XCTAssertEqual(a.status, .pass, a.input.key)
            XCTAssertEqual(a.status, p.status, a.input.key)
            XCTAssertEqual(a.hashes.map(\.hash), p.hashes.map(\.hash), a.input.key)
            XCTAssertGreaterThan(a.hashes.count, 0, a.input.key)
        }
    }
}
