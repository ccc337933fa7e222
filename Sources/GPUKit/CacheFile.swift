import Foundation
import Glibc
import HostSupport

/// A cache entry on disk (`ShaderCompiler`'s SPIR-V, `PipelineCache`'s
/// driver builds): the payload, then a trailer that vouches for it —
/// `PRDCACHE`, the BLAKE3 of what the entry was made from (the shader
/// source and compiler, or the device and driver build), and the BLAKE3 of
/// the payload. A file whose trailer is missing, names another identity or
/// does not match its payload is never used: it is noted once on stderr
/// (naming the file) and rebuilt.
enum CacheFile {
    private static let magic = Array("PRDCACHE".utf8)
    static let trailerBytes = 8 + 64 + 64

    static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
        Array(bytes).withUnsafeBytes { Array(BLAKE3.hash($0, parallel: false).hex.utf8) }
    }

    /// The payload, or nil (noted on stderr) when the file is absent, unreadable,
    /// larger than `maximumBytes`, or does not vouch for itself and `identity`.
    static func load(_ url: URL, identity: [UInt8], maximumBytes: Int) -> Data? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }  // not there yet: nothing to say
        guard info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) <= maximumBytes + trailerBytes else {
            note(url, "is not a regular file of at most \(maximumBytes) bytes")
            return nil
        }
        guard let file = try? Data(contentsOf: url) else {
            note(url, "cannot be read")
            return nil
        }
        guard file.count >= trailerBytes else {
            note(url, "is too short to be a cache entry")
            return nil
        }
        let payload = file.prefix(file.count - trailerBytes)
        let trailer = Array(file.suffix(trailerBytes))
        guard trailer.starts(with: magic) else {
            note(url, "has no cache trailer (damaged, or written by another version)")
            return nil
        }
        guard trailer[8..<72].elementsEqual(digest(identity)) else {
            note(url, "was made from another source, compiler, device or driver")
            return nil
        }
        guard trailer[72...].elementsEqual(digest(payload)) else {
            note(url, "does not match its checksum")
            return nil
        }
        return Data(payload)
    }

    /// Writes `payload` and its trailer atomically (a temporary beside it,
    /// then a rename, so another process reads the old entry or the new
    /// one). A cache that cannot be written is not an error, only a slower
    /// next run: false then.
    static func store(_ payload: Data, identity: [UInt8], at url: URL) -> Bool {
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = url.appendingPathExtension("tmp-\(getpid())")
        var file = payload
        file.append(contentsOf: magic + digest(identity) + digest(payload))
        guard (try? file.write(to: temporary)) != nil else { return false }
        guard rename(temporary.path, url.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            return false
        }
        return true
    }

    private static let noted = NotedFiles()

    /// One line per file and process, however many kernels find it wanting.
    private static func note(_ url: URL, _ why: String) {
        guard noted.insert(url.path) else { return }
        let line = TerminalText.escaped("prores-decode: note: cache file \(url.path) \(why); rebuilding it")
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// The cache files already noted in this process.
// @unchecked: `paths` is touched only under `lock`.
private final class NotedFiles: @unchecked Sendable {
    private let lock = NSLock()
    private var paths = Set<String>()

    /// True the first time `path` is given.
    func insert(_ path: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return paths.insert(path).inserted
    }
}
