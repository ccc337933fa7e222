import Foundation
import GPUKit
import HostSupport
import ProResCore

/// The sample-memory regions one device has imported
/// (VK_EXT_external_memory_host), each once, when a batch first uploads
/// from it, and shared by the device's decoders, so that `check`'s decoders
/// (one a kind of file) do not each import every region again.
///
/// Not imported ahead, as regions are mapped: on the H200 a 64 MB import
/// on a thread of its own takes 14–17 ms instead of 2.5–3, and slows the
/// first batch's buffer allocations from ~2 ms to ~10, which the driver
/// serialises with it: the first frame would come 16 ms later.
///
/// Regions stay mapped for the process's life, so an import never outlives
/// its memory.
///
/// Thread-safety: any thread; `imports` under `lock`.
final class HostRegionImports: @unchecked Sendable {
    private let context: VulkanContext
    private let lock = NSLock()
    /// By region base; nil: the device refused the import (those frames
    /// are staged instead).
    private var imports: [UnsafeRawPointer: VulkanBuffer?] = [:]

    init(context: VulkanContext) {
        self.context = context
    }

    /// `region`'s import, made now if it is the first use.
    func buffer(for region: SampleMemory.Region) -> VulkanBuffer? {
        lock.lock()
        defer { lock.unlock() }
        if let made = imports[region.base] { return made }
        var buffer: VulkanBuffer?
        let alignment = context.minImportedHostPointerAlignment
        if alignment > 0, Int(bitPattern: region.base) % alignment == 0, region.size % alignment == 0 {
            // A refused import (pinned memory exhausted, say) leaves the region's frames staged.
            buffer = try? VulkanBuffer(
                context, importing: UnsafeMutableRawPointer(mutating: region.base), size: region.size,
                usage: .transferSource, sharedWithTransferQueue: context.transferQueue != nil)
        }
        imports[region.base] = .some(buffer)
        return buffer
    }

    /// Whether `region` has been imported (tests).
    func hasImported(_ region: SampleMemory.Region) -> Bool {
        lock.withLock { imports[region.base] != nil }
    }
}
