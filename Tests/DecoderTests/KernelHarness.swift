@testable import GPUKit
@testable import ProResCore
@testable import ProResGPU
@testable import TestSupport

/// The one file of the kernel tests that touches Vulkan: it runs ONE compute
/// pass of the GPU ProRes decoder on buffers the test filled, and reads the
/// results back. Everything else in the kernel tests is plain Swift.
///
/// Bindings, push constants and defines are the decoder's own
/// (`DecoderKernels.entropy` / `.transform`); dispatch sizes as in
/// `GPUProResDecoder.encode`: entropy (ceil(slices per frame / 64),
/// frames, components), transform (SLICES_PER_ROW << log2MaxMbs,
/// ceil(slices per frame / SLICES_PER_ROW), frames).
/// Every buffer here is host-visible, so that the test can fill the outputs
/// with a sentinel first and see any write outside what it expects.
final class KernelHarness {
    let context: VulkanContext
    private let compiler: ShaderCompiler
    private let kernels: KernelCache
    private let recorder: CommandRecorder

    /// One device for every kernel test, with the validation layer on
    /// (tests assert that it reported nothing).
    // nonisolated(unsafe): made once by Swift's thread-safe static initialisation; the device's types lock themselves.
    nonisolated(unsafe) static let shared = Result { try KernelHarness() }

    init() throws {
        context = try VulkanContext(options: .init(validation: true))
        compiler = try ShaderCompiler(cacheDirectory: nil)
        recorder = try CommandRecorder(context: context, count: 1)
        kernels = KernelCache(context: context, compiler: compiler)
    }

    var validationMessages: [String] { context.validation?.messages ?? [] }

    struct TransformPass {
        var chroma444: Bool
        var depth12: Bool
        /// SliceTable.sliceWords a slice, SliceTable.frameWords a frame.
        var slices: [UInt32]
        var frames: [UInt32]
        var coefficients: [Int16]
        /// One word a slice.
        var status: [UInt32]
        var frameCount: Int
        /// The most slices in one frame of the batch.
        var maxSlicesPerFrame: Int
        var log2MaxMbs: Int
        var width: Int
        var height: Int
        var unitsPerRow: Int
        /// The surface buffer, in 8-byte units, filled with `surfaceFill` before the pass.
        var surfaceUnits: Int
        var surfaceFill: UInt64
        var slicesPerRow = 32
    }

    /// Runs prores_idct.comp alone; returns the whole surface buffer and
    /// the status words the pass reported back into a zeroed buffer, as
    /// the decoder zeroes it (the pass ORs its bits in).
    func runTransformPass(_ pass: TransformPass) throws -> (surface: [UInt64], report: [UInt32]) {
        let kernel = try self.kernel(
            DecoderKernels.transform(
                chroma444: pass.chroma444, depth: pass.depth12 ? 12 : 10,
                slicesPerRow: pass.slicesPerRow))
        let slices = try upload(pass.slices)
        let frames = try upload(pass.frames)
        let coefficients = try upload(pass.coefficients)
        let status = try upload(pass.status)
        let surface = try upload([UInt64](repeating: pass.surfaceFill, count: pass.surfaceUnits))
        let report = try upload([UInt32](repeating: 0, count: max(1, pass.status.count)))
        let push: [PushValue] = [
            .uint(pass.width), .uint(pass.height), .uint(pass.unitsPerRow), .uint(pass.log2MaxMbs),
        ]
        let rows = (pass.maxSlicesPerFrame + pass.slicesPerRow - 1) / pass.slicesPerRow
        try dispatch(
            kernel, buffers: [slices, frames, coefficients, status, surface, report], push: push,
            groups: (pass.slicesPerRow << pass.log2MaxMbs, rows, pass.frameCount))
        return (
            download(surface, as: UInt64.self, count: pass.surfaceUnits),
            download(report, as: UInt32.self, count: pass.status.count)
        )
    }

    struct EntropyPass {
        var chroma444: Bool
        var alphaShift12: Bool
        /// 3 (Y', Cb, Cr) or 4 (with alpha).
        var components: Int
        /// The frames' bytes, each padded (the reader looks a few bytes past a component).
        var bitstream: [UInt8]
        var slices: [UInt32]
        var frames: [UInt32]
        var frameCount: Int
        var maxSlicesPerFrame: Int
        /// The coefficient buffer, in 16-bit values, filled with `coefficientFill` before the pass.
        var coefficientCount: Int
        var coefficientFill: Int16
    }

    /// Runs prores_vld.comp alone (status zeroed first, as the decoder
    /// does); returns the whole coefficient buffer and the status words.
    func runEntropyPass(_ pass: EntropyPass) throws -> (coefficients: [Int16], status: [UInt32]) {
        // The entropy pass's DEPTH only decides the alpha shift.
        let kernel = try self.kernel(
            DecoderKernels.entropy(chroma444: pass.chroma444, depth: pass.alphaShift12 ? 12 : 10))
        var bytes = pass.bitstream
        bytes += [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4)
        let sliceCount = pass.slices.count / SliceTable.sliceWords
        let bitstream = try upload(bytes)
        let slices = try upload(pass.slices)
        let frames = try upload(pass.frames)
        let coefficients = try upload([Int16](repeating: pass.coefficientFill, count: pass.coefficientCount))
        let status = try upload([UInt32](repeating: 0, count: max(1, sliceCount)))
        try dispatch(
            kernel, buffers: [bitstream, slices, frames, coefficients, status], push: [],
            groups: ((pass.maxSlicesPerFrame + 63) / 64, pass.frameCount, pass.components))
        return (
            download(coefficients, as: Int16.self, count: pass.coefficientCount),
            download(status, as: UInt32.self, count: sliceCount)
        )
    }

    // MARK: - Vulkan plumbing

    private func kernel(_ interface: KernelInterface) throws -> Kernel { try kernels.kernel(interface) }

    private func upload<T>(_ values: [T]) throws -> VulkanBuffer {
        let bytes = max(16, values.count * MemoryLayout<T>.stride)
        let buffer = try VulkanBuffer(context, size: (bytes + 15) & ~15, usage: .storage, memory: .host)
        buffer.mapped!.initializeMemory(as: UInt8.self, repeating: 0, count: buffer.size)
        if !values.isEmpty {
            values.withUnsafeBytes { buffer.mapped!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
        return buffer
    }

    private func download<T>(_ buffer: VulkanBuffer, as type: T.Type, count: Int) -> [T] {
        Array(UnsafeBufferPointer(start: buffer.mapped!.assumingMemoryBound(to: T.self), count: count))
    }

    private func dispatch(
        _ kernel: Kernel, buffers: [VulkanBuffer], push: [PushValue], groups: (x: Int, y: Int, z: Int)
    ) throws {
        let cb = try recorder.begin(0)
        cb.dispatch(
            kernel, set: try kernel.makeBindingSets(1)[0], buffers: buffers.map { BufferRange($0) }, push: push,
            groups: groups)
        try recorder.wait(for: try recorder.submit(cb))
    }
}
