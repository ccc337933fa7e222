import HostSupport

/// What one ProRes stream is, in the one shape every JSON output shares:
/// `info --json`, each file's `"format"` in the check report and each input
/// of `bench --json`. docs/schema/stream-description.schema.json describes it;
/// `schema` names the version so readers can tell it apart from older shapes.
///
/// Codable so that tools (and our tests) can read it back; written by `json`
/// in a fixed key order (`schema` first) so reports diff well.
public struct StreamDescription: Sendable, Equatable, Codable {
    public static let schemaVersion = "prores-decode/stream-description/1"

    public var schema: String = Self.schemaVersion
    /// The input as given; nil inside a check report, whose file entry names it.
    public var path: String?
    public var container: String
    public var track: Int
    public var fourcc: String?
    /// The short name `--expect profile=` takes ("hq"); nil without a FourCC.
    public var profile: String?
    public var profileName: String
    public var width: Int
    public var height: Int
    /// "num:den"; "1:1" when the container does not say (square pixels).
    public var sampleAspectRatio: String
    /// "num/den", nil when unknown.
    public var frameRate: String?
    public var fps: Double?
    /// "num/den": the unit of the container's timestamps.
    public var timeBase: String
    public var frameCount: Int?
    /// frame_count / frame rate, nil when either is unknown.
    public var durationSeconds: Double?
    /// The first frame's SMPTE time code ("01:00:00:00", ';' for drop-frame).
    public var timecode: String?
    public var bitDepth: Int
    public var chroma: String
    public var alpha: Bool
    public var alphaBits: Int
    public var fieldOrder: String
    public var nativeFormat: String
    public var nativePackedLayout: String
    public var creator: String
    public var color: Color
    public var masteringDisplay: MasteringDisplay?
    public var contentLightLevel: ContentLightLevel?
    public var notes: [String]
    /// The container's sound tracks (`AudioTrack`), in stream order.
    public var audioTracks: [Audio]

    /// Each colour tag with its H.273 code and where it came from.
    public struct Color: Sendable, Equatable, Codable {
        public var primaries: Tag
        public var transfer: Tag
        public var matrix: Tag
        public var range: RangeTag
    }

    public struct Tag: Sendable, Equatable, Codable {
        public var value: String
        public var code: Int
        public var source: String
    }

    public struct RangeTag: Sendable, Equatable, Codable {
        public var value: String
        public var source: String
    }

    enum CodingKeys: String, CodingKey {
        case schema, path, container, track, fourcc, profile
        case profileName = "profile_name"
        case width, height
        case sampleAspectRatio = "sample_aspect_ratio"
        case frameRate = "frame_rate"
        case fps
        case timeBase = "time_base"
        case frameCount = "frame_count"
        case durationSeconds = "duration_seconds"
        case timecode
        case bitDepth = "bit_depth"
        case chroma, alpha
        case alphaBits = "alpha_bits"
        case fieldOrder = "field_order"
        case nativeFormat = "native_format"
        case nativePackedLayout = "native_packed_layout"
        case creator, color
        case masteringDisplay = "mastering_display"
        case contentLightLevel = "content_light_level"
        case notes
        case audioTracks = "audio_tracks"
    }
}

extension StreamDescription {
    public init(_ f: FormatDescription, path: String? = nil) {
        func tag(_ t: Tagged<ColorCode>) -> Tag {
            Tag(value: t.value.displayName, code: t.value.code, source: t.source.rawValue)
        }
        func ratio(_ r: (numerator: Int, denominator: Int), _ separator: String) -> String {
            "\(r.numerator)\(separator)\(r.denominator)"
        }
        self.path = path
        container = f.containerName
        track = f.trackIndex
        fourcc = f.profile?.fourCC
        profile = f.profile?.shortName
        profileName = f.profileName
        width = f.width
        height = f.height
        sampleAspectRatio = ratio(f.sampleAspectRatio ?? (1, 1), ":")
        frameRate = f.frameRate.map { ratio($0, "/") }
        fps = f.framesPerSecond.map { Self.rounded($0, digits: 3) }
        timeBase = ratio(f.timeBase, "/")
        frameCount = f.frameCount
        durationSeconds = f.durationSeconds.map { Self.rounded($0, digits: 6) }
        timecode = f.timecode
        bitDepth = f.bitDepth
        chroma = f.chroma.rawValue
        alpha = f.hasAlpha
        alphaBits = f.alpha.bits
        fieldOrder = f.fieldOrder.rawValue
        nativeFormat = f.nativeFormat.name
        nativePackedLayout = f.nativePackedLayout.rawValue
        creator = f.creator
        color = Color(
            primaries: tag(f.colorTags.primaries), transfer: tag(f.colorTags.transfer), matrix: tag(f.colorTags.matrix),
            range: RangeTag(value: f.colorTags.range.value.rawValue, source: f.colorTags.range.source.rawValue))
        masteringDisplay = f.masteringDisplay
        contentLightLevel = f.contentLightLevel
        notes = f.notes
        audioTracks = f.audioTracks.map { Audio($0, videoSeconds: f.videoSeconds) }
    }

    /// Rounded so that the JSON text and a decoded copy agree exactly.
    private static func rounded(_ value: Double, digits: Int) -> Double {
        Double(JSON.number(value, digits: digits)) ?? value
    }
}
