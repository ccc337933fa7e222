import Foundation
import GPUKit
import ProResCore

/// A slot's large device buffers (coefficients, status flags, surfaces),
/// made on background threads from the moment a decoder exists, so that
/// the first batches do not wait for them one slot at a time.
///
/// Why: on the H200 (driver 580) a device-local allocation takes ~18 ms a
/// gigabyte, and a 4K 4:2:2 slot holds over one (16 frames of coefficients
/// and surfaces). Made by the submit thread as each slot was first used,
/// the four slots' buffers stalled the first four batches ~27 ms each: a
/// quarter of a 1,920-frame file's run, and most of the first file of each
/// kind in `check` (PRORES_DECODE_TRACE, BENCHMARKS.md §6).
/// `PRORES_DECODE_RESERVE`: `parallel` (default, a thread per slot),
/// `serial` (one thread, slot by slot) or `off` (made when first used).
final class SlotReservation: @unchecked Sendable {
    struct Buffers {
        let coefficients: VulkanBuffer
        let status: VulkanBuffer
        let statusReport: VulkanBuffer
        let surfaces: VulkanBuffer
    }

    enum Mode: String {
        case parallel, serial, off
        static let configured = ProcessInfo.processInfo.environment["PRORES_DECODE_RESERVE"].flatMap(Mode.init) ?? .parallel
    }

    // @unchecked: each Deferred is immutable once made; `taken` is touched by the submit thread only.
    private let pending: [Deferred<Buffers>]
    private var taken: Set<Int> = []

    /// Nil for `off`. `sizes`: the coefficient, status and surface bytes of a full batch.
    init?(context: VulkanContext, slots: Int, coefficientBytes: Int, statusBytes: Int, surfaceBytes: Int, mode: Mode = .configured) {
        guard mode != .off, slots > 0 else { return nil }
        @Sendable func make() throws -> Buffers {
            try Trace.span("slot buffers made") {
                Buffers(coefficients: try VulkanBuffer(context, size: coefficientBytes, usage: .storage, memory: .device),
                        status: try VulkanBuffer(context, size: statusBytes, usage: [.storage, .transferDestination], memory: .device),
                        statusReport: try VulkanBuffer(context, size: statusBytes, usage: .storage, memory: .hostReadback),
                        surfaces: try VulkanBuffer(context, size: surfaceBytes, usage: [.storage, .transferSource], memory: .device))
            }
        }
        switch mode {
        case .parallel:
            pending = (0..<slots).map { _ in Deferred("prores-decode.reserve", make) }
        case .serial, .off:
            // Slot k's thread waits for slot k-1's: one allocation at a time, in slot order.
            var made: [Deferred<Buffers>] = []
            for _ in 0..<slots {
                let previous = made.last
                made.append(Deferred("prores-decode.reserve") {
                    _ = try? previous?.get()
                    return try make()
                })
            }
            pending = made
        }
    }

    /// Slot `index`'s buffers, waiting for them; nil once taken (or if they could not be made).
    func take(_ index: Int) -> Buffers? {
        guard index < pending.count, !taken.contains(index) else { return nil }
        taken.insert(index)
        return Trace.span("wait for slot buffers") { try? pending[index].get() }
    }

    /// Waits for every slot's thread, so none outlives the decoder's device.
    func waitForAll() {
        for deferred in pending { _ = try? deferred.get() }
    }
}
