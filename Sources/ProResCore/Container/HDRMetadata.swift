/// SMPTE ST 2086 mastering display colour volume: the display the picture was
/// graded on. From the container (MOV `mdcv`, MKV `MasteringMetadata`, MXF)
/// through libavformat's side data; ProRes frame headers do not carry it.
public struct MasteringDisplay: Sendable, Equatable, Codable {
    /// CIE 1931 xy chromaticities, red, green, blue.
    public var red: Chromaticity
    public var green: Chromaticity
    public var blue: Chromaticity
    public var whitePoint: Chromaticity
    /// Luminance in cd/m², nil where the source leaves it out (FFmpeg's
    /// `has_luminance`/`has_primaries` flags can be set independently).
    public var minLuminance: Double?
    public var maxLuminance: Double?

    public struct Chromaticity: Sendable, Equatable, Codable {
        public var x: Double
        public var y: Double
        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    public init(
        red: Chromaticity, green: Chromaticity, blue: Chromaticity, whitePoint: Chromaticity,
        minLuminance: Double?, maxLuminance: Double?
    ) {
        (self.red, self.green, self.blue, self.whitePoint) = (red, green, blue, whitePoint)
        (self.minLuminance, self.maxLuminance) = (minLuminance, maxLuminance)
    }

    enum CodingKeys: String, CodingKey {
        case red, green, blue
        case whitePoint = "white_point"
        case minLuminance = "min_luminance"
        case maxLuminance = "max_luminance"
    }
}

/// CTA-861.3 content light level: the brightest pixel (MaxCLL) and the
/// brightest frame average (MaxFALL), both in cd/m².
public struct ContentLightLevel: Sendable, Equatable, Codable {
    public var maxCLL: Int
    public var maxFALL: Int

    public init(maxCLL: Int, maxFALL: Int) { (self.maxCLL, self.maxFALL) = (maxCLL, maxFALL) }

    enum CodingKeys: String, CodingKey {
        case maxCLL = "max_cll"
        case maxFALL = "max_fall"
    }
}
