import Foundation
import Glibc
import HostSupport
import ProResCore

/// What a run has made that must not outlive it unfinished, so an error
/// path or a signal (SIGINT/SIGTERM/SIGHUP) can take it all back:
/// temporary files, staging directories (with the files in them) and the
/// directories made for outputs (removed only while still empty).
public final class TemporaryFiles: @unchecked Sendable {
    // @unchecked: the lists are touched only under `lock`.
    public static let shared = TemporaryFiles()
    private let lock = NSLock()
    private var files: Set<String> = []
    private var stagingDirectories: Set<String> = []
    private var madeDirectories: [String] = []

    func register(_ path: String) { lock.withLock { _ = files.insert(path) } }
    func unregister(_ path: String) { lock.withLock { _ = files.remove(path) } }

    /// A directory of this run's own whose files are all temporary.
    package func registerStaging(_ path: String) { lock.withLock { _ = stagingDirectories.insert(path) } }
    package func unregisterStaging(_ path: String) { lock.withLock { _ = stagingDirectories.remove(path) } }

    /// A directory made for an output; outputs published in it keep it.
    public func registerMade(_ path: String) { lock.withLock { madeDirectories.append(path) } }

    /// Removes the made directories that are still empty, deepest first
    /// (an output that failed before publishing takes its folder back).
    public func removeEmptyMadeDirectories() {
        lock.withLock { Self.removeEmpty(madeDirectories) }
    }

    /// Unlinks every temporary and staging directory, then the made
    /// directories left empty (on an error or a signal).
    public func removeAll() {
        lock.lock()
        for path in files { _ = PathBytes.withCString(path) { unlink($0) } }
        for path in stagingDirectories { Directories.removeFlat(path) }
        Self.removeEmpty(madeDirectories)
        files.removeAll()
        stagingDirectories.removeAll()
        madeDirectories.removeAll()
        lock.unlock()
    }

    private static func removeEmpty(_ directories: [String]) {
        // mkdir -p makes parents first: the reverse order empties children first.
        for path in directories.reversed() { _ = PathBytes.withCString(path) { rmdir($0) } }
    }
}
