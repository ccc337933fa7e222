import CFFmpeg
import Foundation

@testable import TestSupport

/// libavcodec's own ProRes decoder, used only to check the kernel tests'
/// CPU references (encoder + IDCT reference) against FFmpeg itself, so that
/// the references are not merely consistent with the shaders.
enum FFmpegProRes {
    struct Decoded {
        /// Y', Cb, Cr (and alpha) rows of the visible picture.
        var planes: [[UInt16]]
        var planeWidths: [Int]
        var decodeErrorFlags: Int32
    }

    /// `av_force_cpu_flags` (libavutil/cpu.h, which the shim does not include).
    private static let forceCPUFlags: (@convention(c) (Int32) -> Void)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "av_force_cpu_flags") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Void).self)
    }()

    /// Decodes one frame single-threaded. `plainC`: with FFmpeg's SIMD turned
    /// off while the decoder is set up (its DSP functions are chosen then),
    /// so that the C code the GPU passes follow is what runs.
    static func decode(
        _ bytes: [UInt8], width: Int, height: Int, chroma444: Bool, depth: Int, alpha: Bool,
        plainC: Bool
    ) throws -> Decoded {
        guard let codec = avcodec_find_decoder(AV_CODEC_ID_PRORES) else {
            throw ReferenceError("no ProRes decoder in libavcodec")
        }
        var context = avcodec_alloc_context3(codec)
        defer { avcodec_free_context(&context) }
        guard let context else { throw ReferenceError("avcodec_alloc_context3") }
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        // The FourCC selects the precision: 4444 profiles decode at 12 bits, the others at 10.
        context.pointee.codec_tag = depth == 12 ? pd_mktag(0x61, 0x70, 0x34, 0x68) : pd_mktag(0x61, 0x70, 0x63, 0x68)
        context.pointee.thread_count = 1
        if plainC {
            guard let force = forceCPUFlags else { throw ReferenceError("av_force_cpu_flags not found") }
            force(0)
        }
        let opened = avcodec_open2(context, codec, nil)
        if plainC { forceCPUFlags?(-1) }
        guard opened >= 0 else { throw ReferenceError("avcodec_open2: \(opened)") }

        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        var frame = av_frame_alloc()
        defer { av_frame_free(&frame) }
        guard let packet, let frame else { throw ReferenceError("out of memory") }
        guard av_new_packet(packet, Int32(bytes.count)) >= 0 else { throw ReferenceError("av_new_packet") }
        bytes.withUnsafeBytes {
            packet.pointee.data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: bytes.count)
        }
        let sent = avcodec_send_packet(context, packet)
        guard sent >= 0 else { throw ReferenceError("avcodec_send_packet: \(sent)") }
        let received = avcodec_receive_frame(context, frame)
        guard received >= 0 else { throw ReferenceError("avcodec_receive_frame: \(received)") }

        let chromaWidth = chroma444 ? width : (width + 1) / 2
        let widths = [width, chromaWidth, chromaWidth] + (alpha ? [width] : [])
        let data = [frame.pointee.data.0, frame.pointee.data.1, frame.pointee.data.2, frame.pointee.data.3]
        let linesize = [
            frame.pointee.linesize.0, frame.pointee.linesize.1, frame.pointee.linesize.2, frame.pointee.linesize.3,
        ]
        var planes: [[UInt16]] = []
        for (p, planeWidth) in widths.enumerated() {
            guard let base = data[p] else {
                throw ReferenceError("plane \(p) missing (pixel format \(frame.pointee.format))")
            }
            var plane: [UInt16] = []
            plane.reserveCapacity(planeWidth * height)
            for row in 0..<height {
                let pointer = UnsafeRawPointer(base + row * Int(linesize[p])).assumingMemoryBound(to: UInt16.self)
                plane += UnsafeBufferPointer(start: pointer, count: planeWidth)
            }
            planes.append(plane)
        }
        return Decoded(planes: planes, planeWidths: widths, decodeErrorFlags: frame.pointee.decode_error_flags)
    }

    struct ReferenceError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
