import GPUKit
import ProResCore

/// One frame converted on the GPU to RGBA16F extended linear Display P3
/// (8 bytes a pixel: R, G, B, A as IEEE half floats, straight alpha).
public struct ConvertedFrame {
    public let index: Int
    public let pts: Int64?
    /// The caller's value given to `submit` (VideoToolbox's sourceFrameRefCon).
    public let reference: UInt64
    public let width: Int
    public let height: Int
    /// Valid only during the handler call: the buffer is reused afterwards.
    public let pixels: UnsafeRawBufferPointer
    /// The same frame where the GPU wrote it (device memory), for passes
    /// recorded during the handler call (`play`'s present pass): their reads
    /// order the buffer's reuse after them.
    public let device: VulkanBuffer
    /// The device's context and kernels, for those passes.
    public let context: VulkanContext
    public let kernels: KernelCache
    /// GPU time of the upload (device copy; 0 when the GPU reads host memory
    /// directly) and of the conversion, from timestamp queries: those of the
    /// frame's submission, divided by its frames (the GPU runs them together).
    public let uploadMicroseconds: Double?
    public let convertMicroseconds: Double?
    /// GPU time of each `--effect` pass, in order (empty without effects or timestamps).
    public let effectMicroseconds: [Double]
    /// Host time from the submission (the frame's group's) until the GPU work was seen complete.
    public let gpuWallMicroseconds: Double

    /// One channel of one pixel as a Float (0 R, 1 G, 2 B, 3 A).
    public func value(x: Int, y: Int, channel: Int) -> Float {
        let offset = ((y * width + x) * 4 + channel) * 2
        let bits = UInt16(pixels[offset]) | UInt16(pixels[offset + 1]) << 8
        return Float(Float16(bitPattern: bits))
    }
}
