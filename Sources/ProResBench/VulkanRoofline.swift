import Foundation
import GPUKit
import ProResCore
import ProResGPU

/// Measures what the conversion is judged against: device-memory bandwidth
/// (a copy shader, and vkCmdCopyBuffer for comparison), host-to-device
/// bandwidth (a copy out of imported, page-locked host memory), and the
/// conversion shader itself on synthetic frames, all with GPU timestamps, in
/// one run.
public struct VulkanRoofline {
    public struct Result: Sendable {
        public let device: String
        /// Bytes read + written per second by a compute-shader copy in device
        /// memory: the roofline for a memory-bound shader.
        public let deviceCopyBytesPerSecond: Double
        /// The same by vkCmdCopyBuffer (often a copy engine), for comparison.
        public let transferCopyBytesPerSecond: Double
        /// Bytes per second copied from imported host memory to device memory.
        public let hostToDeviceBytesPerSecond: Double?
        /// Per layout and transfer: median GPU time of one conversion and the bytes it moves.
        public let conversions: [(layout: PackedLayout, transfer: String, microseconds: Double, bytes: Int)]
        /// Median GPU time of the per-frame upload inside the converter.
        public let uploadMicroseconds: Double?
        public let uploadBytes: Int
    }

    /// `progress`: called after each of the measurements (done, all of
    /// them), so a caller can show that a run of many seconds is moving.
    public static func measure(
        context: VulkanContext, width: Int = 3840, height: Int = 2160, frames: Int = 40,
        progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws -> Result {
        let compiler = try ShaderCompiler(tuning: context.tuning)
        let copyBytes = min(1 << 30, Int(context.info.maxStorageBufferRange))
        let steps = measurementCount
        let device = try timedCopy(
            context, bytes: copyBytes, from: .device,
            shader: try Kernel(
                context: context, compiler: compiler, interface: copyKernel), queue: .compute)
        progress?(1, steps)
        let transfer = try timedCopy(context, bytes: copyBytes, from: .device, shader: nil, queue: .compute)
        progress?(2, steps)
        let host =
            context.info.hostMemoryImport
            ? try timedCopy(context, bytes: min(1 << 29, copyBytes), from: .importedHost, shader: nil, queue: .compute)
            : nil
        progress?(3, steps)
        var conversions: [(PackedLayout, String, Double, Int)] = []
        var uploads: [Double] = []
        var uploadBytes = 0
        let cases = try conversionCases.map {
            (
                $0.layout, $0.transfer,
                try ConversionSpec(
                    matrixCode: $0.codes.matrix, transferCode: $0.codes.transfer,
                    primariesCode: $0.codes.primaries, range: .video)
            )
        }
        for (layout, transferName, spec) in cases {
            let pool = PixelBufferPool(layout: .packed(layout, width: width, height: height))
            var times: [Double] = []
            let converter = try GPUFrameConverter(
                context: context, kernels: KernelCache(context: context, compiler: compiler), framesInFlight: 3,
                readback: false
            ) { frame in
                if let t = frame.convertMicroseconds { times.append(t) }
                if let u = frame.uploadMicroseconds, layout == .y416 { uploads.append(u) }
            }
            for index in 0..<frames {
                let surface = try pool.makeBuffer()
                if index < 3 { memset(surface.baseAddress, Int32(0x40 + index), surface.layout.byteCount) }
                try converter.submit(surface, parameters: ConversionParameters(spec), index: index, pts: nil)
                surface.releaseUse()
            }
            try converter.finish()
            let bytesRead = pool.layout.byteCount
            if layout == .y416 { uploadBytes = bytesRead }
            conversions.append(
                (layout, transferName, median(Array(times.dropFirst(3))), bytesRead + width * height * 8))
            progress?(3 + conversions.count, steps)
        }
        return Result(
            device: context.info.name, deviceCopyBytesPerSecond: device, transferCopyBytesPerSecond: transfer,
            hostToDeviceBytesPerSecond: host,
            conversions: conversions,
            uploadMicroseconds: uploads.isEmpty || context.sharesHostMemory ? nil : median(Array(uploads.dropFirst(3))),
            uploadBytes: uploadBytes)
    }

    /// The copies (device, transfer, host) and one per conversion case: what `progress` counts to.
    public static var measurementCount: Int { 3 + conversionCases.count }

    /// PQ and HLG spend the most arithmetic per pixel; BT.1886 (SDR) the least.
    static let conversionCases:
        [(layout: PackedLayout, transfer: String, codes: (matrix: Int, transfer: Int, primaries: Int))] = [
            (.y416, "pq", (9, 16, 9)), (.v216, "pq", (9, 16, 9)), (.y416, "hlg", (9, 18, 9)),
            (.y416, "bt1886", (1, 1, 1)), (.v216, "bt1886", (1, 1, 1)),
        ]

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        return values.sorted()[values.count / 2]
    }

