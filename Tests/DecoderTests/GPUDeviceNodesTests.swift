import Foundation
import GPUKit
import XCTest

@testable import TestSupport

/// `--decoder auto` skips Vulkan where no GPU device node exists: each kind
/// of node counts, and a device directory without any does not.
final class GPUDeviceNodesTests: XCTestCase {
    func testEachKindOfNodeCountsAndNoneDoesNot() throws {
        let fm = FileManager.default
        for node in [nil, "dri/renderD128", "dri/card0", "nvidiactl", "dxg", "nvidia-uvm", "dri/"] {
            let root = try makeTemporaryDirectory(self)
            if let node {
                let path = root.appendingPathComponent(node)
                try fm.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
                if !node.hasSuffix("/") { XCTAssertTrue(fm.createFile(atPath: path.path, contents: nil)) }
            }
            let expected = node.map { ["dri/renderD128", "dri/card0", "nvidiactl", "dxg"].contains($0) } ?? false
            XCTAssertEqual(GPUDeviceNodes.present(root: root.path), expected, node ?? "an empty device directory")
        }
    }
}
