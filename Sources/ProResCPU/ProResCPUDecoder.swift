import HostSupport
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
        /// A block left the range where FFmpeg's C and x86 SIMD IDCTs
        /// agree: FFmpeg's x86 decoder may give this frame other samples.
        public let decodersMayDiffer: Bool
    }

    /// The decoded precision: 10 or 12 bits (the codec tag's, as in FFmpeg).
    public let bitDepth: Int
    public let threads: Int
    /// Surfaces of this packed layout instead of the native planar one:
    /// each pair of slices is decoded into a small planar scratch and
    /// packed from there (`SliceScratch`), never a whole planar frame.
    public let packing: PackedLayout?
    /// Frames `decode(_:)` takes at once: their slices share one spread
    /// over the threads, so that on many cores no thread waits at each
    /// frame's end for the slowest group.
    public let framesAtOnce: Int
    /// Slice groups a frame is split into.
    private let groupsPerFrame: Int
    private var pictures: [PictureLayout]
    /// Scratch memory of each slice group of the batch.
    private let workers: [SliceDecoder]
    /// Each group's planar scratch, where `packing` is set.
    private let scratches: [SliceScratch]
    /// Concealed slices of each group.
    private let damaged: UnsafeMutablePointer<Int>
    /// Whether each group's blocks may differ from FFmpeg's x86 decoder.
    private let mayDiffer: UnsafeMutablePointer<Bool>
    private var pool: PixelBufferPool?
    /// The `threads` threads the slice groups run on, this one among them.
    private let threadPool: WorkerPool

    /// `threads`: slice groups decoded at once (1: all on the caller's thread).
    public init(bitDepth: Int, threads: Int, packing: PackedLayout? = nil) {
        self.bitDepth = bitDepth
        self.packing = packing
        self.threads = max(1, threads)
        // Frames together only from 8 threads: on 2 cores a second frame's
        // slices cost 1-10% more CPU time (their outputs share the caches)
        // and leave no thread idle that one frame's groups did not keep busy.
        framesAtOnce = self.threads >= 8 ? min(4, self.threads / 4) : 1
        // Four groups a thread over a full batch: enough to even out
        // slices of different cost, few enough to cost little to hand out.
        groupsPerFrame = self.threads == 1 ? 1 : max(2, self.threads * 4 / framesAtOnce)
        pictures = [PictureLayout](repeating: PictureLayout(), count: framesAtOnce)
        workers = (0..<framesAtOnce * groupsPerFrame).map { _ in SliceDecoder() }
        scratches = packing == nil ? [] : workers.map { _ in SliceScratch() }
        damaged = .allocate(capacity: framesAtOnce * groupsPerFrame)
        mayDiffer = .allocate(capacity: framesAtOnce * groupsPerFrame)
        mayDiffer.initialize(repeating: false, count: framesAtOnce * groupsPerFrame)
        threadPool = WorkerPool(threads: self.threads)
    }

    deinit {
        for worker in workers { worker.deallocate() }
        for scratch in scratches { scratch.deallocate() }
        damaged.deallocate()
        mayDiffer.deallocate()
    }

    public var poolStatistics: PixelBufferPool.Statistics {
        pool?.statistics ?? .init(allocated: 0, vended: 0, peakInUse: 0)
    }

    /// The surface layout a frame with `header` decodes into.
    public func surfaceLayout(for header: ProResFrameHeader) -> SurfaceLayout {
        if let packing { return .packed(packing, width: header.width, height: header.height) }
        let interlaced = header.fieldOrder != .progressive
        let mbWidth = (header.width + 15) >> 4
        let rows = interlaced ? ((header.height + 31) >> 5) * 32 : ((header.height + 15) >> 4) * 16
        let format = PlanarFormat(decoding: header.chroma, bitDepth: bitDepth, alpha: header.alpha != .none)
        return .planar(
            format, width: header.width, height: header.height, paddedWidth: mbWidth * 16, paddedHeight: rows,
            rowAlignment: 64)
    }

    /// Decodes one frame into a surface of the decoder's pool (one use held
    /// for the caller). `bytes` must be followed by `CompressedSample.padding`
    /// zero bytes. Throws, naming the problem, where no picture can be made.
    public func decode(_ bytes: UnsafeRawBufferPointer) throws -> Outcome {
        try decode([bytes])[0].get()
    }

    /// Decodes up to `framesAtOnce` frames, each as `decode(_:)` does, their
    /// slices spread over the threads together; the outcomes in order.
    public func decode(_ frames: [UnsafeRawBufferPointer]) -> [Result<Outcome, Error>] {
        precondition(frames.count <= framesAtOnce, "at most framesAtOnce frames a call")
        var prepared: [Result<(header: ProResFrameHeader, surface: PixelBuffer), Error>] = []
        for (i, bytes) in frames.enumerated() {
            prepared.append(Result { try prepare(bytes, picture: i) })
        }
        // Every frame's slice groups in one spread; a failed frame has none.
        let outputs = prepared.map { result in
            (try? result.get()).map { output(surface: $0.surface, header: $0.header) }
        }
        let groups = frames.count * groupsPerFrame
        let decodeGroup = { (group: Int) in
            let f = group / self.groupsPerFrame
            let g = group % self.groupsPerFrame
            self.damaged[group] = 0
            self.mayDiffer[group] = false
            guard let output = outputs[f], case .success(let frame) = prepared[f] else { return }
            // The slices go to the frame's planes, or to the group's scratch and from there to the packed surface.
            let targets: PlaneTargets
            let packing: (surface: PackedTarget, scratch: SliceScratch)?
            switch output {
            case .planes(let planes): (targets, packing) = (planes, nil)
            case .packed(let surface):
                let scratch = self.scratches[group]
                (targets, packing) = (scratch.targets(for: surface), (surface, scratch))
            }
            self.damaged[group] = self.decodeSlices(
                frames[f], picture: f, header: frame.header, targets: targets, packing: packing,
                group: g, worker: self.workers[group])
            self.mayDiffer[group] = self.workers[group].takeMayDiffer()
        }
        threadPool.run(groups, decodeGroup)
        return prepared.enumerated().map { f, result in
            result.map { frame in
                let concealed = (0..<groupsPerFrame).reduce(0) { $0 + damaged[f * groupsPerFrame + $1] }
                let differs = (0..<groupsPerFrame).contains { mayDiffer[f * groupsPerFrame + $0] }
                return Outcome(
                    surface: frame.surface, header: frame.header, damagedSlices: concealed,
                    missingSecondField: pictures[f].missingSecondField, decodersMayDiffer: differs)
            }
        }
    }

    /// Parses frame `bytes` into `pictures[picture]` and takes its surface.
    private func prepare(_ bytes: UnsafeRawBufferPointer, picture: Int) throws -> (
        header: ProResFrameHeader, surface: PixelBuffer
    ) {
        let header: ProResFrameHeader
        do { header = try ProResFrameHeader(bytes) } catch { throw BitstreamError("invalid frame header: \(error)") }
        guard bytes.count >= header.minimumFrameBytes else {
            throw BitstreamError(
                "invalid picture: a \(header.width)x\(header.height) frame needs at least "
                    + "\(header.minimumFrameBytes) bytes, this one has \(bytes.count)")
        }
        try pictures[picture].parse(bytes, header: header)
        return (header, try PixelBufferPool.makeBuffer(surfaceLayout(for: header), from: &pool))
    }

    /// Where a frame's slices go: the planes of a planar surface, or a
    /// packed surface, through each group's scratch.
    private enum SliceOutput {
        case planes(PlaneTargets)
        case packed(PackedTarget)
    }

    private func output(surface: PixelBuffer, header: ProResFrameHeader) -> SliceOutput {
        let layout = surface.layout
        let interlaced = header.fieldOrder != .progressive
        if case .packed(let packed) = layout.content {
            return .packed(
                PackedTarget(
                    base: surface.baseAddress + layout.planes[0].offset, bytesPerRow: layout.planes[0].bytesPerRow,
                    layout: packed,
                    format: PlanarFormat(decoding: header.chroma, bitDepth: bitDepth, alpha: header.alpha != .none),
                    alphaBits: header.alpha.rawValue, width: header.width, height: header.height,
                    interlaced: interlaced))
        }
        return .planes(
            PlaneTargets(
                planes: (0..<layout.planes.count).map { surface.plane($0).assumingMemoryBound(to: UInt16.self) },
                strides: layout.planes.map { $0.bytesPerRow / 2 }, depth: bitDepth, chroma444: header.chroma == .c444,
                interlaced: interlaced, interlacedScan: interlaced, alphaBits: header.alpha.rawValue))
    }

    /// Decodes group `group` of the parsed slices of `pictures[picture]`
    /// into `targets`: the frame's planes, or with `packing` its scratch,
    /// packed from there into the surface a pair of slices at a time.
    /// Returns how many were concealed.
    private func decodeSlices(
        _ bytes: UnsafeRawBufferPointer, picture: Int, header: ProResFrameHeader, targets: PlaneTargets,
        packing: (surface: PackedTarget, scratch: SliceScratch)?, group: Int, worker: SliceDecoder
    ) -> Int {
        let luma = header.lumaQuantMatrix ?? Self.flatMatrix
        let chroma = header.chromaQuantMatrix ?? luma
        guard let frame = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        return pictures[picture].slices.withUnsafeBufferPointer { slices in
            luma.withUnsafeBufferPointer { luma in
                chroma.withUnsafeBufferPointer { chroma in
                    var count = 0
                    var i = slices.count * group / groupsPerFrame
                    let end = slices.count * (group + 1) / groupsPerFrame
                    let lumaMatrix = luma.baseAddress!
                    let chromaMatrix = chroma.baseAddress!
                    while i < end {
                        let paired = i + 1 < end && SliceDecoder.pairs(slices[i], slices[i + 1])
                        let second = paired ? slices[i + 1] : nil
                        if let packing {
                            count += worker.decode(
                                SliceScratch.placed(slices[i], slot: 0),
                                second.map { SliceScratch.placed($0, slot: 1) },
                                frame: frame, targets: targets, lumaMatrix: lumaMatrix, chromaMatrix: chromaMatrix)
                            packing.scratch.pack(slices[i], slot: 0, into: packing.surface)
                            if let second { packing.scratch.pack(second, slot: 1, into: packing.surface) }
                        } else {
                            count += worker.decode(
                                slices[i], second, frame: frame, targets: targets, lumaMatrix: lumaMatrix,
                                chromaMatrix: chromaMatrix)
                        }
                        i += paired ? 2 : 1
                    }
                    return count
                }
            }
        }
    }

    /// RDD 36: without a matrix in the frame header, every entry is 4.
    private static let flatMatrix = [UInt8](repeating: 4, count: 64)
}
