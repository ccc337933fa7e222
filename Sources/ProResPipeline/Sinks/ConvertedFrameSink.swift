import ProResCore
import ProResFFmpeg
import ProResGPU
import Foundation
import GPUKit

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
/// `chromaticities`, so `ImageFileTags` adds it to the header, with
/// `pixelAspectRatio`, `framesPerSecond`, `timeCode` and `whiteLuminance`.
///
/// PNG: a 16-bit RGBA preview in Display P3 with the sRGB curve, said by
/// cICP and iCCP chunks, pixel shape by pHYs (`ImageFileTags`). Values above
/// 1.0 are tone-mapped: the largest channel m of a pixel is mapped by
/// t(m) = m for m ≤ 0.75, else 0.75 + 0.25·(1 − e^(−(m − 0.75)/0.25)) (smooth,
/// approaches 1), and all three channels are scaled by t(m)/m so hue is kept.
/// Negative (out-of-gamut) values are clipped to 0 for the preview only.
public final class FrameSaver: ConvertedFrameSink {
    public enum Format: String, CaseIterable, Sendable { case exr, png }

    public let directory: URL
    public let format: Format
    public let tags: ImageFileTags
    /// Replace frame files already in the directory (`-y`), as `-o` replaces its file.
    public let overwrite: Bool
    public private(set) var written = 0

    /// `frames`: the source indices the run will save. Without `overwrite`, a
    /// frame file among them already in the directory fails here, before
    /// anything is decoded, rather than at that frame with half the
    /// directory rewritten.
    public init(directory: String, format: Format, tags: ImageFileTags = ImageFileTags(), overwrite: Bool,
                frames: Range<Int> = 0..<Int.max) throws {
        self.directory = URL(fileURLWithPath: directory)
        self.format = format
        self.tags = tags
        self.overwrite = overwrite
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw ProResDecodeError.output(path: directory, reason: "exists and is not a directory") }
            if !overwrite, let existing = try Self.existingFrameFile(in: directory, format: format, frames: frames) {
                throw ProResDecodeError.outputExists(path: self.directory.appendingPathComponent(existing).path)
            }
        } else {
            do { try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true) } catch {
                throw ProResDecodeError.output(path: directory, reason: "cannot create the directory (\(error.localizedDescription))")
            }
        }
    }

    /// The first (by name) `frame-NNNNNN.EXT` in `directory` whose index is in `frames`.
    static func existingFrameFile(in directory: String, format: Format, frames: Range<Int>) throws -> String? {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory) } catch {
            throw ProResDecodeError.output(path: directory, reason: "cannot list the directory (\(error.localizedDescription))")
        }
        let suffix = "." + format.rawValue
        return names.sorted().first { name in
            guard name.hasPrefix("frame-"), name.hasSuffix(suffix) else { return false }
            let digits = name.dropFirst(6).dropLast(suffix.count)
            guard digits.count >= 6, digits.allSatisfy(\.isASCII), let index = Int(digits) else { return false }
            return frames.contains(index) && name == fileName(index: index, format: format)
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
        // Checked again here: a file may have appeared since the directory was listed.
        let file = try OutputFile(path: path, overwrite: overwrite)
        try encoded.withUnsafeBytes { try file.write([$0]) }
        try file.commit()
        written += 1
    }

    private func encode(_ frame: ConvertedFrame) throws -> [UInt8] {
        let isEXR = format == .exr
        let encoded = try StillImageEncoder.encode(isEXR ? .exrHalfGBRA : .pngRGBA64, width: frame.width, height: frame.height,
                                                   errorPath: directory.path) { planes in
            if isEXR { fillPlanarFloat(planes, frame) } else { fillPreview(planes[0], frame) }
        }
        return isEXR ? try tags.taggedEXR(encoded, frameIndex: frame.index, errorPath: directory.path)
            : try tags.taggedPNG(encoded, errorPath: directory.path)
    }

    /// GBRA float32 planes (FFmpeg's planar order: G, B, R, A).
    private func fillPlanarFloat(_ planes: [StillImageEncoder.Plane], _ frame: ConvertedFrame) {
        let channels = [1, 2, 0, 3]  // plane → source channel
        for (plane, channel) in zip(planes, channels) {
            for y in 0..<frame.height {
                let row = (plane.base + y * plane.bytesPerRow).assumingMemoryBound(to: Float.self)
                for x in 0..<frame.width { row[x] = frame.value(x: x, y: y, channel: channel) }
            }
        }
    }

    /// 16-bit big-endian RGBA, tone-mapped and sRGB-encoded.
    private func fillPreview(_ plane: StillImageEncoder.Plane, _ frame: ConvertedFrame) {
        for y in 0..<frame.height {
            let row = (plane.base + y * plane.bytesPerRow).assumingMemoryBound(to: UInt8.self)
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
