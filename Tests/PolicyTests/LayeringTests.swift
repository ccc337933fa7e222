import Foundation
import XCTest

@testable import TestSupport

/// The layers of Package.swift, checked in the sources themselves: a C
/// library's module can leak to targets that never declared it (SwiftPM
/// puts every shim's module map on the include path), so only this test
/// keeps each shim behind its one target.
final class LayeringTests: XCTestCase {
    /// Each target with the modules of ours and the C shims it may import.
    /// A target imports only those below it.
    static let allowed: [String: Set<String>] = [
        "HostSupport": ["CHashKernels", "ProResOptions"],
        "ProResCore": ["HostSupport"],
        "ProResOptions": [],
        "ProResFFmpeg": ["HostSupport", "ProResCore", "CFFmpeg", "CZlib", "CStreamingCopy"],
        "GPUKit": ["HostSupport", "CVulkan", "CShaderc"],
        "ProResGPU": ["HostSupport", "ProResCore", "GPUKit"],
        "ProResCPU": ["HostSupport", "ProResCore", "CProResKernels"],
        "ProResPipeline": [
            "HostSupport", "ProResCore", "ProResOptions", "ProResFFmpeg", "GPUKit", "ProResGPU", "ProResCPU",
        ],
        "ProResReports": ["HostSupport"],
        "ProResCheck": [
            "HostSupport", "ProResCore", "ProResOptions", "ProResFFmpeg", "GPUKit", "ProResGPU", "ProResPipeline",
            "ProResReports", "CEBUR128",
        ],
        "ProResBench": [
            "HostSupport", "ProResCore", "ProResFFmpeg", "GPUKit", "ProResGPU", "ProResCPU", "ProResPipeline",
            "ProResReports",
        ],
        "ProResDisplay": ["CXCB"],
        "ProResPlayback": [
            "HostSupport", "ProResCore", "ProResFFmpeg", "GPUKit", "ProResGPU", "ProResPipeline", "ProResDisplay",
            "CPulse",
        ],
        "ProResTesting": ["ProResCore", "ProResOptions", "ProResFFmpeg", "GPUKit", "ProResGPU", "ProResPipeline"],
        "prores-decode": [
            "HostSupport", "ProResCore", "ProResOptions", "ProResFFmpeg", "GPUKit", "ProResGPU", "ProResPipeline",
            "ProResReports",
            "ProResCheck", "ProResBench", "ProResDisplay", "ProResPlayback",
        ],
        "prores-decode-fuzz": ["ProResCore", "ProResTesting"],
    ]
    /// What any target may import: the platform's own modules.
    static let system: Set<String> = ["Foundation", "FoundationXML", "Glibc", "Dispatch"]
    static let ours: Set<String> = Set(allowed.keys).union([
        "CFFmpeg", "CZlib", "CStreamingCopy", "CProResKernels", "CHashKernels", "CVulkan", "CShaderc", "CXCB",
        "CEBUR128", "CPulse",
    ])

    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// target → [(file, imported module)]
    static func imports(in sources: URL = sources) throws -> [String: [(file: String, module: String)]] {
        var found: [String: [(String, String)]] = [:]
        let targets = try FileManager.default.contentsOfDirectory(atPath: sources.path)
        for target in targets where !target.hasPrefix("C") {
            let root = sources.appendingPathComponent(target)
            guard let files = FileManager.default.enumerator(atPath: root.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") {
                    let words = line.split(separator: " ").map(String.init)
                    // `import X`, `@testable import X`, `@_exported import X`, `import struct X.Y`
                    guard let at = words.firstIndex(of: "import"), at + 1 < words.count else { continue }
                    guard words[..<at].allSatisfy({ $0.hasPrefix("@") }) else { continue }
                    let kinds: Set<String> = ["struct", "class", "enum", "func", "var", "let", "protocol", "typealias"]
                    let name = words[(at + 1)...].first { !kinds.contains($0) }
                    if let module = name?.split(separator: ".").first {
                        found[target, default: []].append(("\(target)/\(file)", String(module)))
                    }
                }
            }
        }
        return found
    }

    func testEveryTargetIsKnown() throws {
        let targets = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter {
            !$0.hasPrefix("C")
        }
        XCTAssertEqual(
            Set(targets), Set(Self.allowed.keys),
            "a new target needs its place in the layers (here and in docs/architecture.md)")
    }

    func testTargetsImportOnlyTheLayersBelowThem() throws {
        let imports = try Self.imports()
        XCTAssertFalse(imports.isEmpty)
        for (target, list) in imports {
            let allowed = try XCTUnwrap(Self.allowed[target], target)
            for (file, module) in list where !Self.system.contains(module) {
                XCTAssertTrue(allowed.contains(module), "\(file) imports \(module), which \(target) may not")
                XCTAssertTrue(
                    Self.ours.contains(module), "\(file) imports \(module), a module from outside the package")
            }
        }
    }

    func testEachCLibraryHasExactlyOneImporter() throws {
        let imports = try Self.imports()
        for (shim, owner) in [
            ("CFFmpeg", "ProResFFmpeg"), ("CZlib", "ProResFFmpeg"), ("CStreamingCopy", "ProResFFmpeg"),
            ("CProResKernels", "ProResCPU"), ("CHashKernels", "HostSupport"), ("CVulkan", "GPUKit"),
            ("CShaderc", "GPUKit"), ("CXCB", "ProResDisplay"), ("CEBUR128", "ProResCheck"),
            ("CPulse", "ProResPlayback"),
        ] {
            let importers = Set(imports.filter { $0.value.contains { $0.module == shim } }.keys)
            XCTAssertEqual(importers, [owner], "\(shim) must be imported by \(owner) alone")
        }
    }

    /// The files that re-export a module (`@_exported import`): a target
    /// importing them would reach that module without naming it, past
    /// `allowed`.
    static func reExports(in sources: URL = sources) throws -> [String] {
        var found: [String] = []
        for target in try FileManager.default.contentsOfDirectory(atPath: sources.path) where !target.hasPrefix("C") {
            let root = sources.appendingPathComponent(target)
            guard let files = FileManager.default.enumerator(atPath: root.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                if text.split(separator: "\n").contains(where: { $0.hasPrefix("@_exported ") }) {
                    found.append("\(target)/\(file)")
                }
            }
        }
        return found.sorted()
    }

    func testNoTargetReExportsAModule() throws {
        XCTAssertEqual(try Self.reExports(), [], "each target imports what it uses by name")
        let root = try makeTemporaryDirectory(self)
        let core = root.appendingPathComponent("ProResCore")
        try FileManager.default.createDirectory(at: core, withIntermediateDirectories: true)
        try "@_exported import HostSupport\n".write(
            to: core.appendingPathComponent("Exports.swift"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try Self.reExports(in: root), ["ProResCore/Exports.swift"])
    }

    /// The scan must see a violation: a core file importing a shim, in a
    /// copy of the layout.
    func testAViolationIsSeen() throws {
        let root = try makeTemporaryDirectory(self)
        let core = root.appendingPathComponent("ProResCore/Color")
        try FileManager.default.createDirectory(at: core, withIntermediateDirectories: true)
        try "import Foundation\n@testable import CVulkan\nimport struct GPUKit.Kernel\n".write(
            to: core.appendingPathComponent("Probe.swift"),
            atomically: true, encoding: .utf8)
        let modules = try Self.imports(in: root)["ProResCore"]?.map(\.module) ?? []
        XCTAssertEqual(modules, ["Foundation", "CVulkan", "GPUKit"])
        XCTAssertTrue(modules.contains { !Self.allowed["ProResCore"]!.contains($0) && !Self.system.contains($0) })
    }
}
