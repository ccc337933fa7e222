import Glibc

/// Names that stand for one of this process's open descriptors rather than
/// a file of their own: `/dev/stdin`, `/dev/stdout`, `/dev/stderr`,
/// `/dev/fd/N`, `/proc/self/fd/N`, `/proc/thread-self/fd/N` and
/// `/proc/PID/fd/N` with this process's PID, reached directly or through
/// symlinks. Such a name must be written through the descriptor, in place:
/// publishing a file under it by `rename` would replace the link itself (in
/// a private mount namespace, `/dev/stdout`) and leave the real destination
/// empty.
public enum DescriptorNames {
    /// The descriptor `path` names, or nil for an ordinary name.
    public static func descriptor(_ path: String) -> Int32? {
        var current = path
        // Linux follows at most 40 links in one lookup; so do we.
        for _ in 0..<40 {
            if let number = descriptorNumber(current) { return number }
            guard let target = linkTarget(current) else { return nil }
            current = target.hasPrefix("/") ? target : directoryPart(of: current) + target
        }
        return nil
    }

    /// The descriptor a name spells out, without following links.
    static func descriptorNumber(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdin": return STDIN_FILENO
        case "/dev/stdout": return STDOUT_FILENO
        case "/dev/stderr": return STDERR_FILENO
        default: break
        }
        for prefix in ["/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", "/proc/\(getpid())/fd/"]
        where path.hasPrefix(prefix) {
            return plainNumber(path.dropFirst(prefix.count))
        }
        return nil
    }

    /// Digits only, within Int32: `/dev/fd/+1` or `/dev/fd/1x` name no descriptor.
    private static func plainNumber(_ text: Substring) -> Int32? {
        guard !text.isEmpty, text.count <= 9, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int32(text)
    }

    private static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = PathBytes.withCString(path) { readlink($0, &buffer, buffer.count - 1) }
        guard length > 0 else { return nil }
        return PathBytes.string(buffer[0..<length].map { UInt8(bitPattern: $0) })
    }

    private static func directoryPart(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
    }
}
