import HostSupport
import ProResCore

/// What the rules on the statistics compare: black and frozen runs,
/// shares of out-of-range samples, light, and the HDR metadata a file
/// carries (docs/check.md, "Rules").
extension ExpectRule {
    /// The number a numeric rule compares; nil where the file has none
    /// (no light outside PQ and HLG, no statistics without a clean frame).
    func measured(_ facts: Facts) -> Double? {
        let f = facts.format
        switch key {
        case .frames: return Double(facts.frames)
        case .width: return Double(f.width)
        case .height: return Double(f.height)
        case .fps: return f.framesPerSecond
        case .bitDepth: return Double(f.bitDepth)
        case .maxNits, .maxCLL: return facts.maxNits
        case .maxFALL: return facts.statistics?.maxFrameAverageNits
        default: return facts.statistics.flatMap { measuredStatistic($0, facts: facts) }
        }
    }

    private func measuredStatistic(_ s: FrameStatistics, facts: Facts) -> Double? {
        let black = BlackRuns(s.black, lastFrame: facts.frames - 1)
        switch key {
        case .blackFrames: return Double(s.black.count)
        case .blackRun: return Double(black.longestInside)
        case .blackHead: return Double(black.head)
        case .blackTail: return Double(black.tail)
        case .frozenFrames: return Double(s.frozen.count)
        case .frozenRun: return Double(s.frozen.runs.map(\.count).max() ?? 0)
        case .outOfRangeFrames: return s.range == .video ? Double(s.outOfRangeFrames) : 0
        case .outOfRangeLuma: return s.outOfRangeLumaFraction ?? 0
        case .outOfRangeChroma:
            return s.outOfRangeChromaFraction(chromaSamplesPerFrame: Self.chromaSamples(facts.format)) ?? 0
        case .outOfGamut: return s.outOfGamutFraction
        default: return nil
        }
    }

    /// Cb and Cr samples of one native planar frame.
    static func chromaSamples(_ f: FormatDescription) -> Int {
        let plane = f.nativeFormat.planeWidth(1, width: f.width) * f.height
        return 2 * plane
    }

    /// Why a numeric rule has no value, in words.
    func unmeasured(_ facts: Facts) -> String {
        switch key {
        case .maxNits, .maxCLL, .maxFALL:
            return "n/a (transfer \(facts.format.colorTags.transfer.value.displayName) is not PQ or HLG)"
        case .frames, .width, .height, .fps, .bitDepth: return "unknown"
        case .outOfGamut where facts.statistics != nil:
            return "n/a (matrix \(facts.format.colorTags.matrix.value.displayName) has no Y′CbCr maths here)"
        default: return "n/a (no clean frame measured)"
        }
    }

    /// The actual value in the rule's own unit.
    func shown(_ actual: Double) -> String {
        switch key {
        case .fps: return JSON.number(actual, digits: 3)
        case .outOfRangeLuma, .outOfRangeChroma, .outOfGamut:
            return String(format: "%.6f (%.4f%%)", actual, actual * 100)
        default: return JSON.number(actual, digits: 1)
        }
    }

    /// `mastering-display`, `content-light-level`: the file carries it;
    /// `hdr-metadata`: a PQ file carries both (any other transfer holds).
    func hdrMetadataHeld(_ f: FormatDescription) -> Bool {
        switch key {
        case .masteringDisplay: return f.masteringDisplay != nil
        case .contentLightLevel: return f.contentLightLevel != nil
        default:
            return f.colorTags.transfer.value.code != ColorCodeNames.code(.transfer, named: "pq")
                || (f.masteringDisplay != nil && f.contentLightLevel != nil)
        }
    }

    func hdrMetadataWords(_ f: FormatDescription) -> String {
        let missing =
            (f.masteringDisplay == nil ? ["no mastering display"] : [])
            + (f.contentLightLevel == nil ? ["no content light level"] : [])
        let transfer = "transfer \(f.colorTags.transfer.value.displayName)"
        return missing.isEmpty ? "both present (\(transfer))" : "\(missing.joined(separator: ", ")) (\(transfer))"
    }
}

/// A file's black frames split by where they lie: the run that starts at
/// the first frame (head), the run that ends at the last (tail), and the
/// longest of the others (inside the programme).
struct BlackRuns {
    var head = 0
    var tail = 0
    var longestInside = 0

    init(_ black: FrameRanges, lastFrame: Int) {
        for run in black.runs {
            let atHead = run.lowerBound == 0
            let atTail = run.upperBound >= lastFrame
            if atHead { head = run.count }
            if atTail { tail = run.count }
            if !atHead && !atTail { longestInside = max(longestInside, run.count) }
        }
    }
}
