import CFFmpeg
import Foundation

/// Where GPU-converted frames go: `--save DIR` as EXR or PNG.
public protocol ConvertedFrameSink: AnyObject {
    func consume(_ frame: ConvertedFrame) throws
}

/// Writes `DIR/frame-NNNNNN.exr` (N = source frame index) or `.png` through
/// libavcodec's encoders, each under a temporary name renamed when complete.
///
/// EXR: channels R, G, B, A as half floats, linear Display P3, straight
/// alpha, ZIP16-compressed — exactly the values the GPU produced (half →
/// float → half is lossless). FFmpeg 5.1's EXR encoder writes no
/// `chromaticities` attribute, so readers must be told the primaries are P3-D65.
///
/// PNG: a 16-bit RGBA preview in Display P3 with the sRGB curve. Values above
/// 1.0 are tone-mapped: the largest channel m of a pixel is mapped by
/// t(m) = m for m ≤ 0.75, else 0.75 + 0.25·(1 − e^(−(m − 0.75)/0.25)) (smooth,
/// approaches 1), and all three channels are scaled by t(m)/m so hue is kept.
/// Negative (out-of-gamut) values are clipped to 0 for the preview only.
public final class FrameSaver: ConvertedFrameSink {
    public enum Format: String, CaseIterable, Sendable { case exr, png }

    public let directory: URL
    public let format: Format
    public private(set) var written = 0

    public init(directory: String, format: Format) throws {
        self.directory = URL(fileURLWithPath: directory)
        self.format = format
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw ProResDecodeError.output(path: directory, reason: "exists and is not a directory") }
        } else {
            do { try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true) } catch {
                throw ProResDecodeError.output(path: directory, reason: "cannot create the directory (\(error.localizedDescription))")
            }
        }
    }

    public static func fileName(index: Int, format: Format) -> String {
        let digits = String(index)
        return "frame-" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits + "." + format.rawValue
    }

    public func consume(_ frame: ConvertedFrame) throws {
        precondition(frame.pixels.count == frame.width * frame.height * 8, "saving needs the converted pixels read back")
        let encoded = try encode(frame)
        let path = directory.appendingPathComponent(Self.fileName(index: frame.index, format: format)).path
        let file = try OutputFile(path: path, overwrite: true)
        try encoded.withUnsafeBytes { try file.write([$0]) }
        try file.commit()
        written += 1
    }

    private func encode(_ frame: ConvertedFrame) throws -> [UInt8] {
        let isEXR = format == .exr
        return try StillImageEncoder.encode(codec: isEXR ? AV_CODEC_ID_EXR : AV_CODEC_ID_PNG, name: format.rawValue,
                                            pixelFormat: isEXR ? AV_PIX_FMT_GBRAPF32LE : AV_PIX_FMT_RGBA64BE,
                                            width: frame.width, height: frame.height,
                                            options: isEXR ? [("format", "half"), ("compression", "zip16")] : [],
                                            errorPath: directory.path) { picture in
            if isEXR { fillPlanarFloat(picture, frame) } else { fillPreview(picture, frame) }
        }
    }

    /// GBRA float32 planes (FFmpeg's planar order: G, B, R, A).
    private func fillPlanarFloat(_ picture: UnsafeMutablePointer<AVFrame>, _ frame: ConvertedFrame) {
        let planes = [1, 2, 0, 3]  // plane → source channel
        withUnsafePointer(to: picture.pointee.data) { dataTuple in
            dataTuple.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 4) { data in
                for (plane, channel) in planes.enumerated() {
                    let stride = Int(withUnsafeBytes(of: picture.pointee.linesize) { $0.load(fromByteOffset: plane * 4, as: Int32.self) })
                    for y in 0..<frame.height {
                        let row = UnsafeMutableRawPointer(data[plane]! + y * stride).assumingMemoryBound(to: Float.self)
                        for x in 0..<frame.width { row[x] = frame.value(x: x, y: y, channel: channel) }
                    }
                }
            }
        }
    }

    /// 16-bit big-endian RGBA, tone-mapped and sRGB-encoded.
    private func fillPreview(_ picture: UnsafeMutablePointer<AVFrame>, _ frame: ConvertedFrame) {
        let stride = Int(picture.pointee.linesize.0)
        let base = picture.pointee.data.0!
        for y in 0..<frame.height {
            let row = base + y * stride
            for x in 0..<frame.width {
                let rgb = (0..<3).map { max(0, Double(frame.value(x: x, y: y, channel: $0))) }
                let mapped = Self.toneMapped(rgb)
                let alpha = min(max(Double(frame.value(x: x, y: y, channel: 3)), 0), 1)
                for (c, value) in (mapped.map(Self.srgbEncode) + [alpha]).enumerated() {
                    let code = UInt16((min(max(value, 0), 1) * 65535).rounded())
                    row[(x * 4 + c) * 2] = UInt8(code >> 8)
                    row[(x * 4 + c) * 2 + 1] = UInt8(code & 0xFF)
                }
            }
        }
    }

    /// The documented highlight roll-off (see the type's comment).
    static func toneMapped(_ rgb: [Double]) -> [Double] {
        let m = rgb.max() ?? 0
        guard m > 0.75 else { return rgb }
        let t = 0.75 + 0.25 * (1 - exp(-(m - 0.75) / 0.25))
        return rgb.map { $0 * t / m }
    }

    static func srgbEncode(_ v: Double) -> Double {
        v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055
    }
}

