import HostSupport

/// The JSON form of colour tags shared by `info --json` and `check`'s
/// report: each tag with its value, code and source.
extension ColorTags {
    public static func json(_ tag: Tagged<ColorCode>) -> String {
        JSON.object([
            ("value", JSON.string(tag.value.displayName)), ("code", "\(tag.value.code)"),
            ("source", JSON.string(tag.source.rawValue)),
        ])
    }

    public var rangeJSON: String {
        JSON.object([("value", JSON.string(range.value.rawValue)), ("source", JSON.string(range.source.rawValue))])
    }
}
