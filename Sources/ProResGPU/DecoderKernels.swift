import GPUKit
import ProResCore

/// The GPU decoder's interface with its shaders, declared once: the slice
/// and frame tables (`SliceTable` packs them with these fields, the shaders
/// read them through the accessors generated from them) and both passes'
/// bindings, push constants and compile-time facts.
enum DecoderKernels {
    /// One slice (RDD 36 §5.3) as the passes read it: 8 words, two uvec4 loads.
    /// Fields are computed properties so that the parser's hot loop gets
    /// constants, not a lazily initialised global per field and slice.
    enum Slice {
        static var bitstreamOffset: BitField { BitField("bitstreamOffset", word: 0) }
        static var headerSize: BitField { BitField("headerSize", word: 1, bits: 8) }
        static var qscale: BitField { BitField("qscale", word: 1, shift: 8, bits: 10) }
        static var log2Macroblocks: BitField { BitField("log2Macroblocks", word: 1, shift: 20, bits: 2) }
        /// 0: the host rejected the slice header (concealed, never decoded).
        static var valid: BitField { BitField("valid", word: 1, shift: 24, bits: 1) }
        static var lumaSize: BitField { BitField("lumaSize", word: 2, bits: 16) }
        static var cbSize: BitField { BitField("cbSize", word: 2, shift: 16, bits: 16) }
        static var crSize: BitField { BitField("crSize", word: 3, bits: 16) }
        static var alphaSize: BitField { BitField("alphaSize", word: 3, shift: 16, bits: 16) }
        /// The first macroblock's column, and the row within its field.
        static var column: BitField { BitField("column", word: 4, bits: 16) }
        static var row: BitField { BitField("row", word: 4, shift: 16, bits: 16) }
        /// The frame's place in the batch.
        static var frame: BitField { BitField("frame", word: 5, bits: 8) }
        static var fieldParity: BitField { BitField("fieldParity", word: 5, shift: 8, bits: 1) }
        static var interlaced: BitField { BitField("interlaced", word: 5, shift: 9, bits: 1) }
        /// Index of the slice's first coefficient: Y', Cb, Cr, alpha regions follow.
        static var firstCoefficient: BitField { BitField("firstCoefficient", word: 6) }

        static let layout = TableLayout(
            "slice", words: 8, access: .vector(binding: "slices"),
            fields: [
                bitstreamOffset, headerSize, qscale, log2Macroblocks, valid, lumaSize, cbSize, crSize, alphaSize,
                column, row, frame, fieldParity, interlaced, firstCoefficient,
            ])
    }

    /// One frame of a batch.
    enum Frame {
        static var firstSlice: BitField { BitField("firstSlice", word: 0) }
        static var sliceCount: BitField { BitField("sliceCount", word: 1) }
        /// Where the frame's output starts in the surface buffer, in 8-byte units.
        static var surfaceOffset: BitField { BitField("surfaceOffset", word: 2) }
        /// 0 none, 1 8-bit, 2 16-bit (ProResFrameHeader.Alpha).
        static var alphaBits: BitField { BitField("alphaBits", word: 3, bits: 2) }
        /// The quantisation matrices, 4 bytes a word in scan order.
        static var lumaMatrix: WordArray { WordArray("lumaMatrix", word: 4, count: 16) }
        static var chromaMatrix: WordArray { WordArray("chromaMatrix", word: 20, count: 16) }

        static let layout = TableLayout(
            "frame", words: 36, access: .scalar(binding: "frames"),
            fields: [firstSlice, sliceCount, surfaceOffset, alphaBits],
            arrays: [lumaMatrix, chromaMatrix])
    }

    /// The transform's workgroups in a dispatch row: the macroblocks of this
    /// many slices, each slice's side by side (they read the same region).
    static let transformSlicesPerRow = 32

    /// What both passes know about the stream when they are compiled: the
    /// same facts reach both by the same mechanism.
    static func streamFacts(chroma444: Bool, depth: Int) -> [(name: String, value: String)] {
        [("CHROMA444", chroma444 ? "1" : "0"), ("DEPTH", "\(depth)")]
    }

    static func entropy(_ format: FormatDescription) -> KernelInterface {
        entropy(chroma444: format.chroma == .c444, depth: format.bitDepth)
    }

    static func transform(_ format: FormatDescription) -> KernelInterface {
        transform(chroma444: format.chroma == .c444, depth: format.bitDepth)
    }

    /// Entropy decoding (`prores_vld.comp`): one invocation per slice and component.
    static func entropy(chroma444: Bool, depth: Int) -> KernelInterface {
        KernelInterface(
            shader: "prores_vld.comp", workgroupSize: 64, defines: streamFacts(chroma444: chroma444, depth: depth),
            bindings: [
                BufferBinding("bitstream", .read, "uint bytes[]", "the batch's frames, each padded"),
                BufferBinding("slices", .read, "uvec4 words[]", "slice table"),
                BufferBinding("frames", .read, "uint words[]", "frame table"),
                BufferBinding(
                    "coefficients", .write, "uvec4 groups[]", "16-bit coefficients in coded order, 8 a group"),
                BufferBinding("status", .readWrite, "uint flags[]", "per slice: bit c set = component c failed"),
            ], tables: [Slice.layout, Frame.layout])
    }

    /// Dequantisation + IDCT + packing (`prores_idct.comp`): one workgroup per macroblock.
    static let transformPush = PushLayout(
        blockName: "TransformParameters",
        fields: [
            ("width", .uint, "visible pixels"),
            ("height", .uint, "visible rows"),
            ("unitsPerRow", .uint, "uvec2 units per surface row"),
            ("log2MaxMbs", .uint, "log2 of the widest slice's macroblocks in the batch"),
        ])

    /// `slicesPerRow`: workgroup rows narrower than the decoder's, for tests.
    static func transform(chroma444: Bool, depth: Int, slicesPerRow: Int = transformSlicesPerRow) -> KernelInterface {
        KernelInterface(
            shader: "prores_idct.comp",
            defines: streamFacts(chroma444: chroma444, depth: depth) + [("SLICES_PER_ROW", "\(slicesPerRow)u")],
            bindings: [
                BufferBinding("slices", .read, "uvec4 words[]", "slice table"),
                BufferBinding("frames", .read, "uint words[]", "frame table"),
                BufferBinding("coefficients", .read, "int16_t values[]", "the entropy pass's output"),
                BufferBinding("status", .read, "uint flags[]", "the entropy pass's failures"),
                BufferBinding("surface", .write, "uvec2 units[]", "v216 or y416, 8 bytes a unit"),
                BufferBinding(
                    "report", .readWrite, "uint flags[]",
                    "the failures again, per slice, in host-visible memory, and bit 4 where a block may differ from FFmpeg's x86 IDCT"
                ),
            ], push: transformPush, tables: [Slice.layout, Frame.layout])
    }
}
