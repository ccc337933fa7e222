import HostSupport

/// The JSON text of a `StreamDescription`: one line, keys in `CodingKeys`
/// order, every optional written as null (never left out) except `path`,
/// which only `info` writes.
extension StreamDescription {
    public var json: String {
        func string(_ s: String?) -> String { s.map(JSON.string) ?? "null" }
        func int(_ n: Int?) -> String { n.map(String.init) ?? "null" }
        func number(_ d: Double?, _ digits: Int) -> String { d.map { JSON.number($0, digits: digits) } ?? "null" }
        func tag(_ t: Tag) -> String {
            JSON.object([("value", JSON.string(t.value)), ("code", "\(t.code)"), ("source", JSON.string(t.source))])
        }
        var fields: [(String, String)] = [("schema", JSON.string(schema))]
        if let path { fields.append(("path", JSON.string(PathBytes.reportText(path)))) }
        fields += [
            ("container", JSON.string(container)),
            ("track", "\(track)"),
            ("fourcc", string(fourcc)),
            ("profile", string(profile)),
            ("profile_name", JSON.string(profileName)),
            ("width", "\(width)"),
            ("height", "\(height)"),
            ("sample_aspect_ratio", JSON.string(sampleAspectRatio)),
            ("frame_rate", string(frameRate)),
            ("fps", number(fps, 3)),
            ("time_base", JSON.string(timeBase)),
            ("frame_count", int(frameCount)),
            ("duration_seconds", number(durationSeconds, 6)),
            ("timecode", string(timecode)),
            ("bit_depth", "\(bitDepth)"),
            ("chroma", JSON.string(chroma)),
            ("alpha", alpha ? "true" : "false"),
            ("alpha_bits", "\(alphaBits)"),
            ("field_order", JSON.string(fieldOrder)),
            ("native_format", JSON.string(nativeFormat)),
            ("native_packed_layout", JSON.string(nativePackedLayout)),
            ("creator", JSON.string(creator)),
            (
                "color",
                JSON.object([
                    ("primaries", tag(color.primaries)),
                    ("transfer", tag(color.transfer)),
                    ("matrix", tag(color.matrix)),
                    (
                        "range",
                        JSON.object([
                            ("value", JSON.string(color.range.value)), ("source", JSON.string(color.range.source)),
                        ])
                    ),
                ])
            ),
            ("mastering_display", masteringDisplay.map(Self.json) ?? "null"),
            (
                "content_light_level",
                contentLightLevel.map {
                    JSON.object([("max_cll", "\($0.maxCLL)"), ("max_fall", "\($0.maxFALL)")])
                } ?? "null"
            ),
            ("notes", JSON.array(notes.map(JSON.string))),
            ("audio_tracks", JSON.array(audioTracks.map(\.json))),
        ]
        return JSON.object(fields)
    }

    /// Chromaticities in ST 2086's 0.00002 steps, luminance in 0.0001 cd/m².
    private static func json(_ m: MasteringDisplay) -> String {
        func point(_ p: MasteringDisplay.Chromaticity) -> String {
            JSON.object([("x", JSON.number(p.x, digits: 5)), ("y", JSON.number(p.y, digits: 5))])
        }
        return JSON.object([
            ("red", point(m.red)), ("green", point(m.green)), ("blue", point(m.blue)),
            ("white_point", point(m.whitePoint)),
            ("min_luminance", m.minLuminance.map { JSON.number($0, digits: 4) } ?? "null"),
            ("max_luminance", m.maxLuminance.map { JSON.number($0, digits: 4) } ?? "null"),
        ])
    }
}
