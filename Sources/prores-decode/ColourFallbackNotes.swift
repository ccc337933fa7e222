import ProResCore

/// The colour tags that had to be guessed, each reported once: the stream's
/// before decoding, and after a `--vulkan` run only what the GPU conversion
/// substituted beyond them (a frame's own unsupported tag, say), since the
/// conversion meets the stream's fallbacks again on every frame.
enum ColourFallbackNotes {
    /// One line per distinct assumption: `primaries, transfer and matrix
    /// untagged: assuming bt709 (documented fallback; …)` when all three
    /// fall back to one value, one line per value otherwise; the tags the
    /// user assumed are said as theirs, likewise grouped.
    static func stream(_ tags: ColorTags) -> [String] {
        let fallbacks = grouped(untagged(tags)).map { kinds, value in
            let many = kinds.count > 1
            return "\(list(kinds.map { "\($0)" })) untagged: assuming \(value) (documented fallback; outputs leave "
                + "\(many ? "them" : "it") unspecified; \(list(kinds.map { "--assume-\($0)" })) "
                + "\(many ? "set them" : "sets it"))"
        }
        let assumed = grouped(
            [(ColorCode.Kind.primaries, tags.primaries), (.transfer, tags.transfer), (.matrix, tags.matrix)]
                .filter { $0.1.source == .assumed }.map { ($0.0, $0.1.value) }
        ).map { kinds, value in
            "\(list(kinds.map { "\($0)" })) untagged: \(value) as \(list(kinds.map { "--assume-\($0)" })) "
                + "\(kinds.count > 1 ? "say" : "says")"
        }
        return fallbacks + assumed
    }

    /// The kinds that share a value, in kind order, each group placed where its first kind is.
    private static func grouped(_ tags: [(kind: ColorCode.Kind, value: ColorCode)]) -> [(
        kinds: [ColorCode.Kind], value: String
    )] {
        var groups: [(kinds: [ColorCode.Kind], value: String)] = []
        for tag in tags {
            if let at = groups.firstIndex(where: { $0.value == tag.value.displayName }) {
                groups[at].kinds.append(tag.kind)
            } else {
                groups.append(([tag.kind], tag.value.displayName))
            }
        }
        return groups
    }

    /// "primaries", "primaries and matrix", "primaries, transfer and matrix".
    private static func list(_ words: [String]) -> String {
        words.count <= 2
            ? words.joined(separator: " and ")
            : words.dropLast().joined(separator: ", ") + " and " + words[words.count - 1]
    }

    /// `colour: ...` for each GPU fallback that `stream` has not already said.
    static func conversion(_ fallbacks: [String], stream tags: ColorTags) -> [String] {
        let said = Set(untagged(tags).map { FrameColorResolver.untaggedNote($0.kind, using: $0.value) })
        return fallbacks.filter { !said.contains($0) }.map { "colour: \($0)" }
    }

    private static func untagged(_ tags: ColorTags) -> [(kind: ColorCode.Kind, value: ColorCode)] {
        [(ColorCode.Kind.primaries, tags.primaries), (.transfer, tags.transfer), (.matrix, tags.matrix)]
            .filter { $0.1.source == .fallback }.map { ($0.0, $0.1.value) }
    }
}
