import CFFmpeg
import Foundation
import ProResCore

/// FFmpeg's `get_buffer2`: the decoder writes straight into pooled surfaces,
/// so a decoded picture never needs copying out of FFmpeg's own buffers.
/// Called from FFmpeg's worker threads, hence the lock.
// @unchecked: its pool and counts are touched only under its lock (FFmpeg's threads call it).
final class DecoderSurfaceAllocator: @unchecked Sendable {
    private let lock = NSLock()
    private var pools: [SurfaceLayout: PixelBufferPool] = [:]
    /// Pre-fill every surface with neutral values (video black, neutral
    /// chroma, opaque alpha), so slices the decoder cannot decode come out
    /// the same on every run instead of as whatever the buffer held before.
    private let fillsSurfaces: Bool

    init(fillsSurfaces: Bool = false) {
        self.fillsSurfaces = fillsSurfaces
    }

    /// Opens FFmpeg's ProRes decoder for `format`, decoding into this
    /// allocator's surfaces with `threads` frame/slice threads (slice
    /// threads only with `slicesOnly`).
    func openDecoder(for format: FormatDescription, threads: Int, slicesOnly: Bool = false) throws
        -> UnsafeMutablePointer<AVCodecContext>
    {
        FFmpegLog.install()
        guard let decoder = avcodec_find_decoder(AV_CODEC_ID_PRORES) else {
            throw ProResDecodeError.decoderUnavailable("this FFmpeg has no ProRes decoder")
        }
        guard let codec = avcodec_alloc_context3(decoder) else {
            throw ProResDecodeError.decoderUnavailable("out of memory")
        }
        codec.pointee.codec_tag = format.codecTag
        codec.pointee.width = Int32(format.width)
        codec.pointee.height = Int32(format.height)
        codec.pointee.thread_count = Int32(threads)
        codec.pointee.thread_type = slicesOnly ? FF_THREAD_SLICE : FF_THREAD_FRAME | FF_THREAD_SLICE
        install(on: codec)
        let status = avcodec_open2(codec, decoder, nil)
        guard status >= 0 else {
            var failed: UnsafeMutablePointer<AVCodecContext>? = codec
            avcodec_free_context(&failed)
            throw ProResDecodeError.decoderUnavailable("cannot open FFmpeg's ProRes decoder: \(FFmpegError(status))")
        }
        return codec
    }

    /// Wires this allocator into a codec context before it is opened.
    private func install(on context: UnsafeMutablePointer<AVCodecContext>) {
        context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        pd_mark_callbacks_thread_safe(context)
        context.pointee.get_buffer2 = { context, frame, _ in
            guard let context, let frame, let opaque = context.pointee.opaque else { return PD_AVERROR_INVALIDDATA }
            let allocator = Unmanaged<DecoderSurfaceAllocator>.fromOpaque(opaque).takeUnretainedValue()
            return allocator.attachSurface(to: frame, context: context)
        }
    }

    var statistics: PixelBufferPool.Statistics {
        lock.lock()
        defer { lock.unlock() }
        return pools.values.reduce(PixelBufferPool.Statistics(allocated: 0, vended: 0, peakInUse: 0)) {
            let s = $1.statistics
            return .init(
                allocated: $0.allocated + s.allocated, vended: $0.vended + s.vended,
                peakInUse: max($0.peakInUse, s.peakInUse))
        }
    }

    private func pool(for layout: SurfaceLayout) -> PixelBufferPool {
        lock.lock()
        defer { lock.unlock() }
        if let pool = pools[layout] { return pool }
        let pool = PixelBufferPool(layout: layout)
        pools[layout] = pool
        return pool
    }

    private func attachSurface(to frame: UnsafeMutablePointer<AVFrame>, context: UnsafeMutablePointer<AVCodecContext>)
        -> Int32
    {
        let f = frame.pointee
        guard let format = PlanarFormat(avPixelFormat: AVPixelFormat(rawValue: f.format)) else {
            return PD_AVERROR_INVALIDDATA
        }
        var width = f.width
        var height = f.height
        var alignments = [Int32](repeating: 0, count: Int(AV_NUM_DATA_POINTERS))
        avcodec_align_dimensions2(context, &width, &height, &alignments)
        let rowAlignment = max(64, Int(alignments.max() ?? 0))
        let layout = SurfaceLayout.planar(
            format, width: Int(f.width), height: Int(f.height),
            paddedWidth: Int(width), paddedHeight: Int(height), rowAlignment: rowAlignment)
        let buffer: PixelBuffer
        do { buffer = try pool(for: layout).makeBuffer() } catch { return PD_AVERROR_ENOMEM }
        if fillsSurfaces { Self.fillNeutral(buffer, format) }
        let opaque = Unmanaged.passUnretained(buffer).toOpaque()
        guard
            let reference = av_buffer_create(
                buffer.baseAddress.assumingMemoryBound(to: UInt8.self), layout.byteCount,
                { opaque, _ in
                    Unmanaged<PixelBuffer>.fromOpaque(opaque!).takeUnretainedValue().releaseUse()
                }, opaque, 0)
        else {
            buffer.releaseUse()
            return PD_AVERROR_ENOMEM
        }
        frame.pointee.buf.0 = reference
        withUnsafeMutablePointer(to: &frame.pointee.data) { tuple in
            tuple.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: Int(AV_NUM_DATA_POINTERS)) {
                data in
                for i in 0..<Int(AV_NUM_DATA_POINTERS) {
                    data[i] = i < layout.planes.count ? buffer.plane(i).assumingMemoryBound(to: UInt8.self) : nil
                }
                frame.pointee.extended_data = data
            }
        }
        withUnsafeMutablePointer(to: &frame.pointee.linesize) { tuple in
            tuple.withMemoryRebound(to: Int32.self, capacity: Int(AV_NUM_DATA_POINTERS)) { lines in
                for i in 0..<Int(AV_NUM_DATA_POINTERS) {
                    lines[i] = i < layout.planes.count ? Int32(layout.planes[i].bytesPerRow) : 0
                }
            }
        }
        return 0
    }

    private static func fillNeutral(_ buffer: PixelBuffer, _ format: PlanarFormat) {
        let depth = format.bitDepth
        let values: [UInt16] = [
            UInt16(16 << (depth - 8)), UInt16(1 << (depth - 1)), UInt16(1 << (depth - 1)), UInt16((1 << depth) - 1),
        ]
        for (index, plane) in buffer.layout.planes.enumerated() {
            let samples = plane.bytesPerRow * plane.allocatedRows / 2
            buffer.plane(index).assumingMemoryBound(to: UInt16.self).update(repeating: values[index], count: samples)
        }
    }

    /// The surface behind a frame this allocator filled.
    static func surface(of frame: UnsafeMutablePointer<AVFrame>) -> PixelBuffer? {
        guard let reference = frame.pointee.buf.0, let opaque = av_buffer_get_opaque(reference) else { return nil }
        return Unmanaged<PixelBuffer>.fromOpaque(opaque).takeUnretainedValue()
    }
}
