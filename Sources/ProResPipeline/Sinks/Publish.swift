import Glibc
import HostSupport
import ProResCore

/// The one way an output gets its name: written whole under a temporary
/// name in the same directory, then published in one step. Not replacing
/// (`-n`, the default), the step is `renameat2(RENAME_NOREPLACE)`, or
/// `link` + `unlink` where the file system lacks it: both fail with EEXIST
/// when the name appeared meanwhile, so of two runs racing for one name
/// exactly one wins and the other's bytes never land. Replacing (`-y`), it
/// is `rename`, which swaps the old file for the new one atomically.
public enum Publish {
    /// Temporary names are short (`.pd-` and six random characters): a
    /// name that is itself NAME_MAX (255) bytes long still fits beside it.
    public static let temporaryPrefix = ".pd-"

    /// A new, empty file beside `path` (same directory, so the publishing
    /// rename or link stays on one file system): its descriptor and name.
    /// The name is registered with `TemporaryFiles` until published or removed.
    public static func temporaryFile(beside path: String) -> (fd: Int32, path: String)? {
        var template =
            PathBytes.bytes(directoryPrefix(of: path) + temporaryPrefix + "XXXXXX").map { CChar(bitPattern: $0) } + [0]
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { return nil }
        let name = template.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { PathBytes.string(cString: $0) } ?? ""
        }
        TemporaryFiles.shared.register(name)
        // mkstemp makes 0600 files; give the result ordinary permissions.
        let mask = umask(0)
        umask(mask)
        fchmod(fd, 0o666 & ~mask)
        return (fd, name)
    }

    /// Gives `temporary` the name `path`; the temporary is gone either way.
    /// Throws `outputExists` when not replacing and the name is taken.
    /// `shownAs` names the output in errors when `path` is a symlink's target.
    public static func publish(_ temporary: String, as path: String, replacing: Bool, shownAs shown: String? = nil)
        throws
    {
        defer {
            _ = PathBytes.withCString(temporary) { unlink($0) }
            TemporaryFiles.shared.unregister(temporary)
        }
        let failure = PathBytes.withCString(temporary) { from in
            PathBytes.withCString(path) { to in
                replacing ? (rename(from, to) == 0 ? 0 : errno) : noReplaceRename(from, to)
            }
        }
        switch failure {
        case 0: return
        case EEXIST: throw ProResDecodeError.outputExists(path: shown ?? path)
        default: throw ProResDecodeError.output(path: shown ?? path, reason: String(cString: strerror(failure)))
        }
    }

    /// `from`'s directory part with its slash (`a/b/` for `a/b/c`), or "".
    static func directoryPrefix(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
    }

    private typealias RenameAt2 =
        @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
    nonisolated(unsafe) private static let renameat2 = libcFunction("renameat2", as: RenameAt2.self)
    private static let renameNoReplace: UInt32 = 1

    /// 0 or the errno. `renameat2` first (one step, no second name ever
    /// visible); `link` where the call or the file system does not offer it.
    private static func noReplaceRename(_ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>) -> Int32 {
        if let renameat2 {
            if renameat2(AT_FDCWD, from, AT_FDCWD, to, renameNoReplace) == 0 { return 0 }
            guard errno == EINVAL || errno == ENOSYS || errno == ENOTSUP else { return errno }
        }
        // The temporary is unlinked by the caller: link + unlink is the rename.
        return link(from, to) == 0 ? 0 : errno
    }
}
