/// Where a colour tag's value came from.
public enum TagSource: String, Sendable {
    /// The ProRes frame header: the bitstream describes itself.
    case bitstream
    /// The container (MOV `colr` atom, MXF descriptor, ...).
    case container
    /// Neither said anything usable; a documented rule chose the value,
    /// for conversions only: outputs leave it unspecified.
    case fallback
    /// Neither said anything; the user said what to assume (`--assume-*`),
    /// and outputs carry it.
    case assumed
}

/// One colour property as an ITU-T H.273 code point (the numbering ProRes
/// frame headers, MOV `colr` atoms and FFmpeg all share).
public struct ColorCode: Hashable, Sendable {
    public enum Kind: Sendable { case primaries, transfer, matrix }
    public let kind: Kind
    public let code: Int

    public init(_ kind: Kind, _ code: Int) {
        self.kind = kind
        self.code = code
    }

    /// 0 is "reserved" (older writers mean "unknown") and 2 is "unspecified".
    public var isSpecified: Bool { code != 0 && code != 2 && name != nil }

    /// FFmpeg's name for the code, as ffprobe prints it (nil for codes
    /// H.273 leaves unassigned). ProResFFmpegTests compares every code with
    /// libavutil's own table.
    public var name: String? {
        let names: [Int: String]
        switch kind {
        case .primaries: names = Self.primariesNames
        case .transfer: names = Self.transferNames
        case .matrix: names = Self.matrixNames
        }
        return names[code]
    }

    private static let primariesNames: [Int: String] = [
        0: "reserved", 1: "bt709", 2: "unknown", 3: "reserved", 4: "bt470m", 5: "bt470bg", 6: "smpte170m",
        7: "smpte240m",
        8: "film", 9: "bt2020", 10: "smpte428", 11: "smpte431", 12: "smpte432", 22: "ebu3213",
    ]
    private static let transferNames: [Int: String] = [
        0: "reserved", 1: "bt709", 2: "unknown", 3: "reserved", 4: "bt470m", 5: "bt470bg", 6: "smpte170m",
        7: "smpte240m",
        8: "linear", 9: "log100", 10: "log316", 11: "iec61966-2-4", 12: "bt1361e", 13: "iec61966-2-1", 14: "bt2020-10",
        15: "bt2020-12", 16: "smpte2084", 17: "smpte428", 18: "arib-std-b67",
    ]
    private static let matrixNames: [Int: String] = [
        0: "gbr", 1: "bt709", 2: "unknown", 3: "reserved", 4: "fcc", 5: "bt470bg", 6: "smpte170m", 7: "smpte240m",
        8: "ycgco", 9: "bt2020nc", 10: "bt2020c", 11: "smpte2085", 12: "chroma-derived-nc", 13: "chroma-derived-c",
        14: "ictcp",
    ]

    public var displayName: String { name ?? "code \(code)" }
}

extension ColorCode {
    public static let bt709Primaries = ColorCode(.primaries, 1)
    public static let bt470bgPrimaries = ColorCode(.primaries, 5)
    public static let smpte170mPrimaries = ColorCode(.primaries, 6)
    public static let bt709Transfer = ColorCode(.transfer, 1)
    public static let bt709Matrix = ColorCode(.matrix, 1)
    public static let bt470bgMatrix = ColorCode(.matrix, 5)
    public static let smpte170mMatrix = ColorCode(.matrix, 6)
}

public enum ColorRange: String, Sendable {
    case video
    case full
}

/// A value together with where it came from.
public struct Tagged<Value: Sendable>: Sendable {
    public let value: Value
    public let source: TagSource
    public init(_ value: Value, _ source: TagSource) {
        self.value = value
        self.source = source
    }
}

/// The colour description of a stream or frame, each tag with its provenance.
public struct ColorTags: Sendable {
    public let primaries: Tagged<ColorCode>
    public let transfer: Tagged<ColorCode>
    public let matrix: Tagged<ColorCode>
    public let range: Tagged<ColorRange>
    /// Human-readable notes where the frame header and the container disagree.
    public let conflicts: [String]

