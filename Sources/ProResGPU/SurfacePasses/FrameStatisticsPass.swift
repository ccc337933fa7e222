import GPUKit
import ProResCore

/// Per-frame picture statistics (`PictureSums`) of a batch of packed
/// surfaces, computed where the frames live: `frame_stats.comp` reduces
/// bands of rows to partials, and only those come back to the host, which
/// adds them in 64 bits. The integers equal the CPU's
/// (`PictureSums(frame:range:light:)` on the unpacked frame); the light is
/// computed in float32 and is within 1e-4 relative of the CPU's Double.
///
/// Reads the native packed layout only (y416 for 4:4:4, v216 for 4:2:2
/// without alpha), with tight rows (`PackedLayout.bytesPerRow`).
///
/// Thread-safety: used by one recording thread; each slot's binding set
/// by one command buffer at a time.
package final class FrameStatisticsPass {
    /// One workgroup's results: four uvec4, then its band's first row of
    /// the still grid (`StillGrid`), two codes a word (the first in the low
    /// half), padded to whole uvec4s.
    ///
    ///     word 0 Y' min     1 Y' max      2 Y' sum (32-bit)   3 dark Y'
    ///     word 4 alpha 0    5 alpha max   6 peak (float bits) 7 light sum (float bits)
    ///     word 8 Y' below   9 Y' above   10 Cb/Cr below      11 Cb/Cr above
    ///     word 12 grid pixels out of gamut, 13–15 0
    ///     word 16... still grid samples
    enum Partial {
        static let sumWords = 16

        /// Bytes of one partial with `gridSamples` grid samples: a multiple of 16.
        static func bytes(gridSamples: Int) -> Int { (sumWords + (gridSamples + 7) / 8 * 4) * 4 }
    }

    private let kernel: Kernel
    private let sets: [BindingSet]
    private let format: PlanarFormat
    private let layout: PackedLayout
    private let width: Int
    private let height: Int
    private let limits: VideoRangeLimits?
    private let range: ColorRange
    private let light: LightLevelMeter?
    private let gamut: GamutMeter?
    /// Workgroups (row bands) a frame, hence partials a frame.
    private let groupsPerFrame: Int
    /// Samples of one still grid row, and bytes of one partial.
    private let gridSamples: Int
    private let partialBytes: Int

    /// `light`: nil unless the stream is PQ/HLG. `slots`: binding sets to make.
    package init(
        kernels: KernelCache, format: PlanarFormat, layout: PackedLayout, width: Int, height: Int, range: ColorRange,
        light: LightLevelMeter?, gamut: GamutMeter? = nil, slots: Int
    ) throws {
        guard layout == PackedLayout.native(for: format.chroma), !(layout == .v216 && format.hasAlpha) else {
            throw ProResDecodeError.badRequest(
                .message(
                    "frame statistics read the native packed layout (y416 for 4:4:4, v216 for 4:2:2 without alpha), not \(layout) for \(format)"
                ))
        }
        // Each workgroup's Y' sum is 32-bit (see FrameStatisticsKernel.rowsPerGroup).
        let largestBandSum =
            UInt64(width) * UInt64(FrameStatisticsKernel.rowsPerGroup) * UInt64((1 << format.bitDepth) - 1)
        guard width > 0, height > 0, largestBandSum <= UInt64(UInt32.max) else {
            throw ProResDecodeError.badRequest(
                .message("frame statistics: a \(width)x\(height) frame is out of the pass's bounds"))
        }
        self.format = format
        self.layout = layout
        self.width = width
        self.height = height
        limits = VideoRangeLimits(range: range, bitDepth: format.bitDepth)
        self.range = range
        self.light = light
        self.gamut = gamut
        groupsPerFrame = (height + FrameStatisticsKernel.rowsPerGroup - 1) / FrameStatisticsKernel.rowsPerGroup
        gridSamples = StillGrid.samplesPerRow(format, width: width)
        partialBytes = Partial.bytes(gridSamples: gridSamples)
        kernel = try kernels.kernel(
            FrameStatisticsKernel.interface(layout: layout, alpha: format.hasAlpha, light: light, gamut: gamut != nil))
        sets = try kernel.makeBindingSets(slots)
    }

    /// Bytes of one frame's results (its partials): a multiple of 16.
    package var resultBytesPerFrame: Int { groupsPerFrame * partialBytes }

    /// Frame i's packed surface at byte i·surfaceStride of `surfaces` (a
    /// multiple of 4); its results at byte i·resultBytesPerFrame of `results`.
    package func record(
        _ cb: CommandBuffer, slot: Int, surfaces: BufferRange, surfaceStride: Int, frames: Int, results: BufferRange
    ) {
        precondition(
            surfaceStride % 4 == 0 && surfaceStride >= layout.bytesPerRow(width: width) * height,
            "a surface stride of \(surfaceStride) bytes does not hold a \(width)x\(height) \(layout) frame")
        precondition(
            results.bytes >= frames * resultBytesPerFrame, "the results range holds fewer than \(frames) frames")
        guard frames > 0 else { return }
        cb.dispatch(
            kernel, set: sets[slot], buffers: [surfaces, results], push: pushValues(surfaceStride: surfaceStride),
            groups: (groupsPerFrame, frames, 1))
    }

    /// One frame's sums from its results (host-visible memory, after the GPU work completed).
    package func sums(results: UnsafeRawPointer) -> PictureSums {
        var lumaMin = UInt32.max
        var lumaMax: UInt32 = 0
        var lumaSum: UInt64 = 0
        var dark: UInt64 = 0
        var transparent: UInt64 = 0
        var opaque: UInt64 = 0
        var outside = PictureSums.OutOfRangeCounts()
        var peak: Float = 0
        var lightSum = 0.0
        var gamutOutside: UInt64 = 0
        for group in 0..<groupsPerFrame {
            func word(_ i: Int) -> UInt32 {
                results.load(fromByteOffset: group * partialBytes + 4 * i, as: UInt32.self)
            }
            lumaMin = min(lumaMin, word(0))
            lumaMax = max(lumaMax, word(1))
            lumaSum += UInt64(word(2))
            dark += UInt64(word(3))
            transparent += UInt64(word(4))
            opaque += UInt64(word(5))
            peak = max(peak, Float(bitPattern: word(6)))
            lightSum += Double(Float(bitPattern: word(7)))
            outside =
                outside
                + PictureSums.OutOfRangeCounts(
                    lumaBelow: UInt64(word(8)), lumaAbove: UInt64(word(9)),
                    chromaBelow: UInt64(word(10)), chromaAbove: UInt64(word(11)))
            gamutOutside += UInt64(word(12))
        }
        let step = LightLevelMeter.gridStep
        let gridPixels = Double(((width + step - 1) / step) * ((height + step - 1) / step))
        return PictureSums(
            lumaMin: Int(lumaMin), lumaMax: Int(lumaMax), lumaSum: lumaSum, darkPixels: dark,
            samples: UInt64(width * height),
            alpha: format.hasAlpha ? .init(transparent: transparent, opaque: opaque) : nil,
            outOfRange: limits == nil ? nil : outside,
            light: light == nil ? nil : .init(peak: Double(peak), average: lightSum / gridPixels),
            gamut: gamut == nil ? nil : .init(outside: gamutOutside, points: UInt64(gridPixels)))
    }

    /// One frame's still grid from its results: each band's grid row, in order.
    package func stillGrid(results: UnsafeRawPointer) -> StillGrid {
        var samples: [UInt16] = []
        samples.reserveCapacity(groupsPerFrame * gridSamples)
        for group in 0..<groupsPerFrame {
            let row = results + group * partialBytes + Partial.sumWords * 4
            for s in 0..<gridSamples {
                let word = row.load(fromByteOffset: 4 * (s / 2), as: UInt32.self)
                samples.append(UInt16(truncatingIfNeeded: s % 2 == 0 ? word : word >> 16))
            }
        }
        return StillGrid(bitDepth: format.bitDepth, samples: samples)
    }

    /// The push block for one dispatch, in `FrameStatisticsKernel.push`'s order.
    private func pushValues(surfaceStride: Int) -> [PushValue] {
        let colour = LightParameters(light?.spec ?? gamut?.spec)
        // Full range: every code is legal, nothing counts (the host reports nil).
        let (lumaLow, lumaHigh, chromaLow, chromaHigh) =
            limits.map { ($0.lumaLow, $0.lumaHigh, $0.chromaLow, $0.chromaHigh) }
            ?? (0, Int(UInt32.max), 0, Int(UInt32.max))
        return [
            .vec4(colour.rows[0], colour.weights.x), .vec4(colour.rows[1], colour.weights.y),
            .vec4(colour.rows[2], colour.weights.z),
            .vec4(
                SIMD3(colour.quantisation.yBlack, colour.quantisation.yExcursion, colour.quantisation.cCentre),
                colour.quantisation.cExcursion),
            .float(colour.hlgPeakLuminance), .float(colour.hlgSystemGamma),
            .uint(width), .uint(height), .uint(layout.bytesPerRow(width: width) / 4), .uint(surfaceStride / 4),
            .uint(16 - format.bitDepth), .uint((1 << format.bitDepth) - 1),
            .uint(lumaLow), .uint(lumaHigh), .uint(chromaLow), .uint(chromaHigh),
            .uint(DarkPixels.threshold(range: range, bitDepth: format.bitDepth)),
        ]
    }
}

/// What the shader's light and gamut maths need from a `ConversionSpec`, in
/// Double (rounded to float once, when pushed); neutral values without one.
private struct LightParameters {
    var rows: [SIMD3<Double>] = [.zero, .zero, .zero]
    var weights = SIMD3<Double>.zero
    var quantisation = CodeQuantisation.video
    var hlgPeakLuminance = 0.0
    var hlgSystemGamma = 1.0

    /// `spec`: the light's, else the gamut's (the matrix and quantisation
    /// are the same; the HLG values serve the light alone).
    init(_ spec: ConversionSpec?) {
        guard let spec else { return }
        rows = spec.ycbcr.matrix.rows
        weights = spec.hlgLuminanceWeights
        quantisation = CodeQuantisation(spec.range)
        hlgPeakLuminance = spec.hlgPeakLuminance
        hlgSystemGamma = TransferFunction.hlgSystemGamma(peakLuminance: spec.hlgPeakLuminance)
    }
}
