import ProResCore

extension AnalysisRequest {
    /// What `check` measures of every frame of `format`: its BLAKE3 hash and
    /// its statistics, light levels included where the transfer has them;
    /// and why there are none, where the meter cannot be made. `bench
    /// --decoders gpu-check` times the same request.
    package static func check(_ format: FormatDescription) -> (request: AnalysisRequest, lightNote: String?) {
        var light: LightLevelMeter?
        var lightNote: String?
        do { light = try LightLevelMeter(tags: format.colorTags, bitDepth: format.nativeFormat.bitDepth) } catch {
            lightNote = "no light level: \(error)"
        }
        // No gamut where the matrix has no maths here: the report says n/a.
        let gamut = try? GamutMeter(tags: format.colorTags, bitDepth: format.nativeFormat.bitDepth)
        return (
            AnalysisRequest(
                hash: true, statistics: .init(range: format.colorTags.range.value, light: light, gamut: gamut)),
            lightNote
        )
    }
}