    /// A plain copy with 16-byte loads and stores (`copy_roofline.comp`).
    static let copyKernel = KernelInterface(
        shader: "copy_roofline.comp", workgroupSize: 256,
        bindings: [
            BufferBinding("src", .read, "uvec4 s[]", "what is copied"),
            BufferBinding("dst", .write, "uvec4 d[]", "where it goes"),
        ], push: PushLayout(blockName: "CopyParameters", fields: [("count", .uint, "uvec4s to copy")]))

    /// Where a timed copy reads from.
    enum CopySource {
        /// Device-local memory (a read and a write of every byte).
        case device
        /// Page-locked host memory of ours, imported (VK_EXT_external_memory_host).
        case importedHost
        /// A host-visible buffer the driver allocated (pinned staging memory).
        case hostVisible
    }

    /// Median bandwidth of `rounds` timed copies of `bytes` (after one
    /// warm-up), by `shader` when given, else by vkCmdCopyBuffer on `queue`.
    static func timedCopy(
        _ context: VulkanContext, bytes: Int, from origin: CopySource, shader: Kernel?,
        queue: CommandRecorder.Queue, rounds: Int = 5
    ) throws -> Double {
        var hostMemory: UnsafeMutableRawPointer?
        let source: VulkanBuffer
        let shared = queue == .transfer
        switch origin {
        case .importedHost:
            let alignment = max(context.minImportedHostPointerAlignment, 4096)
            guard posix_memalign(&hostMemory, alignment, bytes) == 0, let hostMemory else {
                throw VulkanError.outOfMemory("host buffer")
            }
            memset(hostMemory, 1, bytes)
            source = try VulkanBuffer(
                context, importing: hostMemory, size: bytes, usage: [.transferSource, .storage],
                sharedWithTransferQueue: shared)
        case .hostVisible:
            source = try VulkanBuffer(
                context, size: bytes, usage: [.transferSource, .storage], memory: .host, sharedWithTransferQueue: shared
            )
            if let mapped = source.mapped { memset(mapped, 1, bytes) }
        case .device:
            source = try VulkanBuffer(context, size: bytes, usage: [.transferSource, .storage], memory: .device)
        }
        defer {
            withExtendedLifetime(source) {}
            free(hostMemory)
        }
        let destination = try VulkanBuffer(
            context, size: bytes, usage: [.transferDestination, .storage], memory: .device,
            sharedWithTransferQueue: shared)
        let set = try shader?.makeBindingSets(1)[0]
        let recorder = try CommandRecorder(context: context, count: 1, queue: queue)
        guard let timestamps = try TimestampQueries.make(context, slots: 1, perSlot: 2, queue: queue) else {
            throw VulkanError.missingFeature("timestamps on the \(queue == .transfer ? "transfer" : "compute") queue")
        }
        var samples: [Double] = []
        for round in 0...rounds {
            let cb = try recorder.begin(0)
            timestamps.start(cb, slot: 0)
            if let shader, let set {
                let count = bytes / 16
                let groups = shader.interface.groups(covering: count)
                let x = min(groups, 32768)
                cb.dispatch(
                    shader, set: set,
                    buffers: [BufferRange(source, bytes: bytes), BufferRange(destination, bytes: bytes)],
                    push: [.uint(count)], groups: (x, (groups + x - 1) / x, 1))
                timestamps.mark(cb, slot: 0, 1, after: .compute)
            } else {
                cb.copy(source, to: destination, bytes: bytes)
                timestamps.mark(cb, slot: 0, 1, after: .transfer)
            }
            try recorder.wait(for: try recorder.submit(cb))
            let seconds = try timestamps.spans(slot: 0)[0] / 1e6
            // A device copy reads and writes every byte; an upload moves it once.
            if round > 0, seconds > 0 { samples.append(Double(bytes) * (origin == .device ? 2 : 1) / seconds) }
        }
        return median(samples)
    }
}
