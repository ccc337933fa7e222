import Foundation
import Glibc

/// Writes a cache entry (`ShaderCompiler`'s SPIR-V, `PipelineCache`'s
/// driver builds) atomically: a temporary beside it, then a rename, so
/// another process reads either the old entry or the new one. A cache that
/// cannot be written is not an error, only a slower next run: false then.
func storeCacheFile(_ data: Data, at url: URL) -> Bool {
    try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    let temporary = url.appendingPathExtension("tmp-\(getpid())")
    guard (try? data.write(to: temporary)) != nil else { return false }
    guard rename(temporary.path, url.path) == 0 else {
        try? FileManager.default.removeItem(at: temporary)
        return false
    }
    return true
}
