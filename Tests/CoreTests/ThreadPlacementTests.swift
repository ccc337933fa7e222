import XCTest

@testable import GPUKit
@testable import HostSupport
@testable import ProResCore
@testable import TestSupport

/// NUMA placement of a GPU's session threads: the cpulist parser, the
/// choice, and the sysfs reader on fake trees in a temporary directory
/// (expected CPU sets written out by hand from the cpulist text).
final class ThreadPlacementTests: XCTestCase {
    func testCPUListParsesRangesAndSingles() {
        XCTAssertEqual(CPUList.parse("0-3,8-9"), [0, 1, 2, 3, 8, 9])
        XCTAssertEqual(CPUList.parse("0-15,32-47\n")?.count, 32)
        XCTAssertEqual(CPUList.parse("0-15,32-47")?.first, 0)
        XCTAssertEqual(CPUList.parse("0-15,32-47")?.last, 47)
        XCTAssertEqual(CPUList.parse("0-15,32-47")?.contains(16), false)
        XCTAssertEqual(CPUList.parse("5"), [5])
        XCTAssertEqual(CPUList.parse("3,1,1-2"), [1, 2, 3])
        XCTAssertEqual(CPUList.parse("\n"), [])
        for bad in ["a", "1-", "-1", "3-1", "1,,2", "1-2-3", " 1 - 2"] { XCTAssertNil(CPUList.parse(bad), bad) }
        XCTAssertEqual(CPUList.format([0, 1, 2, 3, 8, 9, 11]), "0-3,8-9,11")
    }

    func testChoosesTheDeviceNodesCPUsOnlyWhereItCanMatter() {
        let two = [0: [0, 1, 2, 3], 1: [4, 5, 6, 7]]
        XCTAssertEqual(ThreadPlacement.choose(deviceNode: 1, nodes: two), .pinned(node: 1, cpus: [4, 5, 6, 7]))
        XCTAssertEqual(
            ThreadPlacement.choose(deviceNode: 1, nodes: [0: [0, 1]]).cpus, nil, "one node: nothing to gain")
        XCTAssertEqual(ThreadPlacement.choose(deviceNode: -1, nodes: two).cpus, nil, "the firmware did not say")
        XCTAssertEqual(ThreadPlacement.choose(deviceNode: nil, nodes: two).cpus, nil, "no PCI address")
        XCTAssertEqual(
            ThreadPlacement.choose(deviceNode: 2, nodes: [0: [0], 1: [1], 2: []]).cpus, nil, "a memory-only node")
        XCTAssertEqual(ThreadPlacement.choose(deviceNode: 3, nodes: two).cpus, nil, "a node sysfs does not list")
        guard case .unpinned(let reason) = ThreadPlacement.choose(deviceNode: 0, nodes: [0: [0]]) else {
            return XCTFail()
        }
        XCTAssertTrue(reason.contains("one NUMA node"), reason)
    }

    /// A fake /sys: nodes with their cpulist, devices with their numa_node.
    private func sysfs(nodes: [Int: String], devices: [String: String]) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "numa-\(getpid())-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        for (node, cpulist) in nodes {
            let directory = root.appendingPathComponent("devices/system/node/node\(node)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try (cpulist + "\n").write(
                to: directory.appendingPathComponent("cpulist"), atomically: true, encoding: .utf8)
        }
        // Other entries of the real node directory, which are not nodes.
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("devices/system/node/power"), withIntermediateDirectories: true)
        try "0-1\n".write(
            to: root.appendingPathComponent("devices/system/node/online"), atomically: true, encoding: .utf8)
        for (address, node) in devices {
            let directory = root.appendingPathComponent("bus/pci/devices/\(address)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try (node + "\n").write(
                to: directory.appendingPathComponent("numa_node"), atomically: true, encoding: .utf8)
        }
        return root.path
    }

    func testReadsTheTopologyFromSysfs() throws {
        let root = try sysfs(
            nodes: [0: "0-15,32-47", 1: "16-31,48-63"],
            devices: ["0000:3b:00.0": "0", "0000:db:00.0": "1", "0000:17:00.0": "-1"])
        XCTAssertEqual(NUMATopology.nodes(sysfs: root).keys.sorted(), [0, 1])
        let second = ThreadPlacement.forDevice(
            at: PCIAddress(domain: 0, bus: 0xdb, device: 0, function: 0), sysfs: root)
        XCTAssertEqual(second, .pinned(node: 1, cpus: Array(16...31) + Array(48...63)))
        XCTAssertEqual(
            ThreadPlacement.forDevice(at: PCIAddress(domain: 0, bus: 0x3b, device: 0, function: 0), sysfs: root).cpus,
            Array(0...15) + Array(32...47))
        XCTAssertNil(
            ThreadPlacement.forDevice(at: PCIAddress(domain: 0, bus: 0x17, device: 0, function: 0), sysfs: root).cpus,
            "numa_node -1")
        XCTAssertNil(
            ThreadPlacement.forDevice(at: PCIAddress(domain: 0, bus: 0x99, device: 0, function: 0), sysfs: root).cpus,
            "no such device")
        XCTAssertNil(ThreadPlacement.forDevice(at: nil, sysfs: root).cpus, "lavapipe: no PCI address")
        let single = try sysfs(nodes: [0: "0-7"], devices: ["0000:3b:00.0": "0"])
        XCTAssertNil(
            ThreadPlacement.forDevice(at: PCIAddress(domain: 0, bus: 0x3b, device: 0, function: 0), sysfs: single).cpus)
        XCTAssertNil(ThreadPlacement.forDevice(at: nil, sysfs: "/nonexistent").cpus)
    }

    func testPCIAddressIsSysfsName() {
        XCTAssertEqual(PCIAddress(domain: 0, bus: 0x3b, device: 0x1f, function: 7).description, "0000:3b:1f.7")
        XCTAssertEqual(PCIAddress(domain: 0x10001, bus: 2, device: 3, function: 1).description, "10001:02:03.1")
    }

    /// What the kernel says the thread may run on, read independently of
    /// the code under test (/proc's view of the calling thread).
    private static func allowedCPUs() -> String? {
        let status = try? String(contentsOfFile: "/proc/thread-self/status", encoding: .utf8)
        return status?.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") }?
            .dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
    }

    func testRunsOnAThreadPinnedToTheCPUsGiven() throws {
        let cpu = try XCTUnwrap(CPUList.parse(try XCTUnwrap(Self.allowedCPUs()))?.last)
        XCTAssertEqual(try onPinnedThread([cpu]) { Self.allowedCPUs() }, "\(cpu)")
        XCTAssertEqual(
            try onPinnedThread(nil) { Self.allowedCPUs() }, Self.allowedCPUs(), "nil: the calling thread, unchanged")
        XCTAssertThrowsError(try onPinnedThread([cpu]) { throw CocoaError(.userCancelled) })
    }

    /// Pinning the calling thread to the CPUs it may already use succeeds
    /// (and changes nothing); to a CPU that cannot exist it is refused.
    func testPinsTheCallingThread() throws {
        let allowed = try XCTUnwrap(
            CPUList.parse(try String(contentsOfFile: "/sys/devices/system/cpu/online", encoding: .utf8)))
        let done = expectation(description: "pinned")
        let results = UncheckedSendable(NSMutableArray())
        Thread {
            results.value.add(pinCurrentThread(to: allowed))
            results.value.add(pinCurrentThread(to: [100_000]))
            done.fulfill()
        }.start()
        wait(for: [done], timeout: 60)
        XCTAssertEqual(results.value as? [Bool], [true, false])
    }
}
