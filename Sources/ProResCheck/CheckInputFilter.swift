/// Which found files `check` looks at: `--include` (any of them must match
/// when given), `--exclude` (none may match), and never a sidecar — the
/// .xml, .md5, .txt, ... that deliveries carry next to their clips, which are
/// not media and would each be an ERROR. Files named on the command
/// line are always kept: they were asked for.
public struct CheckInputFilter: Sendable {
    public var include: [PathPattern] = []
    public var exclude: [PathPattern] = []

    /// Extensions of files that are never video: metadata, checksums, notes.
    public static let sidecarExtensions: Set<String> = [
        "xml", "md5", "sha1", "sha256", "sha512", "b3", "txt", "json", "csv", "tsv", "log", "md", "pdf", "xmp",
        "ale", "edl", "fcpxml", "srt", "vtt", "scc", "cube", "html", "yaml", "yml", "nfo", "rtf", "doc", "docx",
    ]

    public init(include: [PathPattern] = [], exclude: [PathPattern] = []) {
        self.include = include
        self.exclude = exclude
    }

    public struct Outcome: Sendable {
        public var kept: [CheckInput] = []
        /// Keys of skipped sidecars, for the note that says so.
        public var sidecars: [String] = []
        /// How many --include/--exclude left out.
        public var excluded = 0
    }

    public func apply(_ inputs: [CheckInput]) -> Outcome {
        var outcome = Outcome()
        for input in inputs {
            // A file the golden file lists but the run did not find is filtered by its key as if found.
            guard input.found, input.problem == nil || input.problemFails else {
                outcome.kept.append(input)
                continue
            }
            if !include.isEmpty && !include.contains(where: { $0.matches(key: input.key) })
                || exclude.contains(where: { $0.matches(key: input.key) })
            {
                outcome.excluded += 1
            } else if Self.isSidecar(input.key) {
                outcome.sidecars.append(input.key)
            } else {
                outcome.kept.append(input)
            }
        }
        return outcome
    }

    public static func isSidecar(_ key: String) -> Bool {
        let name = key.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return sidecarExtensions.contains(name[name.index(after: dot)...].lowercased())
    }
}
