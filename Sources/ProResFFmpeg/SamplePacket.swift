import CFFmpeg
import HostSupport
import ProResCore

/// An AVPacket owned by a `CompressedSample` (the demuxer's packet, no copy).
final class PacketStorage: @unchecked Sendable {
    // @unchecked: the packet is only read after the sample is made.
    let packet: UnsafeMutablePointer<AVPacket>
    init(_ packet: UnsafeMutablePointer<AVPacket>) { self.packet = packet }
    deinit { freePacket(packet) }
}

extension CompressedSample {
    /// Takes ownership of `packet` (its bytes carry FFmpeg's padding).
    public convenience init(
        packet: UnsafeMutablePointer<AVPacket>, index: Int, format: FormatDescription,
        readStart: UInt64, demuxNanoseconds: UInt64
    ) {
        let pts = packet.pointee.pts != PD_AV_NOPTS_VALUE ? packet.pointee.pts : packet.pointee.dts
        self.init(
            bytes: UnsafeRawBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)),
            storage: PacketStorage(packet), index: index, pts: pts != PD_AV_NOPTS_VALUE ? pts : nil,
            duration: packet.pointee.duration, format: format, readStart: readStart, demuxNanoseconds: demuxNanoseconds)
    }

    /// The demuxer's packet, when the sample came from one.
    public var packet: UnsafeMutablePointer<AVPacket>? { (storage as? PacketStorage)?.packet }
}

/// Hands samples to libavcodec: a new reference to the demuxer's packet
/// when there is one, else a packet around the sample's own bytes that keeps
/// the sample alive until the decoder lets go of it. `pts` carries the
/// sample's index through the decoder's reordering.
final class SamplePacket {
    private var scratch: UnsafeMutablePointer<AVPacket>? = av_packet_alloc()

    deinit { av_packet_free(&scratch) }

    func with<T>(_ sample: CompressedSample, _ body: (UnsafeMutablePointer<AVPacket>) -> T) -> T? {
        guard let packet = scratch else { return nil }
        defer { av_packet_unref(packet) }
        if let source = sample.packet {
            guard av_packet_ref(packet, source) >= 0 else { return nil }
        } else {
            let data = UnsafeMutablePointer(mutating: sample.bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
            guard
                let buffer = makeBuffer(
                    data, bytes: sample.bytes.count + CompressedSample.padding, keeping: sample,
                    flags: Int32(AV_BUFFER_FLAG_READONLY))
            else { return nil }
            packet.pointee.buf = buffer
            packet.pointee.data = data
            packet.pointee.size = Int32(sample.bytes.count)
        }
        packet.pointee.pts = Int64(sample.index)
        return body(packet)
    }
}

/// An AVBuffer over `data` that holds `owner` (which keeps the bytes alive)
/// until libav* frees the buffer; nil when it cannot be made.
func makeBuffer(
    _ data: UnsafeMutablePointer<UInt8>?, bytes: Int, keeping owner: AnyObject,
    flags: Int32 = 0
) -> UnsafeMutablePointer<AVBufferRef>? {
    let retained = Unmanaged.passRetained(owner).toOpaque()
    guard
        let buffer = av_buffer_create(
            data, bytes, { opaque, _ in Unmanaged<AnyObject>.fromOpaque(opaque!).release() },
            retained, flags)
    else {
        Unmanaged<AnyObject>.fromOpaque(retained).release()
        return nil
    }
    return buffer
}

func freePacket(_ packet: UnsafeMutablePointer<AVPacket>) {
    var p: UnsafeMutablePointer<AVPacket>? = packet
    av_packet_free(&p)
}
