import ProResCore

/// One OpenEXR header attribute: name, type name and value bytes, laid out
/// in the file as `name\0 type\0 size(int32 LE) value`.
///
/// The constructors below encode the standard attributes we add, per the
/// OpenEXR file-layout document ("Header Attributes", "Attribute Types").
public struct EXRAttribute: Equatable, Sendable {
    public let name: String
    public let type: String
    public let value: [UInt8]

    public init(name: String, type: String, value: [UInt8]) {
        precondition(!name.isEmpty && name.utf8.count <= 31 && type.utf8.count <= 31, "EXR names fit in 31 bytes")
        self.name = name
        self.type = type
        self.value = value
    }

    /// The bytes this attribute occupies in a header.
    var encoded: [UInt8] {
        var out: [UInt8] = []
        out.appendNulTerminated(name)
        out.appendNulTerminated(type)
        out.appendLittleEndian(Int32(value.count))
        out.append(contentsOf: value)
        return out
    }

    /// `chromaticities`: red, green, blue and white xy as eight 32-bit floats.
    /// Readers use it to know the primaries; without it they assume Rec.709.
    public static func chromaticities(_ c: Chromaticities) -> EXRAttribute {
        var value: [UInt8] = []
        for point in [c.red, c.green, c.blue, c.white] {
            value.appendLittleEndian(Float(point.x).bitPattern)
            value.appendLittleEndian(Float(point.y).bitPattern)
        }
        return EXRAttribute(name: "chromaticities", type: "chromaticities", value: value)
    }

    /// A `float` attribute (`pixelAspectRatio`, `whiteLuminance`).
    public static func float(_ name: String, _ number: Double) -> EXRAttribute {
        var value: [UInt8] = []
        value.appendLittleEndian(Float(number).bitPattern)
        return EXRAttribute(name: name, type: "float", value: value)
    }

    /// `pixelAspectRatio`: a pixel's width over its height (the source's SAR).
    public static func pixelAspectRatio(numerator: Int, denominator: Int) -> EXRAttribute {
        .float("pixelAspectRatio", Double(numerator) / Double(denominator))
    }

    /// `whiteLuminance`: the luminance in cd/m² of RGB (1, 1, 1).
    public static func whiteLuminance(nits: Double) -> EXRAttribute { .float("whiteLuminance", nits) }

    /// `framesPerSecond`: a `rational`, int32 numerator then uint32 denominator.
    public static func framesPerSecond(numerator: Int, denominator: Int) -> EXRAttribute {
        var value: [UInt8] = []
        value.appendLittleEndian(Int32(clamping: numerator))
        value.appendLittleEndian(UInt32(clamping: denominator))
        return EXRAttribute(name: "framesPerSecond", type: "rational", value: value)
    }

    /// `timeCode`: a `timecode`, the SMPTE 12M time-and-flags word then the
    /// user-data word, each a uint32.
    public static func timeCode(_ timecode: SMPTETimecode) -> EXRAttribute {
        var value: [UInt8] = []
        value.appendLittleEndian(timecode.packedTimeAndFlags)
        value.appendLittleEndian(UInt32(0))
        return EXRAttribute(name: "timeCode", type: "timecode", value: value)
    }
}
