import GPUKit

extension VulkanRoofline {
    /// The host → device link as the decoder's uploads cross it: page-locked
    /// host memory copied into device-local memory by vkCmdCopyBuffer, on
    /// the queue the decoder uploads on, timed with GPU timestamps.
    public struct Link: Sendable {
        /// Bytes per second, the median of the timed copies.
        public let bytesPerSecond: Double
        /// The source was host memory of ours imported into Vulkan, as the
        /// decoder's sample memory is; else a host-visible buffer of the
        /// driver's (what the decoder stages into without import).
        public let imported: Bool
        /// The copies ran on a transfer-only queue (a copy engine), as the
        /// decoder's uploads do where the device has one.
        public let transferQueue: Bool
        /// Bytes of one copy.
        public let copyBytes: Int
        /// Copies timed (after one untimed).
        public let copies: Int

        /// "imported host memory → device-local memory, vkCmdCopyBuffer on a transfer queue".
        public var method: String {
            (imported ? "imported host memory" : "host-visible memory") + " → device-local memory, vkCmdCopyBuffer on "
                + (transferQueue ? "a transfer queue" : "the compute queue")
        }
    }

    /// Measures `Link` with `copies` copies of `copyBytes` (and one more
    /// untimed): 5 × 64 MiB by default, 320 MiB that a discrete GPU's link
    /// moves in well under 10 ms, short enough to measure beside a benchmark.
    public static func hostToDevice(context: VulkanContext, copyBytes: Int = 64 << 20, copies: Int = 4) throws -> Link {
        let imported = context.info.hostMemoryImport
        // The transfer queue, where the decoder has one and it has timestamps.
        let transfer =
            try context.transferQueue != nil
            && TimestampQueries.make(context, slots: 1, perSlot: 2, queue: .transfer) != nil
        let bytes = min(copyBytes, Int(context.info.maxStorageBufferRange))
        let bandwidth = try timedCopy(
            context, bytes: bytes, from: imported ? .importedHost : .hostVisible, shader: nil,
            queue: transfer ? .transfer : .compute, rounds: copies)
        return Link(
            bytesPerSecond: bandwidth, imported: imported, transferQueue: transfer, copyBytes: bytes, copies: copies)
    }
}
