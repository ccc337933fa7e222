import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU

/// The `FrameSink` of a check: measures every frame of the native planar
/// output (`FrameMeasurement`: md5 and statistics sums). Runs on the
/// session's output thread, one frame at a time.
final class CheckSink: FrameSink {
    private let format: FormatDescription
    private let light: LightLevelMeter?
    private(set) var measurements: [FrameMeasurement] = []
    /// Frames whose size differs from the stream's (never seen from FFmpeg's
    /// ProRes decoder): hashed but not measured.
    private(set) var unmeasured: [(index: Int, md5: String)] = []

    init(format: FormatDescription, light: LightLevelMeter?) {
        self.format = format
        self.light = light
    }

    func consume(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer]) throws {
        let md5 = MD5.hex(of: spans)
        guard let view = NativeFrameView(spans: spans, format: format.nativeFormat, width: format.width, height: format.height) else {
            unmeasured.append((index, md5))
            return
        }
        measurements.append(FrameMeasurement(view, index: index, digest: md5, range: format.colorTags.range.value, light: light))
    }

    /// Every delivered frame's md5, in frame order.
    var md5s: [(index: Int, md5: String)] {
        (measurements.map { ($0.index, $0.digest) } + unmeasured).sorted { $0.index < $1.index }
    }

    func finish() throws {}
    func abort() {}
}
