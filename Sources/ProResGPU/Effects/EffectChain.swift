import GPUKit
import ProResCore

/// The `--effect` passes of one `GPUFrameConverter` (the Core Image filter
/// chain / custom Metal kernels of Apple's pipeline). Each is a compute pass
/// recorded into the command buffer of the frame's submission right after
/// the conversions, reading and writing each converted frame in place: no
/// copy, no extra submission, and each pass timed by its own GPU timestamp. The chroma key
/// also reads the decoded surface the conversion read (the texture cache's
/// binding of the pooled surface, or its device copy).
final class EffectChain {
    /// What one frame's passes work on.
    struct Frame {
        /// The converted RGBA16F frame, 8 bytes a pixel.
        let output: VulkanBuffer
        /// The y416/v216 surface as the conversion read it.
        let source: VulkanBuffer
        let sourceOffset: Int
        let sourceBytes: Int
        let layout: PackedLayout
        let sourceBytesPerRow: Int
        let width: Int
        let height: Int
        /// The frame's colour description: the chroma key needs its matrix and range.
        let spec: ConversionSpec?
    }

    let effects: [Effect]
    private let passes: [EffectKernel]
    private let context: VulkanContext
    private let kernels: KernelCache
    /// bindingSets[slot][pass]
    private var bindingSets: [[BindingSet]] = []
    /// Each pass's table (the LUT), by pass index, in device memory.
    private var tables: [Int: VulkanBuffer] = [:]
    /// Host copies of the tables, copied over by the first frame's command
    /// buffer; kept, since that buffer may still be running.
    private var staging: [(from: VulkanBuffer, to: VulkanBuffer)] = []
    private var uploaded = false

    init(context: VulkanContext, kernels: KernelCache, effects: [Effect], framesInFlight: Int) throws {
        self.context = context
        self.kernels = kernels
        self.effects = effects
        passes = effects.map(\.kernel)
        // A pass's variants (the chroma key's per layout) have the same bindings: one set serves both.
        let kernels = try passes.map { try kernel($0, source: .y416) }
        let perPass = try kernels.map { try $0.makeBindingSets(framesInFlight) }
        bindingSets = (0..<framesInFlight).map { slot in perPass.map { $0[slot] } }
        for (index, pass) in passes.enumerated() {
            if let values = pass.table() { tables[index] = try upload(values) }
        }
    }

    var count: Int { effects.count }

    /// Records every pass after the conversions in `cb`, pass by pass over
    /// the frames of one submission (`slot`: each frame's), each ordered
    /// after the writes before it by the frame's own state; writes
    /// timestamp `first + i` of `slot` after pass i when `timestamps` is given.
    func record(
        _ cb: CommandBuffer, frames: [(slot: Int, frame: Frame)],
        timestamps: (queries: TimestampQueries, slot: Int, first: Int)?
    ) throws {
        if !uploaded {
            for (from, to) in staging { cb.copy(from, to: to, bytes: from.size) }
            uploaded = true
        }
        for (index, pass) in passes.enumerated() {
            for (slot, frame) in frames {
                let (buffers, push) = pass.arguments(frame, table: tables[index])
                let kernel = try self.kernel(pass, source: frame.layout)
                cb.dispatch(
                    kernel, set: bindingSets[slot][index], buffers: buffers, push: push,
                    groups: (kernel.interface.groups(covering: frame.width), frame.height, 1))
            }
            if let timestamps {
                timestamps.queries.mark(cb, slot: timestamps.slot, timestamps.first + index, after: .compute)
            }
        }
    }

    /// The kernel of `pass` reading `source`, made on first use.
    private func kernel(_ pass: EffectKernel, source: PackedLayout) throws -> Kernel {
        try kernels.kernel(pass.interface(source: source))
    }

    /// A storage buffer in device memory holding `values`, filled by the
    /// first frame's command buffer from a host-visible copy (one path for
    /// every device, mappable device memory or not).
    private func upload(_ values: [Float]) throws -> VulkanBuffer {
        let bytes = values.count * 4
        let table = try VulkanBuffer(context, size: bytes, usage: [.storage, .transferDestination], memory: .device)
        let host = try VulkanBuffer(context, size: bytes, usage: .transferSource, memory: .host)
        values.withUnsafeBytes { host.mapped!.copyMemory(from: $0.baseAddress!, byteCount: bytes) }
        staging.append((host, table))
        return table
    }
}
