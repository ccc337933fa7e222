/// The raw per-frame numbers a check's statistics are built from, in native
/// code values (LSB-aligned, `PlanarFormat.bitDepth` bits). Made by the CPU
/// from a planar frame (`PictureSums(frame:light:)`) or by the GPU from a
/// packed surface (`FrameStatisticsPass` in ProResGPU); the integers of both
/// are equal by construction and by test, the light within 1e-4 relative.
///
/// Why sums rather than finished statistics: a file's statistics leave out
/// damaged frames, which are known only when the run ends, so each frame is
/// kept as sums that add up exactly (`UInt64`) across frames.
public struct PictureSums: Sendable, Equatable {
    /// The smallest and largest Y′ code of the frame.
    public var lumaMin: Int
    public var lumaMax: Int
    /// The sum of every Y′ code of the frame.
    public var lumaSum: UInt64
    /// Y′ samples at or below `DarkPixels.threshold` (FFmpeg's
    /// `blackdetect` count).
    public var darkPixels: UInt64
    /// Pixels in the frame: its Y′ samples, and its alpha samples when it has alpha.
    public var samples: UInt64
    /// Alpha coverage; nil without alpha.
    public var alpha: AlphaCoverage?
    /// Codes outside the video range; nil for full-range streams, where
    /// every code is legal (`VideoRangeLimits`).
    public var outOfRange: OutOfRangeCounts?
    /// PQ/HLG light in nits (`LightLevelMeter`); nil for other transfers.
    public var light: LightLevel?
    /// Grid pixels out of gamut (`GamutMeter`); nil where the matrix has no maths.
    public var gamut: GamutCount?

    /// These sums without the light and the gamut: what the GPU and the CPU
    /// give bit for bit (the light they add up in different orders, equal
    /// within 1e-4; the gamut in float32 and Double, which may part on a
    /// pixel at the tolerance).
    public var integers: PictureSums {
        var integers = self
        integers.light = nil
        integers.gamut = nil
        return integers
    }

    public init(
        lumaMin: Int, lumaMax: Int, lumaSum: UInt64, darkPixels: UInt64, samples: UInt64, alpha: AlphaCoverage?,
        outOfRange: OutOfRangeCounts?, light: LightLevel?, gamut: GamutCount? = nil
    ) {
        self.lumaMin = lumaMin
        self.lumaMax = lumaMax
        self.lumaSum = lumaSum
        self.darkPixels = darkPixels
        self.samples = samples
        self.alpha = alpha
        self.outOfRange = outOfRange
        self.light = light
        self.gamut = gamut
    }

    /// Grid pixels whose R′G′B′ is out of gamut, of the grid pixels measured.
    public struct GamutCount: Sendable, Equatable {
        public var outside: UInt64
        public var points: UInt64

        public init(outside: UInt64, points: UInt64) {
            self.outside = outside
            self.points = points
        }
    }

    /// Alpha samples at 0 and at the largest code (2^depth − 1).
    public struct AlphaCoverage: Sendable, Equatable {
        public var transparent: UInt64
        public var opaque: UInt64

        public init(transparent: UInt64, opaque: UInt64) {
            self.transparent = transparent
            self.opaque = opaque
        }
    }

    /// Samples below and above the video range. Chroma counts Cb and Cr
    /// samples of the native planar frame, so a 4:2:2 frame has half as many
    /// chroma samples a row as a 4:4:4 one.
    public struct OutOfRangeCounts: Sendable, Equatable {
        public var lumaBelow: UInt64
        public var lumaAbove: UInt64
        public var chromaBelow: UInt64
        public var chromaAbove: UInt64

        public init(lumaBelow: UInt64 = 0, lumaAbove: UInt64 = 0, chromaBelow: UInt64 = 0, chromaAbove: UInt64 = 0) {
            self.lumaBelow = lumaBelow
            self.lumaAbove = lumaAbove
            self.chromaBelow = chromaBelow
            self.chromaAbove = chromaAbove
        }

        public var total: UInt64 { lumaBelow + lumaAbove + chromaBelow + chromaAbove }

        public static func + (a: Self, b: Self) -> Self {
            Self(
                lumaBelow: a.lumaBelow + b.lumaBelow, lumaAbove: a.lumaAbove + b.lumaAbove,
                chromaBelow: a.chromaBelow + b.chromaBelow, chromaAbove: a.chromaAbove + b.chromaAbove)
        }
    }

    /// The brightest grid pixel and the grid average, in nits.
    public struct LightLevel: Sendable, Equatable {
        public var peak: Double
        public var average: Double

        public init(peak: Double, average: Double) {
            self.peak = peak
            self.average = average
        }
    }
}
