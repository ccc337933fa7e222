import Foundation

/// How the decoder's compressed input reaches the GPU.
public enum UploadPath: String, Equatable, Sendable {
    /// The shaders read the staging memory itself (the device shares the host's memory).
    case direct
    /// Every frame copied by the CPU into staging memory, then one DMA.
    case copy
    /// Frames that lie in `SampleMemory` (the file readers' blocks) DMA'd
    /// from there, their regions imported once; others staged as by `copy`.
    case fromSampleMemory = "import"

    /// `requested` chooses, to run the upload paths on a device that shares
    /// memory (the tests, on lavapipe); unset or not possible there, the
    /// fastest path the device has.
    init(_ requested: UploadPath?, sharesHostMemory: Bool, canImport: Bool) {
        let best: UploadPath = sharesHostMemory ? .direct : canImport ? .fromSampleMemory : .copy
        switch requested {
        case .direct?: self = sharesHostMemory ? .direct : best
        case .copy?: self = .copy
        case .fromSampleMemory?: self = canImport ? .fromSampleMemory : .copy
        case nil: self = best
        }
    }
}

/// What a decoder's input took from host memory: every byte its uploads
/// copy (each sample, the zero padding after it, the batch's slice and
/// frame tables) or, where the shaders read the staging memory in place
/// (`direct`), the same input read there.
package struct LinkTraffic: Equatable, Sendable {
    package var frames = 0
    package var bytes = 0
    /// The samples' own bytes among `bytes`.
    package var sampleBytes = 0
    /// The zero bytes after each sample (the bit reader reads past its end),
    /// with a staged sample's rounding to a whole word.
    package var paddingBytes = 0
    /// The slice and frame tables, each batch's rounded to the upload's alignment.
    package var tableBytes: Int { bytes - sampleBytes - paddingBytes }

    package init() {}

    /// What was added since `earlier`.
    package func since(_ earlier: LinkTraffic) -> LinkTraffic {
        var added = LinkTraffic()
        added.frames = frames - earlier.frames
        added.bytes = bytes - earlier.bytes
        added.sampleBytes = sampleBytes - earlier.sampleBytes
        added.paddingBytes = paddingBytes - earlier.paddingBytes
        return added
    }

    /// The sum of two (a bench's sessions on several devices).
    package static func + (a: LinkTraffic, b: LinkTraffic) -> LinkTraffic {
        var sum = a
        sum.frames += b.frames
        sum.bytes += b.bytes
        sum.sampleBytes += b.sampleBytes
        sum.paddingBytes += b.paddingBytes
        return sum
    }
}
