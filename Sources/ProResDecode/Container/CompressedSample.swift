import CFFmpeg

/// One compressed ProRes frame (CMSampleBuffer). It owns a reference to the
/// demuxer's packet, never a copy of its bytes.
public final class CompressedSample: @unchecked Sendable {
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

    let packet: UnsafeMutablePointer<AVPacket>

    /// Takes ownership of `packet`.
    init(packet: UnsafeMutablePointer<AVPacket>, index: Int, format: FormatDescription,
         readStart: UInt64, demuxNanoseconds: UInt64) {
        self.packet = packet
        self.index = index
        let pts = packet.pointee.pts != PD_AV_NOPTS_VALUE ? packet.pointee.pts : packet.pointee.dts
        self.pts = pts != PD_AV_NOPTS_VALUE ? pts : nil
        self.duration = packet.pointee.duration
        self.format = format
        self.readStart = readStart
        self.demuxNanoseconds = demuxNanoseconds
    }

    deinit { freePacket(packet) }

    /// The compressed bytes, borrowed from the packet.
    public var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size))
    }
}
