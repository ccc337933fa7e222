import Foundation
import XCTest

@testable import TestSupport

/// Every command in README.md's "Examples" runs as written: each line of its
/// code blocks is executed by bash, with the built `prores-decode` first on
/// PATH, in a folder holding the files the examples name (`clip.mov`, a
/// `deliverables/` folder), the way a new user would type it there. `play`
/// runs on a private Xvfb; its clip is 5 frames long, so it ends by itself.
final class ReadmeExampleTests: XCTestCase {
    /// The subcommands a new user meets; `decode` is the command without a word.
    private static let commands = ["decode", "info", "devices", "roofline", "check", "merge", "bench", "play", "plot"]

    func testEveryReadmeExampleRunsAsWritten() throws {
        let examples = try Self.exampleLines()
        let folder = try Self.prepareFolder(self)
        let xvfb = examples.contains { $0.contains("prores-decode play") } ? try XvfbServer(self) : nil
        let binaries = Repo.executable.deletingLastPathComponent().path
        // A new user's kernel caches start empty; the machine's own may hold
        // files another build wrote.
        let cache = try makeTemporaryDirectory(self).path
        for line in examples {
            var environment = "export PATH='\(binaries)':\"$PATH\"; export XDG_CACHE_HOME='\(cache)'"
            if let xvfb { environment += "; export DISPLAY=\(xvfb.display)" }
            let script = "cd '\(folder.path)' && \(environment) && \(line)"
            let run = try runExternal(["timeout", "600", "bash", "-c", script])
            XCTAssertEqual(run.status, 0, "README example exits \(run.status): \(line)\n\(run.stderr)")
        }
        // What the examples say they write is there.
        for written in [
            "frames.y4m", "frames.y416", "clip.framemd5", "exr/frame-000000.exr",
            "qc/index.html", "shard-1.json", "shard-2.json", "all.json", "junit.xml", "t.jsonl", "t.svg",
        ] {
            XCTAssertTrue(
                FileManager.default.fileExists(atPath: folder.appendingPathComponent(written).path),
                "a README example did not write \(written)")
        }
    }

