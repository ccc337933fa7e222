/// A colour code the GPU conversion cannot handle.
///
/// Why: an unknown transfer, matrix or primaries code must never be guessed
/// silently (STYLE.md: "colour tags ignored or guessed silently"); this error
/// names the code so the caller can report it or apply its documented fallback.
public struct UnsupportedColorCode: Error, Equatable, CustomStringConvertible {
    public let code: ColorCode

    public init(_ code: ColorCode) { self.code = code }

    public var description: String {
        let kind: String
        switch code.kind {
        case .primaries: kind = "colour primaries"
        case .transfer: kind = "transfer characteristics"
        case .matrix: kind = "matrix coefficients"
        }
        return "unsupported \(kind) \(code.displayName) (H.273 code \(code.code))"
    }
}