/// One picture through a libavcodec image encoder (PNG, EXR), returned as the
/// encoded file's bytes. Shared by `FrameSaver` and `check --previews`.
enum StillImageEncoder {
    /// `fill` writes the pixels into a frame of `pixelFormat` allocated by
    /// libavutil (rows `linesize` apart). Errors name `errorPath`.
    static func encode(codec id: AVCodecID, name: String, pixelFormat: AVPixelFormat, width: Int, height: Int,
                       options pairs: [(String, String)] = [], errorPath: String,
                       fill: (UnsafeMutablePointer<AVFrame>) -> Void) throws -> [UInt8] {
        guard let codec = avcodec_find_encoder(id) else {
            throw ProResDecodeError.output(path: errorPath, reason: "this FFmpeg has no \(name) encoder")
        }
        var context = avcodec_alloc_context3(codec)
        defer { avcodec_free_context(&context) }
        guard let context else { throw ProResDecodeError.output(path: errorPath, reason: "out of memory") }
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.time_base = AVRational(num: 1, den: 25)
        context.pointee.pix_fmt = pixelFormat
        var options: OpaquePointer?
        for (key, value) in pairs { av_dict_set(&options, key, value, 0) }
        defer { av_dict_free(&options) }
        var status = avcodec_open2(context, codec, &options)
        guard status >= 0 else { throw ProResDecodeError.output(path: errorPath, reason: "cannot open the \(name) encoder: \(FFmpegError(status))") }
        var picture = av_frame_alloc()
        defer { av_frame_free(&picture) }
        guard let picture else { throw ProResDecodeError.output(path: errorPath, reason: "out of memory") }
        picture.pointee.width = Int32(width)
        picture.pointee.height = Int32(height)
        picture.pointee.format = pixelFormat.rawValue
        guard av_frame_get_buffer(picture, 0) >= 0 else { throw ProResDecodeError.output(path: errorPath, reason: "out of memory") }
        fill(picture)
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        status = avcodec_send_frame(context, picture)
        if status >= 0 { status = avcodec_send_frame(context, nil) }
        if status >= 0 { status = avcodec_receive_packet(context, packet) }
        guard status >= 0, let packet else {
            throw ProResDecodeError.output(path: errorPath, reason: "\(name) encoding failed: \(FFmpegError(status))")
        }
        return Array(UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
    }

    /// A 16-bit PNG (RGB48BE for 3 channels, RGBA64BE for 4) from samples
    /// interleaved per pixel, row after row with no padding.
    static func png16(_ samples: [UInt16], width: Int, height: Int, channels: Int, errorPath: String) throws -> [UInt8] {
        precondition((channels == 3 || channels == 4) && samples.count == width * height * channels)
        return try encode(codec: AV_CODEC_ID_PNG, name: "png", pixelFormat: channels == 3 ? AV_PIX_FMT_RGB48BE : AV_PIX_FMT_RGBA64BE,
                          width: width, height: height, errorPath: errorPath) { picture in
            let stride = Int(picture.pointee.linesize.0)
            let base = picture.pointee.data.0!
            let rowSamples = width * channels
            samples.withUnsafeBufferPointer { source in
                for y in 0..<height {
                    let row = base + y * stride
                    for i in 0..<rowSamples {
                        let code = source[y * rowSamples + i]
                        row[2 * i] = UInt8(code >> 8)
                        row[2 * i + 1] = UInt8(code & 0xFF)
                    }
                }
            }
        }
    }
}
