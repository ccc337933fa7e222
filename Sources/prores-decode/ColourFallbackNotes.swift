import ProResCore

/// The colour tags that had to be guessed, each reported once: the stream's
/// before decoding, and after a `--vulkan` run only what the GPU conversion
/// substituted beyond them (a frame's own unsupported tag, say), since the
/// conversion meets the stream's fallbacks again on every frame.
enum ColourFallbackNotes {
    /// `primaries untagged: assuming bt709 (documented fallback; …)`, per
    /// tag; a tag the user assumed is said as theirs.
    static func stream(_ tags: ColorTags) -> [String] {
        untagged(tags).map {
            "\($0.kind) untagged: assuming \($0.value.displayName) (documented fallback; outputs leave it "
                + "unspecified; --assume-\($0.kind) sets it)"
        }
            + [(ColorCode.Kind.primaries, tags.primaries), (.transfer, tags.transfer), (.matrix, tags.matrix)]
            .filter { $0.1.source == .assumed }.map {
                "\($0.0) untagged: \($0.1.value.displayName) as --assume-\($0.0) says"
            }
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
