import XCTest

@testable import GPUKit
@testable import ProResCore
@testable import ProResFFmpeg
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
@testable import TestSupport

/// Direct reads by the sample table must give exactly libavformat's packets,
/// in order and after seeks, and be used only where they can.
final class SampleTableReaderTests: XCTestCase {
    private func samples(_ source: SampleSource, limit: Int = .max) throws -> [(
        index: Int, pts: Int64?, bytes: [UInt8]
    )] {
        var out: [(Int, Int64?, [UInt8])] = []
        while out.count < limit, let sample = try source.nextSample() {
            out.append((sample.index, sample.pts, Array(sample.bytes)))
        }
        return out
    }

    private func libavformatOnly(_ path: String) throws -> AssetReader {
        let reader = try AssetReader(url: "file:" + path, displayPath: path, track: nil)
        XCTAssertFalse(reader.readsDirectly)
        return reader
    }

    func testDirectReadsEqualLibavformatsPackets() throws {
        let clips = try FileManager.default.contentsOfDirectory(atPath: Repo.fixtures.path).filter {
            $0.hasSuffix(".mov")
        }.sorted()
        XCTAssertGreaterThan(clips.count, 10)
        for clip in clips {
            let path = Repo.fixture(clip)
            let direct = try XCTUnwrap(try openSampleSource(path) as? AssetReader, clip)
            XCTAssertTrue(direct.readsDirectly, "\(clip) should be read by its sample table")
            let a = try samples(direct)
            let b = try samples(try libavformatOnly(path))
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

    /// Reads started early (while a device is made, or the file before is
    /// checked) give the same samples, whether the consumer reads them all,
    /// seeks past them or stops before them; the prefetch may reach past the end.
    func testPrefetchedReadsGiveTheSameFrames() throws {
        for clip in ["interlaced-bff.mov", "hq.mov", "hq.mxf"] {
            let path = Repo.fixture(clip)
            let reference = try samples(try openSampleSource(path))
            let whole = try openSampleSource(path)
            whole.prefetch(frames: 3)
            whole.prefetch(frames: 100)
            let read = try samples(whole)
            XCTAssertEqual(read.map(\.index), reference.map(\.index), clip)
            XCTAssertTrue(zip(read, reference).allSatisfy { $0.bytes == $1.bytes }, "\(clip): the bytes differ")
            let sought = try openSampleSource(path)
            sought.prefetch(frames: 2)
            try sought.seek(toFrame: reference.count - 1)
            XCTAssertEqual(try samples(sought).map(\.bytes), [reference.last!.bytes], clip)
            let stopped = try openSampleSource(path)
            stopped.prefetch(frames: 100)
            XCTAssertEqual(try samples(stopped, limit: 1).map(\.bytes), [reference[0].bytes], clip)
        }
    }

    /// A prefetch stops at its byte budget, but always reads the first sample.
    func testPrefetchStopsAtItsByteBudget() throws {
        let path = Repo.fixture("hq.mov")
        let count = try samples(try openSampleSource(path)).count
        XCTAssertGreaterThan(count, 2)
        let capped = try XCTUnwrap(try openSampleSource(path) as? AssetReader)
        XCTAssertTrue(capped.readsDirectly)
        XCTAssertEqual(capped.tableReader?.readsPending, 0)
        capped.prefetch(frames: 100)
        XCTAssertEqual(capped.tableReader?.readsPending, count, "a small file is read ahead whole")
        let one = try XCTUnwrap(try openSampleSource(path) as? AssetReader)
        XCTAssertEqual(one.tableReader?.readsPending, 0)
        try XCTUnwrap(one.tableReader).prefetch(from: 0, count: 100, maxBytes: 1)
        XCTAssertEqual(one.tableReader?.readsPending, 1)
        XCTAssertEqual(try samples(one).count, count)
    }

    /// A source reads `readAhead` samples ahead of its consumer: 8 unless
    /// told (here 2, on a 5-frame file: one read in flight after the first
    /// sample, against all four left by default), and the bytes are
    /// libavformat's packets.
    func testReadAheadSetsTheReadsInFlight() throws {
        let path = Repo.fixture("hq.mov")
        let reference = try samples(try libavformatOnly(path))
        XCTAssertEqual(reference.count, 5)
        let plain = try XCTUnwrap(try openSampleSource(path) as? AssetReader)
        _ = try plain.nextSample()
        XCTAssertEqual(plain.tableReader?.readsPending, 4)
        let narrow = try XCTUnwrap(try openSampleSource(path) as? AssetReader)
        narrow.readAhead(samples: 2)
        let first = try XCTUnwrap(try narrow.nextSample())
        XCTAssertEqual(narrow.tableReader?.readsPending, 1)
        XCTAssertEqual([Array(first.bytes)] + (try samples(narrow)).map(\.bytes), reference.map(\.bytes))
    }

    func testWhatItCannotReadExactlyStaysWithLibavformat() throws {
        for path in [Repo.fixture("hq.mxf"), Repo.fixture("bad/truncated-faststart.mov")] {
            let source = try XCTUnwrap(try openSampleSource(path) as? AssetReader, path)
            XCTAssertFalse(source.readsDirectly, path)
        }
    }
}
