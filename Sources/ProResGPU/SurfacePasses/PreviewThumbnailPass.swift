import GPUKit
import ProResCore

/// `check --previews` on the device: a converted frame's thumbnail is
/// box-filtered where the frame lives (`preview_thumbnail.comp`, the
/// definition of the CPU's `PreviewImage.downscaled` in float32), and only
/// the thumbnail, plus the one frame shown at full size, comes back to the
/// host. Why: reading every 4K frame back and filtering it on the CPU cost
/// more than decoding the whole file.
///
/// Thread-safety: one thread at a time (a sink's `consume`); each call
/// waits for its own GPU work, so the results are complete when it returns.
public final class PreviewThumbnailPass {
    /// What one frame gave: the thumbnail as RGBA float32, straight alpha (empty when none was asked for),
    /// and the whole frame's RGBA16F bytes when asked for (valid until the
    /// next call).
    public struct Result {
        public let thumbnail: [Float]
        public let full: UnsafeRawBufferPointer?
    }

    private let context: VulkanContext
    private let kernel: Kernel
    private let set: BindingSet
    private let recorder: CommandRecorder
    private var thumbnail: VulkanBuffer?
    private var full: VulkanBuffer?

    public init(context: VulkanContext, kernels: KernelCache) throws {
        self.context = context
        kernel = try kernels.kernel(PreviewThumbnailKernel.interface)
        set = try kernel.makeBindingSets(1)[0]
        recorder = try CommandRecorder(context: context, count: 1)
    }

    /// The thumbnail of `frame` (a converted frame's device buffer, `width` ×
    /// `height` RGBA16F pixels) at `target` (none when nil), and a copy of
    /// the whole frame when `copyFull`.
    public func run(_ frame: VulkanBuffer, width: Int, height: Int, target: (width: Int, height: Int)?, copyFull: Bool)
        throws -> Result
    {
        let target = target ?? (0, 0)
        // The shader's footprints are integers up to sourceWidth · targetWidth.
        guard width < 1 << 16, height < 1 << 16, (0...width).contains(target.width),
            (0...height).contains(target.height)
        else {
            throw ProResDecodeError.badRequest(
                .message(
                    "a \(target.width)x\(target.height) thumbnail of a \(width)x\(height) frame is out of the thumbnail pass's bounds"
                ))
        }
        let frameBytes = width * height * 8
        let thumbnailBytes = target.width * target.height * 16
        if thumbnailBytes > 0, (thumbnail?.size ?? 0) < thumbnailBytes {
            thumbnail = try VulkanBuffer(context, size: thumbnailBytes, usage: .storage, memory: .hostReadback)
        }
        if copyFull, (full?.size ?? 0) < frameBytes {
            full = try VulkanBuffer(context, size: frameBytes, usage: .transferDestination, memory: .hostReadback)
        }
        let cb = try recorder.begin(0)
        if thumbnailBytes > 0 {
            cb.dispatch(
                kernel, set: set,
                buffers: [BufferRange(frame, bytes: frameBytes), BufferRange(thumbnail!, bytes: thumbnailBytes)],
                push: [.uint(width), .uint(height), .uint(target.width), .uint(target.height)],
                groups: (kernel.interface.groups(covering: target.width), target.height, 1))
        }
        if copyFull { cb.copy(frame, to: full!, bytes: frameBytes) }
        try recorder.wait(for: try recorder.submit(cb))
        let values =
            thumbnailBytes == 0
            ? []
            : Array(
                UnsafeBufferPointer(
                    start: thumbnail!.mapped!.assumingMemoryBound(to: Float.self),
                    count: target.width * target.height * 4))
        return Result(
            thumbnail: values, full: copyFull ? UnsafeRawBufferPointer(start: full!.mapped, count: frameBytes) : nil)
    }
}
