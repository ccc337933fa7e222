/// A .cube file that cannot be used: unreadable, or malformed at a line.
/// One line of text naming the file and the line; the CLI exits with 12.
public struct CubeLUTError: Error, Equatable, CustomStringConvertible {
    public let path: String
    /// 1-based; nil when the file could not be read at all.
    public let line: Int?
    public let message: String

    public init(path: String, line: Int?, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    public var description: String {
        guard let line else { return "cannot read LUT '\(path)': \(message)" }
        return "LUT '\(path)' line \(line): \(message)"
    }
}
