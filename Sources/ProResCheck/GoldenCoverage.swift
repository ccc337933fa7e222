import Glibc
import HostSupport
import ProResCore

/// `--golden` over what the golden file covers: a file the golden file
/// lists that the run does not find fails, named, so that a file deleted
/// from the archive cannot pass by no longer being checked.
///
/// The rule: a run covers the golden file's scope when every PATH it was
/// given is a directory (a `--list` may come with them, or alone): then
/// every key of the golden file that `--include`/`--exclude` keep must be
/// among the run's files, and each one that is not becomes an entry of the
/// list that fails with "listed in the golden file, not found". As one of
/// the list's entries it has a shard like any file (`--shard`: the shard
/// its key belongs to reports it, no other), counts in the run's list, and
/// is never carried by `--resume`. A run given a single file, a glob or a
/// URL checks only what it names: the golden file's other entries are not
/// its business.
public enum GoldenCoverage {
    public static let reason = "listed in the golden file, not found"

    /// Whether the run given `paths` (and perhaps a `--list`) covers the
    /// golden file's scope: each path is a directory.
    public static func covers(paths: [String]) -> Bool {
        paths.allSatisfy { path in
            var info = stat()
            return PathBytes.withCString(path, { stat($0, &info) }) == 0 && info.st_mode & S_IFMT == S_IFDIR
        }
    }

    /// `inputs` with an entry that fails for each key of `golden` none of
    /// them has, in path order. Its path is the key below the one directory
    /// argument there is (`directories`), else the key itself.
    public static func withMissing(_ inputs: [CheckInput], golden: GoldenFile, directories: [String]) -> [CheckInput] {
        let present = Set(inputs.map(\.key))
        let paths = Set(inputs.map(\.path))
        let base = directories.count == 1 ? directories[0] : nil
        let missing = golden.entries.keys.filter { !present.contains($0) }.compactMap { key -> CheckInput? in
            let path = base.map { ($0.hasSuffix("/") ? $0 : $0 + "/") + key } ?? key
            guard !paths.contains(path) else { return nil }
            return CheckInput(path: path, key: key, problem: reason, found: true, problemFails: true)
        }
        guard !missing.isEmpty else { return inputs }
        return (inputs + missing).sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    }
}
