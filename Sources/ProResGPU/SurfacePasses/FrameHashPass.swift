import GPUKit
import HostSupport
import ProResCore

/// BLAKE3-256 of decoded frames on the GPU: the hash of each frame's native
/// planar bytes (what `--format native` writes), computed from its packed
/// surface without a planar copy, or of the packed surface's own bytes. The GPU hashes 128-chunk subtrees
/// (`frame_hash.comp`); the host merges their CVs (`BLAKE3.root`). A frame
/// of one workgroup is finalised by the shader itself (ROOT on its last
/// compression), so its single result is already the digest.
///
/// Thread-safety: one recording thread; `digest` may run on any thread.
package final class FrameHashPass {
    private let kernel: Kernel
    private let sets: [BindingSet]
    private let width: Int, height: Int
    private let wordsPerRow: Int
    private let frameBytes: Int
    private let chunks: Int
    private let groupsPerFrame: Int

    /// `slots`: binding sets to make (one per batch in flight). `layout`
    /// must be the format's native packed layout (v216 for 4:2:2 without
    /// alpha, y416 for 4:4:4): only those hold the planar frame losslessly.
    /// `message`: hash the bytes `--format` with that packed layout writes
    /// (the surface's own, or the other layout made from it), not the planar frame.
    package init(
        kernels: KernelCache, format: PlanarFormat, layout: PackedLayout, width: Int, height: Int, slots: Int,
        message: PackedLayout? = nil
    ) throws {
        precondition(
            layout == .native(for: format.chroma) && !(format.chroma == .c422 && format.hasAlpha),
            "\(layout) does not hold every sample of \(format)")
        precondition(width > 0 && height > 0 && slots > 0)
        self.width = width
        self.height = height
        wordsPerRow = layout.bytesPerRow(width: width) / 4
        frameBytes =
            message.map { $0.bytesPerRow(width: width) * height } ?? format.tightByteCount(width: width, height: height)
        precondition(frameBytes < 1 << 32, "a \(width)x\(height) frame is beyond the shader's 32-bit byte offsets")
        chunks = BLAKE3.chunkCount(bytes: frameBytes)
        groupsPerFrame = (chunks + FrameHashKernel.groupChunks - 1) / FrameHashKernel.groupChunks
        kernel = try kernels.kernel(FrameHashKernel.interface(format, layout: layout, message: message))
        sets = try kernel.makeBindingSets(slots)
    }

    /// Bytes of results one frame needs (a multiple of 16): a 32-byte CV a workgroup.
    package var resultBytesPerFrame: Int { groupsPerFrame * 32 }

    /// Hashes `frames` packed surfaces: frame i at byte i*surfaceStride of
    /// `surfaces` (a multiple of 4); its results at byte
    /// i*resultBytesPerFrame of `results`.
    package func record(
        _ cb: CommandBuffer, slot: Int, surfaces: BufferRange, surfaceStride: Int, frames: Int, results: BufferRange
    ) {
        precondition(
            surfaceStride % 4 == 0 && surfaceStride >= wordsPerRow * 4 * height, "surface stride \(surfaceStride)")
        precondition(surfaces.bytes >= (frames - 1) * surfaceStride + wordsPerRow * 4 * height || frames == 0)
        precondition(results.bytes >= frames * resultBytesPerFrame)
        precondition(surfaces.bytes < 1 << 34, "the shader indexes the surfaces with 32-bit words")
        guard frames > 0 else { return }
        cb.dispatch(
            kernel, set: sets[slot], buffers: [surfaces, surfaces, results],
            push: [
                .uint(width), .uint(height), .uint(wordsPerRow), .uint(surfaceStride / 4), .uint(frameBytes),
                .uint(chunks),
                .uint(groupsPerFrame), .uint(resultBytesPerFrame / 4),
            ], groups: (groupsPerFrame, frames, 1))
    }

    /// One frame's digest from its results (host-visible memory, after the GPU work completed).
    package func digest(results: UnsafeRawPointer) -> BLAKE3Digest {
        BLAKE3.root(subtrees: results, count: groupsPerFrame)
    }
}
