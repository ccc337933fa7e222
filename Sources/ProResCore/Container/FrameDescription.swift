/// What one frame says about itself: its ProRes frame header's size,
/// chroma, alpha, field order and colour codes. A ProRes file may change
/// any of them from one frame to the next (an edit of BT.709 and PQ
/// material), while `FormatDescription` describes the first frame only.
///
/// A colour code the frame leaves unspecified (0 or 2) is the stream's
/// stated one (its container's); nil when nothing states it. Range and HDR
/// side data are the container's, the same for every frame.
public struct FrameDescription: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var chroma: ProResFrameHeader.Chroma
    public var alphaBits: Int
    public var fieldOrder: ProResFrameHeader.FieldOrder
    /// H.273 code points; nil: unspecified.
    public var primaries: Int?
    public var transfer: Int?
    public var matrix: Int?

    public init(header: ProResFrameHeader, stream: ColorTags) {
        func stated(_ kind: ColorCode.Kind, _ code: Int, _ tag: Tagged<ColorCode>) -> Int? {
            let fromFrame = ColorCode(kind, code)
            if fromFrame.isSpecified { return code }
            return tag.source == .fallback ? nil : tag.value.code
        }
        width = header.width
        height = header.height
        chroma = header.chroma
        alphaBits = header.alpha.bits
        fieldOrder = header.fieldOrder
        primaries = stated(.primaries, header.colorPrimaries, stream.primaries)
        transfer = stated(.transfer, header.transferCharacteristic, stream.transfer)
        matrix = stated(.matrix, header.matrixCoefficients, stream.matrix)
    }

    /// The stated code of a colour property, for rules that check each frame.
    public func code(_ kind: ColorCode.Kind) -> Int? {
        switch kind {
        case .primaries: return primaries
        case .transfer: return transfer
        case .matrix: return matrix
        }
    }

    /// A colour code in FFmpeg's words; "unspecified" when nothing states it.
    public static func name(_ kind: ColorCode.Kind, _ code: Int?) -> String {
        code.map { ColorCode(kind, $0).displayName } ?? "unspecified"
    }

    /// What differs from `earlier`, in words: "transfer bt709 → smpte2084".
    public func differences(from earlier: FrameDescription) -> [String] {
        var words: [String] = []
        if (width, height) != (earlier.width, earlier.height) {
            words.append("size \(earlier.width)x\(earlier.height) → \(width)x\(height)")
        }
        if chroma != earlier.chroma { words.append("chroma \(earlier.chroma.rawValue) → \(chroma.rawValue)") }
        if alphaBits != earlier.alphaBits {
            words.append("alpha \(Self.alphaWords(earlier.alphaBits)) → \(Self.alphaWords(alphaBits))")
        }
        if fieldOrder != earlier.fieldOrder {
            words.append("field order \(earlier.fieldOrder.rawValue) → \(fieldOrder.rawValue)")
        }
        for (name, kind) in [("primaries", ColorCode.Kind.primaries), ("transfer", .transfer), ("matrix", .matrix)]
        where code(kind) != earlier.code(kind) {
            words.append("\(name) \(Self.name(kind, earlier.code(kind))) → \(Self.name(kind, code(kind)))")
        }
        return words
    }

    private static func alphaWords(_ bits: Int) -> String { bits == 0 ? "none" : "\(bits)-bit" }
}

/// The frames of a stream as runs of one description, in the order they
/// were seen (frame order; with `--sample`, the sampled frames only).
public struct DescriptionRuns: Sendable {
    public struct Run: Sendable {
        public let description: FrameDescription
        /// The first and last frame seen with it.
        public let first: Int
        public internal(set) var last: Int
    }

    public private(set) var runs: [Run] = []

    public init() {}

    public mutating func add(index: Int, _ description: FrameDescription) {
        if let current = runs.last, current.description == description {
            runs[runs.count - 1].last = index
        } else {
            runs.append(Run(description: description, first: index, last: index))
        }
    }

    /// Each change: the first frame of the run it starts, and what changed.
    public var changes: [(frame: Int, what: String)] { Self.changes(runs) }

    public static func changes(_ runs: [Run]) -> [(frame: Int, what: String)] {
        zip(runs, runs.dropFirst()).map { earlier, run in
            (run.first, run.description.differences(from: earlier.description).joined(separator: ", "))
        }
    }

    /// Every change in words: "frame 5: transfer bt709 → smpte2084; frame 9: …".
    public static func changesText(_ runs: [Run]) -> String {
        changes(runs).map { "frame \($0.frame): \($0.what)" }.joined(separator: "; ")
    }

    /// "frame 5" or "frames 5–9".
    public static func frames(_ run: Run) -> String {
        run.first == run.last ? "frame \(run.first)" : "frames \(run.first)–\(run.last)"
    }
}
