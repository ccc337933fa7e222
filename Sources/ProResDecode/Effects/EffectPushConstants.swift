/// The push-constant blocks of the effect shaders, declared once here and
/// mirrored line for line in GLSL (`glsl…` below; a test checks each shader
/// holds its block). std430, 4-byte scalars in host byte order, all far below
/// the 128 bytes Vulkan guarantees. Every value is computed on the CPU in
/// Double (the effect types) and rounded to Float here.
enum EffectPushConstants {
    /// `Shaders/effect_matrix.comp`: rgb' = M · rgb.
    static func matrix(_ m: Matrix3, width: Int, height: Int) -> [UInt8] {
        var block = Block()
        for j in 0..<3 { block.vec4(m.column(j), 0) }
        block.uint(width)
        block.uint(height)
        return block.bytes
    }

    static let glslMatrix = """
        layout(push_constant, std430) uniform MatrixEffectParameters {
            vec4 column0;       // offset  0: xyz = M column 0
            vec4 column1;       // offset 16: xyz = M column 1
            vec4 column2;       // offset 32: xyz = M column 2
            uint width;         // offset 48: pixels per row
            uint height;        // offset 52: rows
        } pc;
        """

    /// `Shaders/effect_chroma_key.comp`: the key's (Cb, Cr) under this
    /// frame's matrix, the range's chroma de-quantisation, and the source's
    /// geometry. Softness 0 becomes the largest finite Float, so the ramp is
    /// a step at the tolerance without dividing by zero.
    static func chromaKey(_ key: ChromaKey, matrix: YCbCrToRGB, range: ColorRange, width: Int, height: Int,
                          sourceBytesPerRow: Int) -> [UInt8] {
        let chroma = key.keyChroma(matrix)
        let quantisation = CodeQuantisation(range)
        var block = Block()
        block.vec4(SIMD3(chroma.x, chroma.y, key.tolerance), key.softness > 0 ? 1 / key.softness : Double(Float.greatestFiniteMagnitude))
        block.float(quantisation.cCentre)
        block.float(1 / quantisation.cExcursion)
        block.uint(width)
        block.uint(height)
        block.uint(sourceBytesPerRow / 4)
        return block.bytes
    }

    static let glslChromaKey = """
        layout(push_constant, std430) uniform ChromaKeyParameters {
            vec4 key;                // offset  0: x = key Cb, y = key Cr, z = tolerance, w = 1 / softness
            float chromaCentre;      // offset 16: code of Cb = Cr = 0
            float chromaScale;       // offset 20: 1 / code span of Cb or Cr from -1/2 to +1/2
            uint width;              // offset 24: pixels per row
            uint height;             // offset 28: rows
            uint sourceWordsPerRow;  // offset 32: 32-bit words per source row
        } pc;
        """

    /// `Shaders/effect_lut3d.comp`: coordinate = shaped · scale + offset,
    /// with scale = 1 / (max − min) and offset = −min · scale per channel.
    static func lut(_ effect: LUTEffect, width: Int, height: Int) -> [UInt8] {
        let lut = effect.lut
        let scale = 1 / (lut.domainMax - lut.domainMin)
        let white: Double
        switch effect.shaper {
        case let .pq(referenceWhite): white = referenceWhite
        case .linear: white = TransferFunction.pqPeak
        }
        var block = Block()
        block.vec4(scale, white / TransferFunction.pqPeak)
        block.vec4(-lut.domainMin * scale, TransferFunction.pqPeak / white)
        block.uint(lut.size)
        block.uint(effect.shaper == .linear ? 0 : 1)
        block.uint(width)
        block.uint(height)
        return block.bytes
    }

    static let glslLUT = """
        layout(push_constant, std430) uniform LUTParameters {
            vec4 inputScale;    // offset  0: xyz = 1 / (domain max - min), w = reference white / 10000 (PQ)
            vec4 inputOffset;   // offset 16: xyz = -domain min * scale, w = 10000 / reference white (PQ)
            uint size;          // offset 32: entries per axis
            uint shaper;        // offset 36: 0 linear, 1 PQ
            uint width;         // offset 40: pixels per row
            uint height;        // offset 44: rows
        } pc;
        """

    /// Appends fields in declaration order; std430 needs no padding here
    /// because every vec4 comes first.
    private struct Block {
        var bytes: [UInt8] = []
        mutating func float(_ value: Double) { append(Float(value).bitPattern) }
        mutating func uint(_ value: Int) { append(UInt32(value)) }
        mutating func vec4(_ xyz: SIMD3<Double>, _ w: Double) {
            for v in [xyz.x, xyz.y, xyz.z, w] { float(v) }
        }
        private mutating func append(_ word: UInt32) { withUnsafeBytes(of: word) { bytes += $0 } }
    }
}
