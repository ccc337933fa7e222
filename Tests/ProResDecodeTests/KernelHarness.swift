import CVulkan
@testable import ProResDecode

/// The one file of the kernel tests that touches Vulkan: it runs ONE compute
/// pass of the GPU ProRes decoder on buffers the test filled, and reads the
/// results back. Everything else in the kernel tests is plain Swift.
///
/// Bindings and push constants are those of `GPUProResDecoder.encode`:
///   prores_vld.comp  (entropy): 0 bitstream, 1 slice table, 2 frame table,
///       3 coefficients (written), 4 status (atomicOr); push constants
///       frameWords, chroma444, alphaShift12; dispatch
///       (ceil(slices per frame / 64), components, frames).
///   prores_idct.comp (transform): 0 slice table, 1 frame table,
///       2 coefficients, 3 status, 4 surface (written); push constants
///       frameWords, width, height, unitsPerRow, log2MaxMbs; defines
///       CHROMA444, DEPTH12, SLICES_PER_ROW; dispatch
///       (SLICES_PER_ROW << log2MaxMbs, ceil(slices per frame / SLICES_PER_ROW), frames).
/// Every buffer here is host-visible, so that the test can fill the outputs
/// with a sentinel first and see any write outside what it expects.
final class KernelHarness {
    let context: VulkanContext
    private let compiler: ShaderCompiler
    private var pipelines: [String: ComputePipeline] = [:]
    private let recorder: CommandRecorder

    /// One device for every kernel test, with the validation layer on
    /// (tests assert that it reported nothing).
    static let shared = Result { try KernelHarness() }

    init() throws {
        context = try VulkanContext(options: .init(validation: true))
        compiler = try ShaderCompiler(cacheDirectory: nil)
        recorder = try CommandRecorder(context: context, count: 1)
    }

    var validationMessages: [String] { context.validation?.messages ?? [] }

    struct TransformPass {
        var chroma444: Bool
        var depth12: Bool
        /// 8 words a slice, 40 a frame (SliceTable's layout).
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

    /// Runs prores_idct.comp alone; returns the whole surface buffer.
    func runTransformPass(_ pass: TransformPass) throws -> [UInt64] {
        var defines = ["SLICES_PER_ROW": "\(pass.slicesPerRow)u"]
        if pass.chroma444 { defines["CHROMA444"] = "1" }
        if pass.depth12 { defines["DEPTH12"] = "1" }
        let pipeline = try self.pipeline("prores_idct.comp", defines: defines, pushConstantSize: 20)
        let slices = try upload(pass.slices), frames = try upload(pass.frames)
        let coefficients = try upload(pass.coefficients), status = try upload(pass.status)
        let surface = try upload([UInt64](repeating: pass.surfaceFill, count: pass.surfaceUnits))
        let constants: [UInt32] = [UInt32(SliceTable.frameWords), UInt32(pass.width), UInt32(pass.height),
                                   UInt32(pass.unitsPerRow), UInt32(pass.log2MaxMbs)]
        let rows = (pass.maxSlicesPerFrame + pass.slicesPerRow - 1) / pass.slicesPerRow
        try dispatch(pipeline, buffers: [slices, frames, coefficients, status, surface], constants: constants,
                     groups: (pass.slicesPerRow << pass.log2MaxMbs, rows, pass.frameCount))
        return download(surface, as: UInt64.self, count: pass.surfaceUnits)
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
        let pipeline = try self.pipeline("prores_vld.comp", defines: [:], pushConstantSize: 12)
        var bytes = pass.bitstream
        bytes += [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4)
        let sliceCount = pass.slices.count / SliceTable.sliceWords
        let bitstream = try upload(bytes), slices = try upload(pass.slices), frames = try upload(pass.frames)
        let coefficients = try upload([Int16](repeating: pass.coefficientFill, count: pass.coefficientCount))
        let status = try upload([UInt32](repeating: 0, count: max(1, sliceCount)))
        let constants: [UInt32] = [UInt32(SliceTable.frameWords), pass.chroma444 ? 1 : 0, pass.alphaShift12 ? 1 : 0]
        try dispatch(pipeline, buffers: [bitstream, slices, frames, coefficients, status], constants: constants,
                     groups: ((pass.maxSlicesPerFrame + 63) / 64, pass.components, pass.frameCount))
        return (download(coefficients, as: Int16.self, count: pass.coefficientCount), download(status, as: UInt32.self, count: sliceCount))
    }

    // MARK: - Vulkan plumbing

    private func pipeline(_ shader: String, defines: [String: String], pushConstantSize: Int) throws -> ComputePipeline {
        let key = shader + defines.sorted { $0.key < $1.key }.map { "|\($0.key)=\($0.value)" }.joined()
        if let made = pipelines[key] { return made }
        let made = try ComputePipeline(context: context, compiler: compiler, shader: shader, defines: defines,
                                       buffers: 5, pushConstantSize: pushConstantSize)
        pipelines[key] = made
        return made
    }

    private func upload<T>(_ values: [T]) throws -> VulkanBuffer {
        let bytes = max(16, values.count * MemoryLayout<T>.stride)
        let buffer = try VulkanBuffer(context, size: (bytes + 15) & ~15, usage: VK_BUFFER_USAGE_STORAGE_BUFFER_BIT.rawValue,
                                      required: VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT.rawValue | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT.rawValue)
        buffer.mapped!.initializeMemory(as: UInt8.self, repeating: 0, count: buffer.size)
        if !values.isEmpty { values.withUnsafeBytes { buffer.mapped!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
        return buffer
    }

    private func download<T>(_ buffer: VulkanBuffer, as type: T.Type, count: Int) -> [T] {
        Array(UnsafeBufferPointer(start: buffer.mapped!.assumingMemoryBound(to: T.self), count: count))
    }

    private func dispatch(_ pipeline: ComputePipeline, buffers: [VulkanBuffer], constants: [UInt32],
                          groups: (x: Int, y: Int, z: Int)) throws {
        let vk = context.vk
        let descriptors = try DescriptorSets(context: context, layouts: [pipeline.setLayout], buffers: buffers.count, what: "kernel test")
        pipeline.bind(descriptors.sets[0], to: buffers.map { (buffer: $0.buffer, bytes: $0.size) })
        let cb = try recorder.begin(0)
        var set: VkDescriptorSet? = descriptors.sets[0]
        vk.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline)
        vk.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout, 0, 1, &set, 0, nil)
        var words = constants
        vk.vkCmdPushConstants(cb, pipeline.layout, VK_SHADER_STAGE_COMPUTE_BIT.rawValue, 0, UInt32(words.count * 4), &words)
        vk.vkCmdDispatch(cb, UInt32(groups.x), UInt32(groups.y), UInt32(groups.z))
        context.memoryBarrier(cb, from: VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT.rawValue,
                              to: VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT.rawValue)
        try recorder.wait(for: try recorder.submit(0))
    }
}
