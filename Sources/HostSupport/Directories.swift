import Glibc

/// Directory calls on byte-exact paths (PathBytes). FileManager's listing
/// replaces a name's bytes that are not UTF-8 with U+FFFD, so a file found
/// that way could not be opened again; these go to readdir and mkdir directly.
public enum Directories {
    /// The names in `path` (without `.` and `..`), in readdir order; nil
    /// with errno set when it cannot be listed.
    public static func names(_ path: String) -> [String]? {
        guard let directory = PathBytes.withCString(path, { opendir($0) }) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                PathBytes.string(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Makes `path` and any missing parents (`mkdir -p`); the errno of the
    /// first mkdir that failed for another reason than an existing directory.
    /// `made` hears each directory this call made, parents first.
    public static func create(_ path: String, made: (String) -> Void = { _ in }) -> Int32? {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if PathBytes.withCString(prefix, { mkdir($0, 0o777) }) == 0 {
                made(prefix)
            } else if errno != EEXIST {
                return errno
            }
            prefix += "/"
        }
        var info = stat()
        guard PathBytes.withCString(path, { stat($0, &info) }) == 0 else { return errno }
        return info.st_mode & S_IFMT == S_IFDIR ? nil : ENOTDIR
    }

    /// Removes `path` and the files directly in it (a staging directory of
    /// frames); what cannot be removed stays.
    public static func removeFlat(_ path: String) {
        for name in names(path) ?? [] { _ = PathBytes.withCString(path + "/" + name) { unlink($0) } }
        _ = PathBytes.withCString(path) { rmdir($0) }
    }
}
