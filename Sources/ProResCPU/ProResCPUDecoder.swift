import ProResCore

/// Our CPU ProRes decoder: one frame at a time, its slices spread over
/// threads, written straight into a pooled surface of the native planar
/// layout (FFmpeg's pixel format for the stream, rows padded to whole
/// macroblocks). Bit-exact with FFmpeg's software decoder (its C IDCT) and
/// with the GPU decoder, damaged slices included. The slice table, every
/// slice group's scratch memory and the surfaces are reused from frame to
/// frame; a frame makes only its header's few small arrays.
public final class ProResCPUDecoder {
    /// What one frame came to.
    public struct Outcome {
        public let surface: PixelBuffer
        public let header: ProResFrameHeader
        /// Slices that could not be decoded and were concealed.
        public let damagedSlices: Int
        /// The frame ended with its first field; the second was concealed.
        public let missingSecondField: Bool
    }

    /// The decoded precision: 10 or 12 bits (the codec tag's, as in FFmpeg).
    public let bitDepth: Int
    public let threads: Int
    private var picture = PictureLayout()
    /// Scratch memory of each slice group.
    private let workers: [SliceDecoder]
    private let damaged: UnsafeMutablePointer<Int>
    private var pool: PixelBufferPool?

    /// `threads`: slice groups decoded at once (1: all on the caller's thread).
    public init(bitDepth: Int, threads: Int) {
        self.bitDepth = bitDepth
        self.threads = max(1, threads)
        let groups = self.threads == 1 ? 1 : self.threads * 4
        workers = (0..<groups).map { _ in SliceDecoder() }
        damaged = .allocate(capacity: groups)
    }

    deinit {
        for worker in workers { worker.deallocate() }
        damaged.deallocate()
    }

    public var poolStatistics: PixelBufferPool.Statistics {
        pool?.statistics ?? .init(allocated: 0, vended: 0, peakInUse: 0)
    }

    /// The surface layout a frame with `header` decodes into.
    public func surfaceLayout(for header: ProResFrameHeader) -> SurfaceLayout {
        let interlaced = header.fieldOrder != .progressive
        let mbWidth = (header.width + 15) >> 4
        let rows = interlaced ? ((header.height + 31) >> 5) * 32 : ((header.height + 15) >> 4) * 16
        let format = PlanarFormat(decoding: header.chroma, bitDepth: bitDepth, alpha: header.alpha != .none)
        return .planar(format, width: header.width, height: header.height, paddedWidth: mbWidth * 16, paddedHeight: rows,
                       rowAlignment: 64)
    }

    /// Decodes one frame into a surface of the decoder's pool (one use held
    /// for the caller). `bytes` must be followed by `CompressedSample.padding`
    /// zero bytes. Throws, naming the problem, where no picture can be made.
    public func decode(_ bytes: UnsafeRawBufferPointer) throws -> Outcome {
        let header: ProResFrameHeader
        do { header = try ProResFrameHeader(bytes) } catch { throw BitstreamError("invalid frame header: \(error)") }
        guard bytes.count >= header.minimumFrameBytes else {
            throw BitstreamError("invalid picture: a \(header.width)x\(header.height) frame needs at least "
                                 + "\(header.minimumFrameBytes) bytes, this one has \(bytes.count)")
        }
        try picture.parse(bytes, header: header)
        let surface = try PixelBufferPool.makeBuffer(surfaceLayout(for: header), from: &pool)
        let damagedSlices = decodeSlices(bytes, header: header, into: surface)
        return Outcome(surface: surface, header: header, damagedSlices: damagedSlices, missingSecondField: picture.missingSecondField)
    }

    /// Decodes the parsed slices into `surface`; returns how many were concealed.
    private func decodeSlices(_ bytes: UnsafeRawBufferPointer, header: ProResFrameHeader, into surface: PixelBuffer) -> Int {
        let layout = surface.layout
        let targets = PlaneTargets(planes: (0..<layout.planes.count).map { surface.plane($0).assumingMemoryBound(to: UInt16.self) },
                                   strides: layout.planes.map { $0.bytesPerRow / 2 }, depth: bitDepth,
                                   chroma444: header.chroma == .c444, interlaced: header.fieldOrder != .progressive,
                                   alphaBits: header.alpha.rawValue)
        let luma = header.lumaQuantMatrix ?? Self.flatMatrix
        let chroma = header.chromaQuantMatrix ?? luma
        guard let frame = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        return picture.slices.withUnsafeBufferPointer { slices in
            luma.withUnsafeBufferPointer { luma in
                chroma.withUnsafeBufferPointer { chroma in
                    let groups = min(workers.count, max(1, slices.count))
                    let decodeGroup = { (group: Int) in
                        let worker = self.workers[group]
                        var count = 0
                        for i in slices.count * group / groups..<slices.count * (group + 1) / groups {
                            if !worker.decode(slices[i], frame: frame, targets: targets, lumaMatrix: luma.baseAddress!,
                                              chromaMatrix: chroma.baseAddress!) {
                                count += 1
                            }
                        }
                        self.damaged[group] = count
                    }
                    if groups == 1 { decodeGroup(0) } else { parallelFor(groups, decodeGroup) }
                    return (0..<groups).reduce(0) { $0 + damaged[$1] }
                }
            }
        }
    }

    /// RDD 36: without a matrix in the frame header, every entry is 4.
    private static let flatMatrix = [UInt8](repeating: 4, count: 64)
}
