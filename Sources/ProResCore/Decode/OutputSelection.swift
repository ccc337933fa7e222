/// The byte layout a run writes.
public enum OutputSelection: Equatable, Sendable {
    /// The decoder's own planar format, planes concatenated (`ffmpeg -f rawvideo`).
    case native
    /// One of Apple's packed layouts.
    case packed(PackedLayout)

    public init?(name: String) {
        if name == "native" {
            self = .native
        } else if let layout = PackedLayout(rawValue: name) {
            self = .packed(layout)
        } else {
            return nil
        }
    }

    public var name: String {
        switch self {
        case .native: return "native"
        case .packed(let layout): return layout.rawValue
        }
    }

    /// Why this layout costs a conversion for `format`, or nil when it holds
    /// the source as decoded (native, or the profile's own packed layout).
    public func conversionWarning(for format: FormatDescription) -> String? {
        guard case .packed(let layout) = self, layout != format.nativePackedLayout else { return nil }
        switch layout {
        case .y416:
            return
                "y416 is not the native layout of this \(format.chroma.rawValue) source (v216 is): each chroma sample is repeated for two columns, a conversion pass per frame"
        case .v216:
            return
                "v216 is not the native layout of this \(format.chroma.rawValue) source (y416 is): odd-column chroma\(format.hasAlpha ? " and alpha are" : " is") dropped, a conversion pass per frame"
        }
    }
}
