import Foundation

/// One line of an HTTP reply header, `Name: value`: the name lowercased
/// (header names are case-insensitive), the value without the white space
/// around it; nil for a line with no colon (the status line, the blank end).
public func httpHeaderField(_ line: String) -> (name: String, value: String)? {
    guard let colon = line.firstIndex(of: ":") else { return nil }
    return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
}
