import Foundation

/// How the GPU decoder's transform pass (dequantisation, IDCT, packing)
/// divides its work; both produce the same bytes.
public enum TransformOrganisation: String, CaseIterable, Equatable, Sendable {
    /// One workgroup per macroblock (`prores_idct.comp`).
    case macroblock
    /// One workgroup per slice (`prores_idct_slice.comp`): contiguous
    /// coefficient reads and whole slice rows written at a time.
    case slice

    /// `PRORES_DECODE_TRANSFORM` (`slice` or `macroblock`) chooses, for
    /// measurements; unset or unknown, `macroblock` until the slice
    /// organisation is measured on a GPU.
    public init(environment: String? = ProcessInfo.processInfo.environment["PRORES_DECODE_TRANSFORM"]) {
        self = environment.flatMap(TransformOrganisation.init(rawValue:)) ?? .macroblock
    }
}
