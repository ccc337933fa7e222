import Foundation
import GPUKit
import HostSupport
import ProResCore

/// How long the driver takes to give and take back buffer memory, in the
/// shapes the decoder uses. Why `roofline` measures it: on the H200 a
/// gigabyte of device-local memory takes 39 ms to allocate as a plain
/// allocation and 1.5 ms as a dedicated one, which a
/// short run pays at its start.
public enum AllocationTimings {
    public struct Row: Sendable {
        public let label: String
        public let bytes: Int
        /// Wall time (ms) of the allocations, and of freeing them.
        public let allocateMilliseconds: Double
        public let freeMilliseconds: Double
    }

    /// Each shape twice in a row (the second shows whether the driver
    /// keeps freed memory at hand). A gigabyte a shape on a discrete GPU,
    /// 64 MiB where device memory is the host's (lavapipe in CI).
    public static func measure(context: VulkanContext) throws -> [Row] {
        let total = context.sharesHostMemory ? 64 << 20 : 1 << 30
        let shapes: [(label: String, count: Int, memory: MemoryKind, dedicated: Bool)] = [
            ("device-local, one buffer", 1, .device, false),
            ("device-local, one dedicated buffer", 1, .device, true),
            ("device-local, 8 buffers", 8, .device, false),
            ("device-local, 8 dedicated buffers", 8, .device, true),
            ("host-visible, one buffer", 1, .host, false),
            ("host-visible, one dedicated buffer", 1, .host, true),
        ]
        var rows: [Row] = []
        for shape in shapes {
            for _ in 0..<2 {
                let start = monotonicNanoseconds()
                var buffers = try (0..<shape.count).map { _ in
                    try VulkanBuffer(
                        context, size: total / shape.count, usage: [.storage, .transferSource, .transferDestination],
                        memory: shape.memory, dedicated: shape.dedicated)
                }
                let allocated = monotonicNanoseconds()
                buffers.removeAll()
                let freed = monotonicNanoseconds()
                rows.append(
                    Row(
                        label: shape.label, bytes: total, allocateMilliseconds: Double(allocated - start) / 1e6,
                        freeMilliseconds: Double(freed - allocated) / 1e6))
            }
        }
        return rows
    }
}
