import GPUKit
import ProResCore

/// `frame_hash.comp`'s interface: one invocation per 1 KiB BLAKE3 chunk of a
/// frame's native planar bytes, read from its packed surface; a workgroup's
/// chunks merged into one subtree chaining value. Frames along y.
enum FrameHashKernel {
    static let shader = "frame_hash.comp"

    /// Chunks a workgroup merges (a power of two: its subtree is aligned).
    /// Larger means fewer CVs for the host to merge; 128 CVs of 32 bytes fit
    /// any device's shared memory.
    static let groupChunks = 128

    static let push = PushLayout(
        blockName: "FrameHashParameters",
        fields: [
            ("width", .uint, "pixels per row"),
            ("height", .uint, "rows"),
            ("wordsPerRow", .uint, "32-bit words per packed surface row"),
            ("frameWords", .uint, "32-bit words from one frame's surface to the next"),
            ("frameBytes", .uint, "bytes of the message: one native planar frame, or its packed surface"),
            ("chunks", .uint, "BLAKE3 chunks of one frame"),
            ("groupsPerFrame", .uint, "workgroups (subtree CVs) a frame"),
            ("resultWordsPerFrame", .uint, "32-bit words from one frame's results to the next"),
        ])

    /// The variant for a stream: its packed layout, planes and depth;
    /// `message`: hash that packed layout's bytes (the surface's own, or the
    /// other layout made from it), not the planar frame.
    static func interface(_ format: PlanarFormat, layout: PackedLayout, message: PackedLayout? = nil) -> KernelInterface
    {
        var defines: [(name: String, value: String)] = [
            ("GROUP_CHUNKS", "\(groupChunks)u"), ("PLANES", "\(format.planeCount)u"), ("DEPTH", "\(format.bitDepth)u"),
        ]
        if layout == .v216 { defines.append(("V216", "1")) }
        if let message {
            defines.append(("PACKED", "1"))
            if message != layout { defines.append((message == .y416 ? "MESSAGE_Y416" : "MESSAGE_V216", "1")) }
        }
        return KernelInterface(
            shader: shader, workgroupSize: groupChunks, defines: defines,
            bindings: [
                BufferBinding("surface", .read, "uint words[]", "the batch's \(layout) surfaces"),
                BufferBinding(
                    "surfaceQuads", .read, "uvec4 quads[]", "the same surfaces as 16-byte words, for aligned blocks"),
                BufferBinding("results", .write, "uint words[]", "per frame and workgroup: a subtree CV, 8 words"),
            ], push: push)
    }
}
