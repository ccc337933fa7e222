import Foundation
import XCTest

@testable import TestSupport

/// Debian's headless Chromium (the Makefile's TEST_PACKAGES), the pages'
/// independent reader: what a person's browser makes of them. Each call is
/// one browser start (about a second), so tests keep them few.
enum Chromium {
    static let path = "/usr/bin/chromium"

    private static func run(_ arguments: [String]) throws -> ExternalRun {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ExternalToolMissing(description: "chromium is not installed: run make test-deps")
        }
        // `timeout`: a browser that hangs fails the test instead of stalling the suite.
        return try runExternal(
            [
                "timeout", "120", path, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
                "--v=0",
            ] + arguments)
    }

    /// The DOM after load, and the browser's log.
    static func dumpDOM(_ file: URL, extra: [String] = []) throws -> (dom: String, log: String) {
        let run = try run(extra + ["--dump-dom", file.absoluteString])
        XCTAssertEqual(run.status, 0, "chromium --dump-dom failed: \(run.stderr.suffix(2000))")
        return (run.text, run.stderr)
    }

    /// A screenshot of the page's first `width`×`height` pixels as a PNG; returns the log.
    static func screenshot(_ file: URL, to png: URL, width: Int = 900, height: Int = 700) throws -> String {
        let run = try run(["--window-size=\(width),\(height)", "--screenshot=\(png.path)", file.absoluteString])
        XCTAssertEqual(run.status, 0, "chromium --screenshot failed: \(run.stderr.suffix(2000))")
        XCTAssertTrue(FileManager.default.fileExists(atPath: png.path), "no screenshot written")
        return run.stderr
    }

    /// The page's console messages (errors, uncaught exceptions, anything a
    /// script logged): Chromium writes each as an `INFO:CONSOLE` line.
    static func consoleMessages(_ log: String) -> [String] {
        log.split(separator: "\n").map(String.init).filter { $0.contains(":CONSOLE") || $0.contains("Uncaught") }
    }

    /// Distinct colours in a screenshot, counted by Fixtures/tools/png_colours.py (zlib only).
    static func distinctColours(_ png: URL) throws -> Int {
        let run = try runExternal([
            "/usr/bin/python3", Repo.fixtures.appendingPathComponent("tools/png_colours.py").path, png.path,
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        return Int(run.text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
}

/// A page's DOM as Fixtures/tools/html_page_shape.py (Python's html.parser) reads it.
struct PageShape: Decodable {
    struct Section: Decodable {
        let id: String?
        let status: String?
        let verdict: String
        let name: String
        let nameAttribute: String?

        enum CodingKeys: String, CodingKey {
            case id, status, verdict, name
            case nameAttribute = "name_attribute"
        }
    }

    let sections: [Section]
    let images: [String?]
    let tags: [String: Int]
    let svgs: Int

    init(dom: String) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dom-\(UUID().uuidString).html")
        try dom.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try runExternal([
            "/usr/bin/python3", Repo.fixtures.appendingPathComponent("tools/html_page_shape.py").path, file.path,
        ])
        guard run.status == 0 else {
            throw ExternalToolMissing(description: "html_page_shape.py failed: \(run.stderr)")
        }
        self = try JSONDecoder().decode(PageShape.self, from: run.stdout)
    }
}
