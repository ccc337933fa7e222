import HostSupport

/// What `check` measures on each decoded frame: its BLAKE3-256 and its
/// picture sums. The GPU decoder computes them with device passes on the
/// surface it decoded into, and only these numbers come back; frames from
/// the CPU decoder are measured from their bytes. Either way they are the
/// same numbers (tested on every fixture).
public struct AnalysisRequest: Sendable {
    /// The BLAKE3-256 of the native planar frame (the bytes `--format native` writes).
    public var hash: Bool
    /// Hash this packed layout's bytes instead (what `--format v216|y416`
    /// writes); nil: the native planar frame. The GPU decoder hashes either
    /// layout from its surface on the device.
    public var hashedLayout: PackedLayout?
    /// Picture statistics (`PictureSums`); nil: none.
    public var statistics: Statistics?

    public struct Statistics: Sendable {
        /// Out-of-range codes are counted only for video range.
        public var range: ColorRange
        /// PQ/HLG light; nil for other transfers.
        public var light: LightLevelMeter?
        /// R′G′B′ out of gamut; nil where the matrix has no maths.
        public var gamut: GamutMeter?

        public init(range: ColorRange, light: LightLevelMeter?, gamut: GamutMeter? = nil) {
            self.range = range
            self.light = light
            self.gamut = gamut
        }
    }

    public init(hash: Bool, statistics: Statistics?, hashedLayout: PackedLayout? = nil) {
        precondition(hashedLayout == nil || statistics == nil, "statistics measure the native planar frame")
        self.hash = hash
        self.statistics = statistics
        self.hashedLayout = hashedLayout
    }
}

/// One frame's measurements (`AnalysisRequest`).
public struct FrameAnalysis: Sendable {
    public var digest: BLAKE3Digest?
    public var sums: PictureSums?
    /// What frozen frames are found by (`StillGrid`), with the statistics.
    public var stillGrid: StillGrid?

    public init(digest: BLAKE3Digest?, sums: PictureSums?, stillGrid: StillGrid? = nil) {
        self.digest = digest
        self.sums = sums
        self.stillGrid = stillGrid
    }

    /// Measures a native planar frame given as a sink sees it, on this
    /// thread (frames are measured in parallel, one a thread). With a
    /// `hashedLayout`, `spans` are that layout's bytes, hashed alone.
    public init(
        planar spans: [UnsafeRawBufferPointer], format: PlanarFormat, width: Int, height: Int, request: AnalysisRequest
    ) {
        digest = request.hash ? BLAKE3.hash(spans, parallel: false) : nil
        let view =
            request.statistics == nil
            ? nil : NativeFrameView(spans: spans, format: format, width: width, height: height)
        sums = request.statistics.flatMap { statistics in
            view.map {
                PictureSums(frame: $0, range: statistics.range, light: statistics.light, gamut: statistics.gamut)
            }
        }
        stillGrid = view.map(StillGrid.init(frame:))
    }
}
