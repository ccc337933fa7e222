import Foundation
import Glibc
import XCTest

@testable import HostSupport
@testable import ProResCore
@testable import TestSupport

/// File names that are not UTF-8 (`clip\xFF.mov`): opened, written and
/// listed byte for byte, printed as `\xFF`. Foundation's Process and
/// FileManager would turn such names into other names, so the tool is
/// spawned with a byte argv and the files are made and listed with
/// open(2)/readdir(3) directly.
final class NonUTF8NameTests: XCTestCase {
    private var directory: [UInt8] = []

    override func setUpWithError() throws {
        directory = Array(try makeTemporaryDirectory(self).path.utf8)
    }

    private func path(_ name: [UInt8]) -> [UInt8] { directory + Array("/".utf8) + name }
    private func name(_ text: String, _ byte: UInt8, _ suffix: String) -> [UInt8] {
        Array(text.utf8) + [byte] + Array(suffix.utf8)
    }

    func testDecodeOutputsAndInfoKeepTheBytes() throws {
        let clip = name("clip", 0xFF, ".mov")
        try copyFixture("hq.mov", to: path(clip))
        let raw = name("out", 0xFE, ".raw")
        let md5 = name("h", 0xFD, ".md5")
        let hash = name("h", 0xFC, ".b3")
        let decoded = try runBytes([
            path(clip), "--format", "native", "-o", path(raw), "--framemd5", path(md5), "--framehash", path(hash),
        ])
        XCTAssertEqual(decoded.status, 0, decoded.stderr)
        XCTAssertEqual(try listing(directory), [clip, hash, md5, raw].sorted { $0.lexicographicallyPrecedes($1) })
        let reference = try runTool([Repo.fixture("hq.mov"), "--format", "native", "-o", "-"])
        XCTAssertEqual(try contents(path(raw)), reference.stdout, "the raw frames under the non-UTF-8 name")

        let info = try runBytes(["info", path(clip)])
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.stdout.contains("clip\\xFF.mov"), info.stdout)
        let infoJSON = try runBytes(["info", "--json", path(clip)])
        let described = try JSONSerialization.jsonObject(with: Data(infoJSON.stdout.utf8)) as? [String: Any]
        XCTAssertEqual((described?["path"] as? String)?.hasSuffix("/clip\\xFF.mov"), true, infoJSON.stdout)

