import Foundation
import XCTest

/// The C probes built for a machine with an NVIDIA GPU still build, run on
/// lavapipe, and move the file's own bytes: a probe that rots here would
/// waste a run there.
final class DeviceProbeTests: XCTestCase {
    /// `read-ceiling`'s two ways into the pool (today's reader and the
    /// mapped file) each leave the file's bytes in the pool.
    func testReadCeilingCopiesTheFile() throws {
        let directory = try makeTemporaryDirectory(self)
        let file = try randomFile(in: directory)
        let probe = try buildProbe("read-ceiling", in: directory)
        let run = try runExternal(["env", "READER_ONLY=1", "POOL_MB=64", probe, file, "1000000"])
        XCTAssertEqual(run.status, 0, run.stderr)
        for method in ["piece-pool", "map-pool  "] {
            XCTAssertTrue(run.text.contains("\(method) the pool's last chunk equals the file"), run.text)
        }
        XCTAssertFalse(run.text.contains("DIFFERS"), run.text)
    }

    /// `bar-probe` on lavapipe: the BAR ring holds the file, and the reads
    /// with the imported ring copied by the GPU beside them complete.
    func testBarProbeReadsBesideTheDMA() throws {
        let directory = try makeTemporaryDirectory(self)
        let file = try randomFile(in: directory)
        let probe = try buildProbe("bar-probe", in: directory, libraries: ["-ldl"])
        let run = try runExternal([probe, file, "16", "1000", "1,2"])
        XCTAssertEqual(run.status, 0, run.stderr + run.text)
        XCTAssertTrue(run.text.contains("bar: read back slot 0 equals the file"), run.text)
        XCTAssertTrue(run.text.contains("dma alone:"), run.text)
        XCTAssertTrue(run.text.contains("anon-nt+dma threads  2:"), run.text)
        XCTAssertFalse(run.text.contains("FAILED"), run.text)
    }

    /// scripts/NAME.c built as it is built for a GPU machine,
    /// with the reader's streaming copy beside it; the executable's path.
    private func buildProbe(_ name: String, in directory: URL, libraries: [String] = []) throws -> String {
        let probe = directory.appendingPathComponent(name).path
        let build = try runExternal(["gcc", "-O2", "-pthread", "-I", Repo.root.appendingPathComponent("Sources/CStreamingCopy/include").path,
                                     "-o", probe, Repo.root.appendingPathComponent("scripts/\(name).c").path,
                                     Repo.root.appendingPathComponent("Sources/CStreamingCopy/streaming_copy.c").path] + libraries)
        XCTAssertEqual(build.status, 0, build.stderr)
        return probe
    }

    /// 32 MB of random bytes: no two chunks alike, so a copy of the wrong
    /// chunk cannot pass for the right one.
    private func randomFile(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("random.bin").path
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(32 << 17)).map { _ in generator.next() as UInt64 }
        try bytes.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: path)) }
        return path
    }
}
