import Foundation
import XCTest

@testable import TestSupport

/// Every folder of Swift files under Tests/ is a target of Package.swift.
/// SwiftPM builds only the folders its targets name: a test file in a
/// folder no target names is never compiled and never runs, and nothing
/// else says so.
final class TestFoldersTests: XCTestCase {
    /// The folders under `root/Tests` that hold Swift files and that no
    /// target of `root/Package.swift` names: a test target by its name, any
    /// target by its `path:`.
    static func strayFolders(in root: URL = Repo.root) throws -> [String] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let tests = root.appendingPathComponent("Tests")
        var stray: [String] = []
        for folder in try FileManager.default.contentsOfDirectory(atPath: tests.path).sorted() {
            guard let files = FileManager.default.enumerator(atPath: tests.appendingPathComponent(folder).path),
                files.contains(where: { ($0 as? String)?.hasSuffix(".swift") == true })
            else { continue }
            let name = NSRegularExpression.escapedPattern(for: folder)
            let target = try NSRegularExpression(
                pattern: #"\.testTarget\(\s*name:\s*"\#(name)"|path:\s*"Tests/\#(name)""#)
            if target.firstMatch(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)) == nil {
                stray.append(folder)
            }
        }
        return stray
    }

    func testEveryFolderUnderTestsIsATarget() throws {
        XCTAssertEqual(
            try Self.strayFolders(), [],
            "these folders of tests are built by no target: move their files into the target of the module they test"
                + " (docs/testing.md, \"Test targets\")")
    }

    /// The scan itself, on a planted tree: a named test target, a support
    /// target named by its path, a folder of Swift files no target names,
    /// and a folder without Swift files.
    func testTheScanFindsAFolderNoTargetNames() throws {
        let root = try makeTemporaryDirectory(self)
        for file in [
            "Tests/NamedTests/ATests.swift", "Tests/Shared/Helper.swift", "Tests/StrayTests/deeper/BTests.swift",
            "Tests/Data/notes.txt",
        ] {
            let url = root.appendingPathComponent(file)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data().write(to: url)
        }
        let manifest = """
            .target(name: "Shared", path: "Tests/Shared"),
            .testTarget(
                name: "NamedTests", dependencies: ["Shared"]),
            .testTarget(name: "StrayTestsToo"),
            """
        try Data(manifest.utf8).write(to: root.appendingPathComponent("Package.swift"))
        XCTAssertEqual(try Self.strayFolders(in: root), ["StrayTests"])
    }
}
