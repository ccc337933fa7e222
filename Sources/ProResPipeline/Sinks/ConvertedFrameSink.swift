import Foundation
import GPUKit
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU

/// Where GPU-converted frames go: `--save DIR` as EXR or PNG.
public protocol ConvertedFrameSink: AnyObject {
    func consume(_ frame: ConvertedFrame) throws
    /// The run succeeded: make outputs final.
    func finish() throws
    /// The run was aborted: leave nothing behind.
    func abort()
    /// Whether the sink reads `pixels` on the host (else they are not read back).
    var readsPixels: Bool { get }
}

extension ConvertedFrameSink {
    public var readsPixels: Bool { true }
    public func finish() throws {}
    public func abort() {}
}

/// Writes `DIR/frame-NNNNNN.exr` (N = source frame index) or `.png` through
/// libavcodec's encoders.
///
/// All or nothing: the frames are written into a hidden staging directory
/// inside DIR (`.prores-decode-save.XXXXXX`) and moved into DIR only when
/// the run succeeds (`finish`); a run that fails or is interrupted removes
/// the staging directory (and DIR itself when this run created it and it is
/// empty). Without `overwrite` a frame is published with link + unlink, so
/// a file that appeared meanwhile is never replaced.
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

    /// DIR, byte-exact (PathBytes): every call below goes through its bytes.
    public let directory: String
    public let format: Format
    public let tags: ImageFileTags
    /// Replace frame files already in the directory (`-y`), as `-o` replaces its file.
    public let overwrite: Bool
    public private(set) var written = 0
    /// Where frames wait until the run succeeds; made with the first frame.
    private var staging: String?
    private var staged: [String] = []
    /// DIR did not exist before this run.
    private let createdDirectory: Bool

    /// `frames`: the source indices the run will save. Without `overwrite`, a
    /// frame file among them already in the directory fails here, before
    /// anything is decoded, rather than at that frame with half the
    /// directory rewritten.
    public init(
        directory: String, format: Format, tags: ImageFileTags = ImageFileTags(), overwrite: Bool,
        frames: Range<Int> = 0..<Int.max
    ) throws {
        self.directory = directory
        self.format = format
        self.tags = tags
        self.overwrite = overwrite
        var info = stat()
        createdDirectory = PathBytes.withCString(directory, { stat($0, &info) }) != 0
        if !createdDirectory {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw ProResDecodeError.output(path: directory, reason: "exists and is not a directory")
            }
            if !overwrite, let existing = try Self.existingFrameFile(in: directory, format: format, frames: frames) {
                throw ProResDecodeError.outputExists(path: Self.join(directory, existing))
            }
        } else if let failure = Directories.create(directory, made: TemporaryFiles.shared.registerMade) {
            throw ProResDecodeError.output(
                path: directory, reason: "cannot create the directory (\(String(cString: strerror(failure))))")
        }
    }

    /// The first (by name) `frame-NNNNNN.EXT` in `directory` whose index is in `frames`.
    static func existingFrameFile(in directory: String, format: Format, frames: Range<Int>) throws -> String? {
        guard let names = Directories.names(directory) else {
            throw ProResDecodeError.output(
                path: directory, reason: "cannot list the directory (\(String(cString: strerror(errno))))")
        }
        return names.sorted().first { name in frameIndex(name, format: format).map(frames.contains) ?? false }
    }

    /// Whether `name` is one a save of any frame in `format` writes.
    public static func isFrameFileName(_ name: String, format: Format) -> Bool {
        frameIndex(name, format: format) != nil
    }

    /// The source index a frame file's name says, nil for any other name.
    private static func frameIndex(_ name: String, format: Format) -> Int? {
        let suffix = "." + format.rawValue
        guard name.hasPrefix("frame-"), name.hasSuffix(suffix) else { return nil }
        let digits = name.dropFirst(6).dropLast(suffix.count)
        guard digits.count >= 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let index = Int(digits) else {
            return nil
        }
        return name == fileName(index: index, format: format) ? index : nil
    }

    public static func fileName(index: Int, format: Format) -> String {
        let digits = String(index)
        return "frame-" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits + "." + format.rawValue
    }

    public func consume(_ frame: ConvertedFrame) throws {
        precondition(
            frame.pixels.count == frame.width * frame.height * 8, "saving needs the converted pixels read back")
        let encoded = try encode(frame)
        let name = Self.fileName(index: frame.index, format: format)
        do {
            let file = try OutputFile(path: Self.join(try stagingDirectory(), name), overwrite: false)
            try encoded.withUnsafeBytes { try file.write([$0]) }
            try file.commit()
        } catch let ProResDecodeError.output(_, reason) {
            // Named as the user will look for it, not by the hidden staging directory.
            throw ProResDecodeError.output(path: Self.join(directory, name), reason: reason)
        }
        staged.append(name)
        written += 1
    }

    private func stagingDirectory() throws -> String {
        if let staging { return staging }
        var template =
            PathBytes.bytes(Self.join(directory, ".prores-decode-save.XXXXXX")).map { CChar(bitPattern: $0) } + [0]
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw ProResDecodeError.output(
                path: directory, reason: "cannot create a staging directory (\(String(cString: strerror(errno))))")
        }
        let path = PathBytes.string(cString: made)
        TemporaryFiles.shared.registerStaging(path)
        staging = path
        return path
    }

    private static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// Moves every staged frame into DIR; on a failure, takes back the ones
    /// already moved, so the directory holds all of this run's frames or none.
    public func finish() throws {
        guard let staging else { return removeCreatedDirectoryIfEmpty() }
        var published: [String] = []
        do {
            for name in staged {
                let from = Self.join(staging, name)
                let to = Self.join(directory, name)
                try Publish.publish(from, as: to, replacing: overwrite)
                published.append(to)
            }
        } catch {
            if !overwrite { published.forEach { path in _ = PathBytes.withCString(path) { unlink($0) } } }
            abort()
            throw error
        }
        removeStaging(staging)
    }

    public func abort() {
        if let staging { removeStaging(staging) }
        staging = nil
        staged = []
        removeCreatedDirectoryIfEmpty()
    }

    private func removeStaging(_ path: String) {
        Directories.removeFlat(path)
        TemporaryFiles.shared.unregisterStaging(path)
        staging = nil
    }

    private func removeCreatedDirectoryIfEmpty() {
        if createdDirectory, Directories.names(directory)?.isEmpty == true {
            _ = PathBytes.withCString(directory) { rmdir($0) }
        }
    }

    private func encode(_ frame: ConvertedFrame) throws -> [UInt8] {
        let isEXR = format == .exr
        let encoded = try StillImageEncoder.encode(
            isEXR ? .exrHalfGBRA : .pngRGBA64, width: frame.width, height: frame.height,
            errorPath: directory
        ) { planes in
            if isEXR { fillPlanarFloat(planes, frame) } else { fillPreview(planes[0], frame) }
        }
        return isEXR
            ? try tags.taggedEXR(encoded, frameIndex: frame.index, errorPath: directory)
            : try tags.taggedPNG(encoded, errorPath: directory)
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
    package static func toneMapped(_ rgb: [Double]) -> [Double] {
        let m = rgb.max() ?? 0
        guard m > 0.75 else { return rgb }
        let t = 0.75 + 0.25 * (1 - exp(-(m - 0.75) / 0.25))
        return rgb.map { $0 * t / m }
    }

    package static func srgbEncode(_ v: Double) -> Double {
        v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055
    }
}
