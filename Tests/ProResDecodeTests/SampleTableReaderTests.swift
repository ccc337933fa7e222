@testable import ProResCore
@testable import ProResFFmpeg
@testable import GPUKit
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
import XCTest

/// Direct reads by the sample table must give exactly libavformat's packets,
/// in order and after seeks, and be used only where they can.
final class SampleTableReaderTests: XCTestCase {
    private func samples(_ source: SampleSource, limit: Int = .max) throws -> [(index: Int, pts: Int64?, bytes: [UInt8])] {
        var out: [(Int, Int64?, [UInt8])] = []
        while out.count < limit, let sample = try source.nextSample() { out.append((sample.index, sample.pts, Array(sample.bytes))) }
        return out
    }

    private func libavformatOnly(_ path: String) throws -> AssetReader {
        let reader = try AssetReader(url: "file:" + path, displayPath: path, track: nil)
        XCTAssertFalse(reader.readsDirectly)
        return reader
    }

    func testDirectReadsEqualLibavformatsPackets() throws {
        let clips = try FileManager.default.contentsOfDirectory(atPath: Repo.fixtures.path).filter { $0.hasSuffix(".mov") }.sorted()
        XCTAssertGreaterThan(clips.count, 10)
        for clip in clips {
            let path = Repo.fixture(clip)
            let direct = try XCTUnwrap(try openSampleSource(path) as? AssetReader, clip)
            XCTAssertTrue(direct.readsDirectly, "\(clip) should be read by its sample table")
            let a = try samples(direct), b = try samples(try libavformatOnly(path))
            XCTAssertEqual(a.count, b.count, clip)
            XCTAssertEqual(a.map(\.index), b.map(\.index), clip)
            XCTAssertEqual(a.map(\.pts), b.map(\.pts), clip)
            XCTAssertTrue(zip(a, b).allSatisfy { $0.bytes == $1.bytes }, "\(clip): the bytes differ")
            XCTAssertNil(direct.shortfall, clip)
        }
    }

    /// A seek drops the reads in flight; reading stops early without leaking them.
    func testSeeksAndEarlyStopsReadTheSameFrames() throws {
        let path = Repo.fixture("interlaced-bff.mov")
        let reference = try samples(try libavformatOnly(path))
        for start in reference.indices.reversed() {
            let source = try XCTUnwrap(try openSampleSource(path) as? AssetReader)
            XCTAssertTrue(source.readsDirectly)
            _ = try samples(source, limit: 2)
            try source.seek(toFrame: start)
            let rest = try samples(source, limit: 2)
            XCTAssertEqual(rest.map(\.index), Array(start..<min(start + 2, reference.count)))
            XCTAssertTrue(zip(rest, reference[start...]).allSatisfy { $0.bytes == $1.bytes }, "--start \(start)")
        }
    }

    func testWhatItCannotReadExactlyStaysWithLibavformat() throws {
        for path in [Repo.fixture("hq.mxf"), Repo.fixture("bad/truncated-faststart.mov")] {
            let source = try XCTUnwrap(try openSampleSource(path) as? AssetReader, path)
            XCTAssertFalse(source.readsDirectly, path)
        }
    }
}
