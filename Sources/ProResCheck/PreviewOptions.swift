import Foundation
import GPUKit
import Glibc
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU
import ProResPipeline

/// `check --previews DIR`: for every file that was read, a contact sheet and
/// one full frame as 16-bit PNGs, made through the GPU conversion (see
/// `FilePreviews` for which frames, `PreviewRenderer` for how they look).
///
/// Why a separate options value: previews are the one part of a check that
/// needs Vulkan, and nothing of them may change a file's verdict; keeping
/// them apart keeps `check` without `--previews` exactly as it was.
public struct PreviewOptions: Sendable {
    /// Where the PNGs go; created if missing.
    public var directory: String
    /// Frames on the contact sheet (`--preview-frames K`).
    public var frames: Int
    /// Thumbnail width in pixels; a narrower picture keeps its own width
    /// (thumbnails are never enlarged).
    public var thumbnailWidth: Int
    /// Thumbnails per row of the contact sheet.
    public var columns: Int
    /// The conversion: device, reference white for PQ and HLG.
    public var gpu: DecodeRun.GPUOptions
    /// Where this run's PNGs wait (a hidden directory inside `directory`,
    /// made by `stage()`) until `publishStaged()` moves them into place: an
    /// interrupted or failed check leaves no previews of its own behind.
    public private(set) var staging: String?

    public static let defaultFrames = 6
    public static let framesRange = 1...100

    public init(
        directory: String, frames: Int = PreviewOptions.defaultFrames, thumbnailWidth: Int = 320, columns: Int = 3,
        gpu: DecodeRun.GPUOptions = .init()
    ) {
        self.directory = directory
        self.frames = frames
        self.thumbnailWidth = thumbnailWidth
        self.columns = columns
        self.gpu = gpu
    }

    /// A file's key with every '/' replaced by '__': `good/hq.mov` → `good__hq.mov`.
    /// A name that would not fit NAME_MAX (255 bytes) with `.sheet.png`
    /// after it (a long key, or a long path flattened) keeps its first bytes
    /// and ends in `~` and 16 hex digits of the whole name's SHA-256, so
    /// every file still gets previews, each pair its own.
    public static func baseName(key: String) -> String {
        let flat = key.replacingOccurrences(of: "/", with: "__")
        let bytes = PathBytes.bytes(flat)
        guard bytes.count > maximumBaseBytes else { return flat }
        let digest = "~" + SHA256.hex(of: bytes).prefix(16)
        return PathBytes.string(bytes.prefix(maximumBaseBytes - digest.utf8.count)) + digest
    }

    /// NAME_MAX less the longest suffix (`.sheet.png`, `.frame.png`).
    static let maximumBaseBytes = 255 - ".sheet.png".utf8.count

    public func sheetPath(key: String) -> String { path(Self.baseName(key: key) + ".sheet.png") }
    public func framePath(key: String) -> String { path(Self.baseName(key: key) + ".frame.png") }

    /// Where a preview is written during the run: in the staging
    /// directory when there is one, else at its final path.
    public func writePath(_ path: String) -> String {
        guard let staging, let slash = path.lastIndex(of: "/") else { return path }
        return staging + path[slash...]
    }

    /// Makes the staging directory (inside `directory`, so publishing is a
    /// rename on one file system); `TemporaryFiles` removes it on a signal.
    public mutating func stage() throws {
        var template = PathBytes.bytes(path(Publish.temporaryPrefix + "XXXXXX")).map { CChar(bitPattern: $0) } + [0]
        guard
            let made = template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.flatMap { mkdtemp($0) } })
        else {
            throw ProResDecodeError.previewDirectory(
                path: directory, reason: "cannot create a staging directory (\(String(cString: strerror(errno))))")
        }
        let staged = PathBytes.string(cString: made)
        TemporaryFiles.shared.registerStaging(staged)
        staging = staged
    }

    /// Moves every staged PNG into `directory`, replacing previews of the
    /// same files from earlier runs, and removes the staging directory.
    public func publishStaged() throws {
        guard let staging else { return }
        defer {
            Directories.removeFlat(staging)
            TemporaryFiles.shared.unregisterStaging(staging)
        }
        for name in (Directories.names(staging) ?? []).sorted() where !name.hasPrefix(Publish.temporaryPrefix) {
            try Publish.publish(staging + "/" + name, as: path(name), replacing: true)
        }
    }

    private func path(_ name: String) -> String {
        var directory = directory
        while directory.count > 1, directory.hasSuffix("/") { directory.removeLast() }
        return directory == "/" ? "/" + name : directory + "/" + name
    }

    /// Makes sure `directory` is a directory we can write into, creating it
    /// (and its parents) if missing: a bad DIR fails before anything is checked.
    public static func prepare(directory: String) throws {
        var info = stat()
        if PathBytes.withCString(directory, { stat($0, &info) }) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw ProResDecodeError.previewDirectory(path: directory, reason: "exists and is not a directory")
            }
        } else {
            if let failure = Directories.create(directory, made: TemporaryFiles.shared.registerMade) {
                throw ProResDecodeError.previewDirectory(
                    path: directory, reason: "cannot create the directory (\(String(cString: strerror(failure))))")
            }
        }
        guard PathBytes.withCString(directory, { access($0, W_OK | X_OK) }) == 0 else {
            throw ProResDecodeError.previewDirectory(path: directory, reason: String(cString: strerror(errno)))
        }
    }
}

/// What `--previews` made of one file.
public enum PreviewOutcome: Equatable, Sendable {
    /// The file could not be checked (status `error`): nothing to show.
    case skipped
    /// Both PNGs written; `sheetFrames` are the source frame indices on the
    /// sheet in reading order, `damagedFrames` those of them shown marked
    /// (concealed), `fullFrame` the one shown at full size.
    case written(sheet: String, frame: String, sheetFrames: [Int], damagedFrames: [Int], fullFrame: Int)
    /// No previews, and why (no Vulkan device, a write error, ...). The
    /// file's verdict is the same as without `--previews`.
    case failed(String)

    /// `null`, `{"sheet":…,"frame":…,"sheet_frames":[…],"sheet_damaged":[…],"frame_index":N}` or `{"error":…}`.
    public var json: String {
        switch self {
        case .skipped:
            return "null"
        case .written(let sheet, let frame, let sheetFrames, let damagedFrames, let fullFrame):
            return JSON.object([
                ("sheet", JSON.string(PathBytes.reportText(sheet))),
                ("frame", JSON.string(PathBytes.reportText(frame))),
                ("sheet_frames", JSON.array(sheetFrames.map(String.init))),
                ("sheet_damaged", JSON.array(damagedFrames.map(String.init))), ("frame_index", "\(fullFrame)"),
            ])
        case .failed(let reason):
            return JSON.object([("error", JSON.string(reason))])
        }
    }
}
