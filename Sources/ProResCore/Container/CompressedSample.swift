import HostSupport

/// One compressed ProRes frame (CMSampleBuffer): its bytes and whatever owns
/// them (a demuxer's packet, a pooled read buffer, a copy), released with the
/// sample, never copied to hand it on. Like dav1d's `Dav1dData`, it names no
/// codec library's type, so the core and the GPU decoder need none.
///
/// @unchecked Sendable: every stored property is immutable; `bytes` points
/// into `storage`, which lives as long as the sample and is never written.
public final class CompressedSample: @unchecked Sendable {
    /// Zero bytes that follow `bytes` in every sample: decoders read up to
    /// this far past the end (FFmpeg's AV_INPUT_BUFFER_PADDING_SIZE).
    public static let padding = 64

    /// Position of the frame in its track, counting from 0.
    public let index: Int
    /// Presentation time in the track's time base (nil when unknown).
    public let pts: Int64?
    public let duration: Int64
    public let format: FormatDescription
    /// Time spent reading this sample out of the container, in nanoseconds.
    public let demuxNanoseconds: UInt64
    /// When reading began (monotonic ns): the start of the frame's latency.
    public let readStart: UInt64
    /// The compressed bytes, followed by `padding` zero bytes.
    public let bytes: UnsafeRawBufferPointer
    /// Keeps `bytes` alive.
    public let storage: AnyObject

    /// `bytes` must stay valid, and be followed by `padding` zero bytes, for
    /// as long as `storage` lives.
    public init(
        bytes: UnsafeRawBufferPointer, storage: AnyObject, index: Int, pts: Int64?, duration: Int64,
        format: FormatDescription, readStart: UInt64, demuxNanoseconds: UInt64
    ) {
        self.bytes = bytes
        self.storage = storage
        self.index = index
        self.pts = pts
        self.duration = duration
        self.format = format
        self.readStart = readStart
        self.demuxNanoseconds = demuxNanoseconds
    }

    /// A sample holding a padded copy of `bytes` in memory of its own.
    public convenience init(
        copying bytes: UnsafeRawBufferPointer, index: Int, pts: Int64?, duration: Int64,
        format: FormatDescription, readStart: UInt64 = 0, demuxNanoseconds: UInt64 = 0
    ) {
        let copy = SampleBytes(copying: bytes)
        self.init(
            bytes: copy.bytes, storage: copy, index: index, pts: pts, duration: duration, format: format,
            readStart: readStart, demuxNanoseconds: demuxNanoseconds)
    }

    /// The same frame numbered as frame `index`, sharing these bytes and
    /// their owner (no copy): one short clip can feed a long session.
    public func renumbered(as index: Int, readStart: UInt64 = 0) -> CompressedSample {
        CompressedSample(
            bytes: bytes, storage: storage, index: index, pts: pts, duration: duration, format: format,
            readStart: readStart, demuxNanoseconds: 0)
    }
}

/// Heap bytes with the decoders' zero padding after them.
// @unchecked: immutable; the bytes are written once, before the value is shared.
public final class SampleBytes: @unchecked Sendable {
    public let bytes: UnsafeRawBufferPointer
    private let allocation: UnsafeMutableRawPointer

    public init(copying source: UnsafeRawBufferPointer) {
        allocation = .allocate(byteCount: source.count + CompressedSample.padding, alignment: 64)
        if let base = source.baseAddress { allocation.copyMemory(from: base, byteCount: source.count) }
        (allocation + source.count).initializeMemory(as: UInt8.self, repeating: 0, count: CompressedSample.padding)
        bytes = UnsafeRawBufferPointer(start: allocation, count: source.count)
    }

    deinit { allocation.deallocate() }
}
