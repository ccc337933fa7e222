import Foundation
import GPUKit
import ProResCore

/// The sample-memory regions one device has imported
/// (VK_EXT_external_memory_host), each imported once, on a thread of its
/// own, as soon as it is mapped. Why: imported on demand, a 64 MB region
/// cost 2.5–10.5 ms on the submit thread when a batch first uploaded from
/// it, 6–12 times a run, most of them before the first frames were out
/// (BENCHMARKS.md §6); and each of `check`'s decoders imported every
/// region again. A device's decoders share one (`GPUDevice.regionImports`).
///
/// Regions stay mapped for the process's life, so an import never outlives
/// its memory. Nothing is imported until a decoder that uploads from sample
/// memory starts it (`start`).
///
/// Thread-safety: any thread; `imports` and `observation` under `lock`.
final class HostRegionImports: @unchecked Sendable {
    private let context: VulkanContext
    private let lock = NSLock()
    /// By region base; a nil buffer: the device refused the import (those
    /// frames are staged instead).
    private var imports: [UnsafeRawPointer: Deferred<VulkanBuffer?>] = [:]
    private var observation: SampleMemory.Observation?

    init(context: VulkanContext) {
        self.context = context
    }

    /// From now on every region, mapped already or later, is imported as it appears.
    func start() {
        lock.lock()
        let started = observation != nil
        lock.unlock()
        guard !started else { return }
        let made = SampleMemory.shared.observeRegions { [weak self] region in _ = self?.importing(region) }
        lock.lock()
        if observation == nil { observation = made }
        lock.unlock()
    }

    /// `region`'s import, waiting for it if it is under way (or importing
    /// it now, on this thread's time, if it is not).
    func buffer(for region: SampleMemory.Region) -> VulkanBuffer? {
        try? importing(region).get()
    }

    /// Whether `region`'s import has started (tests).
    func isImporting(_ region: SampleMemory.Region) -> Bool {
        lock.withLock { imports[region.base] != nil }
    }

    private func importing(_ region: SampleMemory.Region) -> Deferred<VulkanBuffer?> {
        lock.lock()
        defer { lock.unlock() }
        if let started = imports[region.base] { return started }
        let started = Deferred<VulkanBuffer?>("prores-decode.import") { [context] in
            let alignment = context.minImportedHostPointerAlignment
            guard alignment > 0, Int(bitPattern: region.base) % alignment == 0, region.size % alignment == 0 else { return nil }
            // A refused import (pinned memory exhausted, say) leaves the region's frames staged.
            return try? VulkanBuffer(context, importing: UnsafeMutableRawPointer(mutating: region.base), size: region.size,
                                     usage: .transferSource, sharedWithTransferQueue: context.transferQueue != nil)
        }
        imports[region.base] = started
        return started
    }
}
