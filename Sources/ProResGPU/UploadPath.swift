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
