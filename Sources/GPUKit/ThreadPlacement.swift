import Foundation
import HostSupport

/// Which CPUs a GPU's worker threads run on: those of the NUMA node the
/// device hangs off, so that the host memory they parse into and stage from
/// is local to the PCIe root the DMA reads it through. Only where it can
/// matter (more than one node) and only when the device's node is known;
/// otherwise the scheduler places the threads, and `reason` says why.
public enum ThreadPlacement: Sendable, Equatable {
    case pinned(node: Int, cpus: [Int])
    case unpinned(reason: String)

    /// The CPUs to pin to, or nil to leave the threads where the scheduler puts them.
    public var cpus: [Int]? {
        if case .pinned(_, let cpus) = self { return cpus }
        return nil
    }

    /// One line for `--verbose`.
    public var summary: String {
        switch self {
        case .pinned(let node, let cpus): return "threads on NUMA node \(node), CPUs \(CPUList.format(cpus))"
        case .unpinned(let reason): return "threads not pinned: \(reason)"
        }
    }

    /// The choice itself, from what sysfs said: `nodes` maps each NUMA node
    /// to its CPUs; `deviceNode` is the device's `numa_node` (-1: the
    /// firmware did not say), nil when it could not be read.
    package static func choose(
        deviceNode: Int?, nodes: [Int: [Int]], unknownWhy: String = "the device's NUMA node is unknown"
    ) -> ThreadPlacement {
        guard nodes.count > 1 else {
            return .unpinned(reason: "the host has \(nodes.count == 1 ? "one NUMA node" : "no NUMA nodes listed")")
        }
        guard let deviceNode, deviceNode >= 0 else {
            return .unpinned(
                reason: deviceNode == nil ? unknownWhy : "the device's numa_node is -1 (not reported by the firmware)")
        }
        guard let cpus = nodes[deviceNode], !cpus.isEmpty else {
            return .unpinned(reason: "NUMA node \(deviceNode) has no CPUs")
        }
        return .pinned(node: deviceNode, cpus: cpus)
    }

    /// Reads the topology under `sysfs` (a fake tree in tests) and chooses
    /// for the device at `address` (nil: the driver gave no PCI address).
    public static func forDevice(at address: PCIAddress?, sysfs: String = "/sys") -> ThreadPlacement {
        let nodes = NUMATopology.nodes(sysfs: sysfs)
        guard let address else {
            return choose(
                deviceNode: nil, nodes: nodes, unknownWhy: "the device has no PCI address (VK_EXT_pci_bus_info)")
        }
        return choose(
            deviceNode: NUMATopology.deviceNode(address, sysfs: sysfs), nodes: nodes,
            unknownWhy: "no readable numa_node for PCI device \(address)")
    }
}

/// The thin sysfs reader behind `ThreadPlacement`.
package enum NUMATopology {
    /// Every `devices/system/node/nodeN` with its `cpulist`.
    package static func nodes(sysfs: String) -> [Int: [Int]] {
        let directory = sysfs + "/devices/system/node"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [:] }
        var nodes: [Int: [Int]] = [:]
        for entry in entries where entry.hasPrefix("node") {
            guard let node = Int(entry.dropFirst(4)),
                let text = try? String(contentsOfFile: "\(directory)/\(entry)/cpulist", encoding: .utf8),
                let cpus = CPUList.parse(text)
            else { continue }
            nodes[node] = cpus
        }
        return nodes
    }

    /// The device's `numa_node` (-1 when the firmware gives none); nil when unreadable.
    package static func deviceNode(_ address: PCIAddress, sysfs: String) -> Int? {
        guard let text = try? String(contentsOfFile: "\(sysfs)/bus/pci/devices/\(address)/numa_node", encoding: .utf8)
        else { return nil }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