    /// README.md's Install block, line by line, as a user runs it: `make`,
    /// `make install` and `make uninstall` into a staging DESTDIR, `make deb`,
    /// and the `apt install` line, whose file name must match a package that
    /// is really there. Three stand-ins: `sudo` runs its command; `apt
    /// install` checks the package with `dpkg-deb` (scripts/test-deb.sh
    /// installs it with apt on a clean Debian 12: DebPackageTests); and the
    /// `swift build` that `make` runs in .build only checks that the build
    /// these tests run from is there, since `swift test` holds that folder
    /// (`make deb` builds in a folder of its own, with the real swift).
    func testTheInstallBlockRunsAsWritten() throws {
        let lines = try Self.codeLines(section: "Install")
        XCTAssertEqual(lines.filter { $0.contains("make install") }.count, 1, "\(lines)")
        let stage = try makeTemporaryDirectory(self)
        let shims = try makeTemporaryDirectory(self)
        try Self.writeScript(shims.appendingPathComponent("sudo"), "exec \"$@\"")
        try Self.writeScript(
            shims.appendingPathComponent("swift-in-use"),
            """
            [ "$1 $2 $3" = "build -c debug" ] && [ $# = 3 ] || exec swift "$@"
            [ -x .build/debug/prores-decode ] || { echo "swift stand-in: no .build/debug/prores-decode" >&2; exit 1; }
            """)
        try Self.writeScript(
            shims.appendingPathComponent("apt"),
            """
            [ "$1" = install ] && [ $# = 2 ] && [ -f "$2" ] || { echo "apt stand-in: expected 'install FILE.deb', got: $*" >&2; exit 1; }
            dpkg-deb --contents "$2" | grep -q ' ./usr/bin/prores-decode$' || { echo "$2 holds no usr/bin/prores-decode" >&2; exit 1; }
            echo "apt stand-in: $2"
            """)
        for line in lines {
            let script =
                "cd '\(Repo.root.path)' && export PATH='\(shims.path)':\"$PATH\" DESTDIR='\(stage.path)' CONFIG=debug SWIFT=swift-in-use && \(line)"
            let run = try runExternal(["timeout", "3000", "bash", "-c", script])
            XCTAssertEqual(run.status, 0, "README install line exits \(run.status): \(line)\n\(run.stderr)")
            if line.contains("make install") {
                let binary = stage.appendingPathComponent("usr/local/bin/prores-decode").path
                XCTAssertTrue(FileManager.default.isExecutableFile(atPath: binary), "\(line) installed no \(binary)")
                XCTAssertTrue(
                    FileManager.default.fileExists(
                        atPath: stage.appendingPathComponent("usr/local/share/man/man1/prores-decode.1").path))
            }
            if line.contains("apt install") {
                XCTAssertTrue(run.text.contains("apt stand-in: ./dist-deb/prores-decode_"), run.text)
            }
        }
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: stage.appendingPathComponent("usr/local/bin/prores-decode").path),
            "make uninstall left the binary")
    }

    private static func writeScript(_ url: URL, _ body: String) throws {
        try ("#!/bin/bash\n" + body + "\n").write(to: url, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(url.path, 0o755), 0)
    }

    func testTheExamplesCoverEveryCommand() throws {
        let examples = try Self.exampleLines()
        XCTAssertTrue(
            (8...12).contains(examples.count), "README.md has \(examples.count) example commands; keep 8 to 12")
        for command in Self.commands {
            let covered = examples.contains { line in
                let invocations = line.components(separatedBy: "prores-decode ").dropFirst()
                return invocations.contains { invocation in
                    let word = invocation.split(separator: " ").first.map(String.init) ?? ""
                    return command == "decode" ? !Self.commands.contains(word) : word == command
                }
            }
            XCTAssertTrue(covered, "no README example runs `\(command)`")
        }
    }

    func testTheReadmeStaysShortAndNamesTheDemo() throws {
        let readme = try String(contentsOf: Repo.root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).count
        XCTAssertLessThanOrEqual(lines, 250, "README.md is \(lines) lines: depth belongs in docs/")
        XCTAssertTrue(readme.contains("make demo"))
        XCTAssertTrue(readme.contains("make test"))
    }

    /// The non-blank, non-comment lines of the code blocks between
    /// `## Examples` and the next `## ` heading.
    static func exampleLines() throws -> [String] { try codeLines(section: "Examples") }

    /// The non-blank, non-comment lines of the code blocks between `## NAME`
    /// and the next `## ` heading.
    static func codeLines(section name: String) throws -> [String] {
        let readme = try String(contentsOf: Repo.root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try XCTUnwrap(readme.range(of: "\n## \(name)\n"), "README.md has no '## \(name)' section")
        let section = readme[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        var lines: [String] = []
        var inBlock = false
        for line in section[..<end].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inBlock.toggle()
                continue
            }
            let command = line.trimmingCharacters(in: .whitespaces)
            if inBlock, !command.isEmpty, !command.hasPrefix("#") { lines.append(command) }
        }
        XCTAssertFalse(inBlock, "README.md's \(name) ends inside a code block")
        return lines
    }

    /// A folder with what the examples name: `clip.mov` (a ProRes 422 HQ
    /// fixture) and `deliverables/` (three HQ files without alpha, as the
    /// `--expect` example asks for).
    static func prepareFolder(_ test: XCTestCase) throws -> URL {
        let folder = try makeTemporaryDirectory(test)
        let files = FileManager.default
        try files.copyItem(atPath: Repo.fixture("hq.mov"), toPath: folder.appendingPathComponent("clip.mov").path)
        let deliverables = folder.appendingPathComponent("deliverables")
        try files.createDirectory(at: deliverables, withIntermediateDirectories: false)
        for (fixture, name) in [
            ("hq.mov", "episode-101.mov"), ("slices1.mov", "episode-102.mov"), ("bt709.mov", "trailer.mov"),
        ] {
            try files.copyItem(atPath: Repo.fixture(fixture), toPath: deliverables.appendingPathComponent(name).path)
        }
        return folder
    }
}
