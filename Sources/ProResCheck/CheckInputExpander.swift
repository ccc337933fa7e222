import Foundation
import GPUKit
import Glibc
import HostSupport
import ProResCore
import ProResFFmpeg
import ProResGPU

/// Turns `check`'s PATH arguments into a sorted list of files: a file stands
/// for itself, a directory for every regular file below it (recursively,
/// hidden names skipped, symlinks followed once), and an argument that does
/// not exist but holds `*`, `?` or `[` is expanded with glob(3).
///
/// Why sorted by path (byte order) and de-duplicated: the report, the golden
/// file and `--shard` must not depend on readdir order or argument order.
///
/// Keys (golden names) are relative to the argument's root, so `dir`,
/// `dir/`, `./dir` and `dir/*` name a clip alike: a directory's files are
/// keyed below the directory, a glob's matches below its last directory
/// without wildcards, and a file argument by its path with `./` and doubled
/// slashes tidied away.
///
/// An `http://` or `https://` argument that is not a local path is a URL
/// (`CheckInput.url`): one entry, opened by libavformat.
public enum CheckInputExpander {
    /// `listed`: the lines of a `--list`, which name files (a name may
    /// hold `[` or `?`), never patterns.
    public static func expand(_ arguments: [String], listed: [String] = []) -> [CheckInput] {
        let found = arguments.flatMap { expand($0, globs: true) } + listed.flatMap { expand($0, globs: false) }
        var seen = Set<String>()
        return found.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
            .filter { seen.insert($0.path).inserted }
    }

    private static func expand(_ given: String, globs: Bool) -> [CheckInput] {
        let argument = FileURL.localPath(given) ?? given
        if exists(argument) { return expandExisting(argument) }
        if CheckInput.isURL(argument) { return [CheckInput.url(argument)] }
        guard globs, argument.contains(where: { "*?[".contains($0) }) else {
            return [CheckInput(path: argument, key: argument, problem: "no such file")]
        }
        let matches = glob(argument)
        if matches.isEmpty {
            return [CheckInput(path: argument, key: argument, problem: "no file matches this pattern")]
        }
        let root = globRoot(argument)
        return matches.flatMap { expandExisting($0, keyPrefix: tidy(String($0.dropFirst(root.count)))) }
    }

    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return PathBytes.withCString(path, { lstat($0, &info) }) == 0
    }

    /// A path that exists: a directory is walked, anything else is one entry.
    /// `keyPrefix` is the path's own key: nil for an argument itself (its
    /// files are keyed below it), the part below a glob's root for a match.
    private static func expandExisting(_ path: String, keyPrefix: String? = nil) -> [CheckInput] {
        var info = stat()
        guard PathBytes.withCString(path, { stat($0, &info) }) == 0 else {
            // A dangling symlink, or a file we may not look at.
            return [CheckInput(path: path, key: keyPrefix ?? tidy(path), problem: String(cString: strerror(errno)))]
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            return [entry(path: path, key: keyPrefix ?? tidy(path), mode: info.st_mode, found: keyPrefix != nil)]
        }
        var visited: Set<[UInt64]> = [[UInt64(info.st_dev), UInt64(info.st_ino)]]
        var files: [CheckInput] = []
        walk(directory: path, relative: "", visited: &visited, into: &files)
        if let keyPrefix, !keyPrefix.isEmpty {
            files = files.map {
                CheckInput(path: $0.path, key: keyPrefix + "/" + $0.key, problem: $0.problem, found: true)
            }
        }
        if files.isEmpty {
            return [CheckInput(path: path, key: path, problem: "directory holds no files to check")]
        }
        return files
    }

    private static func walk(
        directory: String, relative: String, visited: inout Set<[UInt64]>, into files: inout [CheckInput]
    ) {
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        guard let names = Directories.names(base + relative) else {
            files.append(CheckInput(path: base + relative, key: relative, problem: "cannot list the directory"))
            return
        }
        for name in names where !name.hasPrefix(".") {
            let child = relative + name
            var info = stat()
            guard PathBytes.withCString(base + child, { stat($0, &info) }) == 0 else {
                files.append(CheckInput(path: base + child, key: child, problem: String(cString: strerror(errno))))
                continue
            }
            if info.st_mode & S_IFMT == S_IFDIR {
                // Symlinked directories are followed, but each only once: no loops.
                if visited.insert([UInt64(info.st_dev), UInt64(info.st_ino)]).inserted {
                    walk(directory: directory, relative: child + "/", visited: &visited, into: &files)
                }
            } else {
                files.append(entry(path: base + child, key: child, mode: info.st_mode, found: true))
            }
        }
    }

    /// Only regular files are opened: a FIFO or device could block forever.
    private static func entry(path: String, key: String, mode: mode_t, found: Bool = false) -> CheckInput {
        mode & S_IFMT == S_IFREG
            ? CheckInput(path: path, key: key, found: found)
            : CheckInput(path: path, key: key, problem: "not a regular file", found: found)
    }

    /// The leading directories of a pattern that hold no wildcard, with their
    /// trailing slash: "clips/day*/a.mov" -> "clips/", "*.mov" -> "".
    static func globRoot(_ pattern: String) -> String {
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: false)
        let fixed = parts.dropLast().prefix { !$0.contains(where: { "*?[".contains($0) }) }
        return fixed.isEmpty ? "" : fixed.joined(separator: "/") + "/"
    }

    /// A key without "." components or doubled slashes: "./a//b.mov" ->
    /// "a/b.mov"; an absolute path keeps its leading slash.
    static func tidy(_ path: String) -> String {
        let joined = path.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
        return path.hasPrefix("/") ? "/" + joined : joined
    }

    private static func glob(_ pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        guard PathBytes.withCString(pattern, { Glibc.glob($0, 0, nil, &result) }) == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { result.gl_pathv[$0].map { PathBytes.string(cString: $0) } }
    }
}