        let missing = try runBytes([path(name("gone", 0xFA, ".mov"))])
        XCTAssertEqual(missing.status, 3)
        XCTAssertTrue(missing.stderr.hasSuffix("gone\\xFA.mov': no such file\n"), missing.stderr)
    }

    func testSaveDirectoryKeepsItsBytes() throws {
        let clip = name("clip", 0xFF, ".mov")
        let saved = name("frames", 0xFB, "")
        try copyFixture("hq.mov", to: path(clip))
        let result = try runBytes([
            path(clip), "--vulkan", "--save", path(saved), "--save-format", "png", "--frames", "2",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try listing(directory), [clip, saved].sorted { $0.lexicographicallyPrecedes($1) })
        XCTAssertEqual(
            try listing(path(saved)).map { String(decoding: $0, as: UTF8.self) },
            ["frame-000000.png", "frame-000001.png"])
    }

    /// check over a directory holding such a file: the report stays valid
    /// JSON naming it `\xFF`, and the golden key written reads back.
    func testCheckReportAndGoldenRoundTrip() throws {
        let clips = name("clips", 0xF8, "")
        XCTAssertEqual(mkdir(cString(path(clips)), 0o755), 0)
        try copyFixture("hq.mov", to: path(clips) + Array("/".utf8) + name("clip", 0xFF, ".mov"))
        let report = path(Array("report.json".utf8))
        let golden = path(Array("golden.txt".utf8))
        let previews = path(name("previews", 0xF7, ""))
        let written = try runBytes([
            "check", path(clips), "--report", report, "--write-golden", golden, "--previews", previews,
        ])
        XCTAssertEqual(written.status, 0, written.stderr)
        XCTAssertTrue(
            written.stderr.contains("PASS ") && written.stderr.contains("clips\\xF8/clip\\xFF.mov"), written.stderr)

        let json = try JSONSerialization.jsonObject(with: contents(report)) as? [String: Any]
        let file = try XCTUnwrap((json?["files"] as? [[String: Any]])?.first)
        XCTAssertEqual(file["key"] as? String, "clip\\xFF.mov")
        XCTAssertEqual((file["path"] as? String)?.hasSuffix("clips\\xF8/clip\\xFF.mov"), true, "\(file)")
        let made = file["previews"] as? [String: Any]
        XCTAssertEqual(
            (made?["sheet"] as? String)?.hasSuffix("previews\\xF7/clip\\xFF.mov.sheet.png"), true,
            "\(String(describing: made))")
        XCTAssertEqual(
            try listing(previews), [name("clip", 0xFF, ".mov.frame.png"), name("clip", 0xFF, ".mov.sheet.png")])
        let lines = String(decoding: try contents(golden), as: UTF8.self).split(separator: "\n").filter {
            !$0.hasPrefix("#")
        }
        XCTAssertEqual(lines.count, 5)
        XCTAssertTrue(lines.allSatisfy { $0.hasSuffix(" clip\\xFF.mov") }, "\(lines)")

        let verified = try runBytes(["check", path(clips), "--golden", golden])
        XCTAssertEqual(
            verified.status, 0, "the golden key must match the file again:\n\(verified.stdout)\(verified.stderr)")
        XCTAssertFalse(verified.stderr.contains("not in the golden"), verified.stderr)
    }

    /// plot reads the timing log decode wrote under a name that is not
    /// UTF-8, and writes its SVG under another.
    func testPlotReadsALogNameDecodeWrote() throws {
        let clip = name("clip", 0xFF, ".mov")
        let log = name("t", 0xFE, ".jsonl")
        let svg = name("p", 0xFD, ".svg")
        try copyFixture("hq.mov", to: path(clip))
        let decoded = try runBytes([path(clip), "--timing", path(log), "-q"])
        XCTAssertEqual(decoded.status, 0, decoded.stderr)
        let plotted = try runBytes(["plot", path(log), "-o", path(svg)])
        XCTAssertEqual(plotted.status, 0, plotted.stderr)
        XCTAssertTrue(
            String(decoding: try contents(path(svg)), as: UTF8.self).contains("<svg "), "an SVG under the byte name")
    }

    /// The HTML page links the previews of `c\xFF\xFE.mov` by their bytes,
    /// percent-encoded (`c%FF%FE.mov.sheet.png`), so a browser opens the
    /// files that are on disk.
    func testCheckPageLinksPreviewsByTheirBytes() throws {
        let clip = name("c", 0xFF, "") + [0xFE] + Array(".mov".utf8)
        let clips = path(Array("clips".utf8))
        XCTAssertEqual(mkdir(cString(clips), 0o755), 0)
        try copyFixture("hq.mov", to: clips + Array("/".utf8) + clip)
        let page = path(Array("page.html".utf8))
        let previews = path(Array("p".utf8))
        let result = try runBytes(["check", clips, "--html", page, "--previews", previews])
        XCTAssertEqual(result.status, 0, result.stderr)
        let html = String(decoding: try contents(page), as: UTF8.self)
        for kind in ["sheet", "frame"] {
            XCTAssertTrue(
                html.contains("src=\"p/c%FF%FE.mov.\(kind).png\""), "the \(kind) link, percent-encoded by byte")
        }
        XCTAssertEqual(try listing(previews), [clip + Array(".frame.png".utf8), clip + Array(".sheet.png".utf8)])
    }

    /// A name inside a message (a report's reason, a page's text) reads
    /// `\xFF` like the name fields, never the private-use character that
    /// carries the byte in memory.
    func testMessagesInReportsShowTheByteAsTheNameFieldsDo() throws {
        let message = "cannot read '" + PathBytes.string(Array("clip".utf8) + [0xFF] + Array(".mov".utf8)) + "'"
        let json = JSON.string(message)
        XCTAssertEqual(json, #""cannot read 'clip\\xFF.mov'""#)
        let decoded = try JSONSerialization.jsonObject(with: Data(("[" + json + "]").utf8)) as? [String]
        XCTAssertEqual(decoded, [#"cannot read 'clip\xFF.mov'"#], "what a JSON reader sees")
        XCTAssertEqual(XMLText.escape(message), "cannot read &apos;clip\\xFF.mov&apos;")
    }

    func testPathBytesRoundTripsEveryName() {
        let names: [[UInt8]] = [
            [0xFF], Array("a\\b".utf8), [0xC3, 0xA9], [0xC3], [0xED, 0xA0, 0x80], [0xF4, 0x8F, 0xBE, 0x80],
            Array("x".utf8) + [0xE2, 0x82], Array("é∂".utf8),
        ]
        for bytes in names {
            let text = PathBytes.string(bytes)
            XCTAssertEqual(PathBytes.bytes(text), bytes, "\(bytes)")
            XCTAssertEqual(PathBytes.fromReportText(PathBytes.reportText(text)), text, "\(bytes)")
        }
        XCTAssertEqual(PathBytes.reportText(PathBytes.string([0x61, 0xFF, 0x5C])), "a\\xFF\\\\")
        XCTAssertEqual(PathBytes.string(Array("é".utf8)), "é", "valid UTF-8 stays as it is")
    }

    // MARK: - Bytes-level helpers

    private func cString(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }

    private func copyFixture(_ fixture: String, to target: [UInt8]) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Repo.fixture(fixture)))
        let fd = open(cString(target), O_WRONLY | O_CREAT | O_EXCL, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0, "open(2) of a byte name")
        defer { close(fd) }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        XCTAssertEqual(written, data.count)
    }

    private func contents(_ file: [UInt8]) throws -> Data {
        let fd = open(cString(file), O_RDONLY)
        guard fd >= 0 else { throw CocoaError(.fileNoSuchFile) }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true).readDataToEndOfFile()
    }

    /// The names in a directory as bytes, sorted.
    private func listing(_ path: [UInt8]) throws -> [[UInt8]] {
        guard let dir = opendir(cString(path)) else { throw CocoaError(.fileReadNoSuchFile) }
        defer { closedir(dir) }
        var names: [[UInt8]] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != Array(".".utf8) && name != Array("..".utf8) { names.append(name) }
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }
    }

    private struct ByteRun {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs the tool with exactly these argv bytes (posix_spawn), stdout and
    /// stderr into files beside the test's directory.
    private func runBytes(_ arguments: [Any]) throws -> ByteRun {
        // As runTool: check without the default policy (the fixtures' test patterns would WARN).
        let policy: [Any] = arguments.first as? String == "check" ? ["--policy", "none"] : []
        let argv =
            [Array(Repo.executable.path.utf8)]
            + (arguments.prefix(1) + policy + arguments.dropFirst()).map {
                ($0 as? [UInt8]) ?? Array(($0 as! String).utf8)
            }
        let outPath = NSTemporaryDirectory() + "nonutf8-\(UUID().uuidString)"
        defer {
            unlink(outPath + ".out")
            unlink(outPath + ".err")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, outPath + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let cArguments = argv.map { cString($0) }.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, cArguments[0]!, &actions, nil, cArguments, environ)
        XCTAssertEqual(spawned, 0, "posix_spawn")
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let read = { (suffix: String) in
            (try? String(contentsOfFile: outPath + suffix, encoding: .utf8)) ?? "<not UTF-8>"
        }
        // A process killed by a signal has no exit status: 128 + the signal, as a shell says, never 0.
        let signal = status & 0x7F
        return ByteRun(
            status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal, stdout: read(".out"), stderr: read(".err"))
    }
}
