import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU

/// Where decoded frames go (dav1d's output modules): null, raw, md5, and
/// later EXR/PNG. A sink sees each frame's visible bytes as spans it may only
/// read during the call.
public protocol FrameSink: AnyObject {
    func consume(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer]) throws
    /// The run succeeded (possibly with damaged frames): make outputs final.
    func finish() throws
    /// The run was aborted: leave nothing behind.
    func abort()
}

/// Decodes and discards: a benchmark run.
public final class NullSink: FrameSink {
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

/// One line per frame: `index, pts, size, md5` of exactly the bytes a raw
/// output would hold for that frame.
public final class FrameMD5Sink: FrameSink {
    private let file: OutputFile
    private var header: String?

    public init(file: OutputFile, layoutName: String) {
        self.file = file
        header = "#format: frame index, pts, size in bytes, md5 of the \(layoutName) frame\n"
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
        try writeHeader()
        let size = spans.reduce(0) { $0 + $1.count }
        try file.write("\(index), \(pts.map(String.init) ?? "NOPTS"), \(size), \(MD5.hex(of: spans))\n")
    }

    public func finish() throws {
        try writeHeader()
        try file.commit()
    }
    public func abort() { file.discard() }
}