    /// Resolves the tags: the frame header wins over the container when both
    /// specify a value; disagreements are recorded, never silently dropped.
    /// Fallback when neither speaks: BT.709 for HD and larger, SMPTE 170M for
    /// 525-line SD (height ≤ 486), BT.470BG for 625-line SD (height ≤ 576);
    /// transfer BT.709 (displayed with BT.1886); range video, which is what
    /// ProRes stores (its frame header has no range field).
    public init(
        bitstream: (primaries: Int, transfer: Int, matrix: Int)?,
        container: (primaries: Int, transfer: Int, matrix: Int, fullRange: Bool?),
        height: Int
    ) {
        var conflicts: [String] = []
        func resolve(_ kind: ColorCode.Kind, _ header: Int?, _ box: Int, fallback: ColorCode) -> Tagged<ColorCode> {
            let fromHeader = header.map { ColorCode(kind, $0) }
            let fromContainer = ColorCode(kind, box)
            if let fromHeader, fromHeader.isSpecified {
                if fromContainer.isSpecified && fromContainer != fromHeader {
                    conflicts.append(
                        "\(kind): frame header says \(fromHeader.displayName), container says \(fromContainer.displayName); using the frame header"
                    )
                }
                return Tagged(fromHeader, .bitstream)
            }
            if fromContainer.isSpecified { return Tagged(fromContainer, .container) }
            return Tagged(fallback, .fallback)
        }
        let sd525 = height <= 486
        let sd625 = !sd525 && height <= 576
        primaries = resolve(
            .primaries, bitstream?.primaries, container.primaries,
            fallback: sd525 ? .smpte170mPrimaries : sd625 ? .bt470bgPrimaries : .bt709Primaries)
        transfer = resolve(.transfer, bitstream?.transfer, container.transfer, fallback: .bt709Transfer)
        matrix = resolve(
            .matrix, bitstream?.matrix, container.matrix,
            fallback: sd525 ? .smpte170mMatrix : sd625 ? .bt470bgMatrix : .bt709Matrix)
        if let full = container.fullRange {
            range = Tagged(full ? .full : .video, .container)
        } else {
            range = Tagged(.video, .fallback)
        }
        self.conflicts = conflicts
    }

    /// The user's assumptions for the tags nothing stated (a fallback);
    /// stated tags stay as they are.
    public func assuming(primaries: Int?, transfer: Int?, matrix: Int?) -> ColorTags {
        func assumed(_ tag: Tagged<ColorCode>, _ code: Int?) -> Tagged<ColorCode> {
            guard tag.source == .fallback, let code else { return tag }
            return Tagged(ColorCode(tag.value.kind, code), .assumed)
        }
        return ColorTags(
            primaries: assumed(self.primaries, primaries), transfer: assumed(self.transfer, transfer),
            matrix: assumed(self.matrix, matrix), range: range, conflicts: conflicts)
    }

    private init(
        primaries: Tagged<ColorCode>, transfer: Tagged<ColorCode>, matrix: Tagged<ColorCode>, range: Tagged<ColorRange>,
        conflicts: [String]
    ) {
        (self.primaries, self.transfer, self.matrix, self.range, self.conflicts) = (
            primaries, transfer, matrix, range, conflicts
        )
    }

    /// A tag for a person: `bt709 (bitstream)`, or for a fallback
    /// `unspecified; conversions assume bt709 (fallback)`: never a guess as a fact.
    public static func words(_ tag: Tagged<ColorCode>) -> String {
        (tag.source == .fallback ? "unspecified; conversions assume \(tag.value.displayName)" : tag.value.displayName)
            + " (\(tag.source.rawValue))"
    }

    /// The code a file may carry for `tag`: nil (unspecified) for a fallback.
    public static func stated(_ tag: Tagged<ColorCode>) -> Int? { tag.source == .fallback ? nil : tag.value.code }

    /// True when any tag had to be guessed.
    public var usesFallback: Bool {
        primaries.source == .fallback || transfer.source == .fallback
            || matrix.source == .fallback || range.source == .fallback
    }
}
