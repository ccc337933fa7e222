import GPUKit
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU

/// Where decoded frames go (dav1d's output modules): null, raw, md5, and
/// later EXR/PNG. A sink sees each frame's visible bytes as spans it may only
/// read during the call.
public protocol FrameSink: AnyObject {
    func consume(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer]) throws
    /// The same, with the surface behind `spans`: a sink that works on the
    /// frame after returning holds a use of it (`retainUse`) meanwhile.
    func consume(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer], holder: PixelBuffer?) throws
    /// Whether the sink reads the native planar frame straight from a
    /// packed surface of the native layout (`consume(index:pts:nativePlanesOf:)`),
    /// a row at a time, so that no planar frame is unpacked for it.
    var readsNativePlanesOfPacked: Bool { get }
    /// The native planar frame held by `surface` (packed, the native layout),
    /// which the sink holds a use of while it works on it after returning.
    func consume(index: Int, pts: Int64?, nativePlanesOf surface: PixelBuffer, format: PlanarFormat) throws
    /// The run succeeded (possibly with damaged frames): make outputs final.
    func finish() throws
    /// The run was aborted: leave nothing behind.
    func abort()
}

extension FrameSink {
    public func consume(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer], holder: PixelBuffer?) throws {
        try consume(index: index, pts: pts, spans: spans)
    }

    public var readsNativePlanesOfPacked: Bool { false }

    public func consume(index: Int, pts: Int64?, nativePlanesOf surface: PixelBuffer, format: PlanarFormat) throws {
        preconditionFailure("a sink that reads no packed surface's planes is given the planar frame")
    }
}

/// Decodes and discards: a benchmark run.
final class NullSink: FrameSink {
    public init() {}
    public func consume(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer]) throws {}
    public func finish() throws {}
    public func abort() {}
}

/// Raw frames concatenated, exactly the bytes of the chosen layout.
public final class RawSink: FrameSink {
    private let file: OutputFile
    public init(file: OutputFile) { self.file = file }
    public func consume(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer]) throws { try file.write(spans) }
    public func finish() throws { try file.commit() }
    public func abort() { file.discard() }
}

/// One line per frame in FFmpeg's framemd5 format (`FrameHashLines`): the
/// hash of exactly the bytes a raw output of `layout` (nil: the native
/// planar frame) would hold for that frame (`--framemd5`: md5,
/// `--framehash`: BLAKE3-256, same shape). Frames are hashed on every core at once (`OrderedFrameWork`),
/// the lines written in frame order. A BLAKE3 of the native planar frame can
/// instead come from the run's analysis (`FrameAnalysisSink`): the GPU
/// decoder then hashes each frame on the device and no frame is read back.
public final class FrameHashSink: FrameSink, FrameAnalysisSink {
    public enum Algorithm: String, Sendable {
        case md5, blake3

        /// Frames hashed together by one worker: md5 puts up to eight in
        /// SIMD lanes side by side (`MD5Batch`); BLAKE3 is parallel within a frame.
        package var batch: Int { self == .md5 ? MD5Batch.lanes : 1 }

        /// A frame alone goes to libavutil's md5, 1.2–1.5× faster than one
        /// lane of ours: the CPU decoder's frames come one at a time.
        package var hex: ([FrameBytes]) -> [String] {
            switch self {
            case .md5: return { MD5Batch.hex(of: $0) }
            case .blake3: return { $0.map { $0.withSpans { BLAKE3.hash($0, parallel: false).hex } } }
            }
        }
    }

    private let file: OutputFile
    private var lines: FrameHashLines
    private var header: String?
    /// md5 of the native planes: read from the GPU decoder's packed frames
    /// row by row inside the hashing workers, all cores at once, instead of
    /// a planar frame unpacked first on the output thread.
    public let readsNativePlanesOfPacked: Bool
    private var work: OrderedFrameWork<String>!

    public init(file: OutputFile, format: FormatDescription, algorithm: Algorithm, layout: PackedLayout? = nil) {
        self.file = file
        lines = FrameHashLines(format: format, hashName: algorithm == .md5 ? "MD5" : "BLAKE3", layout: layout)
        readsNativePlanesOfPacked = algorithm == .md5 && layout == nil
        header = lines.header
        // Weak: the workers may still deliver while an aborted sink goes.
        work = OrderedFrameWork(batch: algorithm.batch, work: algorithm.hex) { [weak self] _, pts, size, hex in
            guard let self else { return }
            try writeHeader()
            try file.write(lines.line(pts: pts, size: size, hex: hex))
        }
    }

    /// The header goes out with the first frame (or at the end), so a run
    /// that fails before decoding writes nothing, even to stdout.
    private func writeHeader() throws {
        if let header {
            self.header = nil
            try file.write(header)
        }
    }

    public func consume(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer]) throws {
        try consume(index: index, pts: pts, spans: spans, holder: nil)
    }

    public func consume(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer], holder: PixelBuffer?) throws {
        try work.submit(index: index, pts: pts, spans: spans, holder: holder)
    }

    public func consume(index: Int, pts: Int64?, nativePlanesOf surface: PixelBuffer, format: PlanarFormat) throws {
        try work.submit(index: index, pts: pts, bytes: .nativePlanes(of: surface, format: format), holder: surface)
    }

    /// `frameBytes`: the hashed frame's size, for the lines written from analyses.
    public var frameBytes = 0

    public func consume(index: Int, pts: Int64?, analysis: FrameAnalysis) throws {
        guard let digest = analysis.digest else { return }
        try writeHeader()
        try file.write(lines.line(pts: pts, size: frameBytes, hex: digest.hex))
    }

    public func finish() throws {
        try work.finish()
        try writeHeader()
        try file.commit()
    }

    public func abort() {
        work.cancel()
        file.discard()
    }
}
