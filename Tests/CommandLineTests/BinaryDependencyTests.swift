import XCTest

@testable import TestSupport

/// The tool starts on a headless machine: libxcb (the `play` window),
/// libpulse (its sound) and the Vulkan loader are opened with dlopen when
/// needed, never linked, so a CI server or a GPU host without X11 or sound
/// libraries still runs `check`, `info` and the decoders. Read with binutils' `readelf`.
final class BinaryDependencyTests: XCTestCase {
    func testNoWindowSystemOrVulkanLibraryIsLinked() throws {
        let run = try runExternal(["readelf", "-d", Repo.executable.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let needed = run.text.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        XCTAssertFalse(needed.isEmpty, "readelf listed no NEEDED entries:\n\(run.text)")
        for library in ["libxcb", "libX11", "libvulkan", "libpulse"] {
            XCTAssertFalse(
                needed.contains { $0.contains(library) }, "\(library) is linked:\n\(needed.joined(separator: "\n"))")
        }
    }
}
