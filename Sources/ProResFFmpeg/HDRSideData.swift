import CFFmpeg
import ProResCore

/// HDR metadata that libavformat attaches to a stream as side data
/// (`AVMasteringDisplayMetadata`, `AVContentLightMetadata`).
enum HDRSideData {
    static func masteringDisplay(_ stream: UnsafeMutablePointer<AVStream>) -> MasteringDisplay? {
        guard let bytes = pd_stream_side_data(stream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA) else { return nil }
        let m = UnsafeRawPointer(bytes).assumingMemoryBound(to: AVMasteringDisplayMetadata.self).pointee
        guard m.has_primaries != 0 || m.has_luminance != 0 else { return nil }
        // Rationals; a 0 denominator (unset) reads as 0 rather than NaN.
        func value(_ r: AVRational) -> Double { r.den == 0 ? 0 : Double(r.num) / Double(r.den) }
        func point(_ p: (AVRational, AVRational)) -> MasteringDisplay.Chromaticity {
            .init(x: value(p.0), y: value(p.1))
        }
        // display_primaries is [3][2] in r, g, b order.
        let primaries = m.display_primaries
        return MasteringDisplay(
            red: point(primaries.0), green: point(primaries.1), blue: point(primaries.2),
            whitePoint: point(m.white_point),
            minLuminance: m.has_luminance != 0 ? value(m.min_luminance) : nil,
            maxLuminance: m.has_luminance != 0 ? value(m.max_luminance) : nil)
    }

    static func contentLightLevel(_ stream: UnsafeMutablePointer<AVStream>) -> ContentLightLevel? {
        guard let bytes = pd_stream_side_data(stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL) else { return nil }
        let c = UnsafeRawPointer(bytes).assumingMemoryBound(to: AVContentLightMetadata.self).pointee
        return ContentLightLevel(maxCLL: Int(c.MaxCLL), maxFALL: Int(c.MaxFALL))
    }
}
