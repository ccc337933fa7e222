import Foundation
import GPUKit
import ProResCore

/// `PRORES_DECODE_SAMPLE_TWINS=1` (a measurement, off by default): every
/// `SampleMemory` region gets a twin in the decoding device's own memory,
/// mapped by the host; the file reader streams each sample from its cached
/// piece into both, and the upload copies the twin inside video memory
/// instead of the DMA reading the host's copy. Why try: on slower hosts a
/// decode from a file is bound by copying the page cache (BENCHMARKS.md §7),
/// and the DMA's reads of host memory, with the pinning of every imported
/// region, compete with that copy. The host copy stays, for the parse
/// (`SliceTable`), which must not read write-combined memory.
///
/// One device only: a sample does not know which of several devices will
/// decode it, so a second device ends the twins (reads after it write one
/// copy). Twins, like their regions, live as long as the process, and
/// hold their device: no read can write into memory the device has freed.
/// A decode on a device other than the twins' imports as before.
enum VideoMemoryTwins {
    static let wanted = ProcessInfo.processInfo.environment["PRORES_DECODE_SAMPLE_TWINS"] == "1"

    /// A twin's memory and the device it is on.
    final class Memory {
        let buffer: VulkanBuffer
        let context: VulkanContext

        init(buffer: VulkanBuffer, context: VulkanContext) {
            self.buffer = buffer
            self.context = context
        }
    }

    private static let lock = NSLock()
    /// Whether a device was made (under `lock`).
    nonisolated(unsafe) private static var deviceSeen = false

    /// Called for every device made for decoding: the first one's memory
    /// takes the twins; a second one ends them.
    static func deviceMade(_ context: VulkanContext) {
        guard wanted else { return }
        lock.withLock {
            guard !deviceSeen else {
                SampleMemory.shared.useTwins(nil)
                return
            }
            deviceSeen = true
            SampleMemory.shared.useTwins { bytes in
                let made = try? VulkanBuffer(context, size: bytes, usage: .transferSource, memory: .deviceWrittenByHost,
                                             sharedWithTransferQueue: context.transferQueue != nil, dedicated: true)
                guard let made, let base = made.mapped else { return nil }
                return SampleMemory.Twin(base: base, owner: Memory(buffer: made, context: context))
            }
        }
    }

    /// Where the sample at `base` lies in a twin on `context`'s device,
    /// when the reader wrote it there. Each one found is a span in the
    /// trace (`PRORES_DECODE_TRACE`), so a run shows how many frames came
    /// this way.
    static func source(_ base: UnsafeRawPointer, on context: VulkanContext) -> (buffer: VulkanBuffer, offset: Int)? {
        guard wanted else { return nil }
        let start = Trace.begin()
        guard let (twin, offset) = SampleMemory.shared.writtenTwin(of: base),
              let memory = twin.owner as? Memory, memory.context === context else { return nil }
        Trace.end("upload from a twin in video memory", since: start)
        return (memory.buffer, offset)
    }
}
