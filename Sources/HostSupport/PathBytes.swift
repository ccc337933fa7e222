import Glibc

/// File names on Linux are bytes, not text: `clip\xFF.mov` is a valid name
/// that no String can hold as UTF-8. Swift's `CommandLine.arguments` and
/// FileManager's listings replace such bytes with U+FFFD, so the file can
/// no longer be opened and `-o` would create another name.
///
/// Paths stay Strings inside the program (options, golden keys, messages all
/// pass them as text), but losslessly: each byte that is not part of valid
/// UTF-8 becomes one private-use scalar, U+10FF00 + byte (U+10FF80 …
/// U+10FFFF), like Python's `surrogateescape` (Swift Strings cannot hold
/// lone surrogates). A valid sequence that would decode to one of those
/// scalars is escaped byte by byte too, so the mapping is one-to-one and
/// `bytes(string(b)) == b` for every name. Every system call gets the bytes
/// back through `withCString`; text for people and reports writes the
/// escaped bytes as `\xHH` (TerminalText, `reportText`).
public enum PathBytes {
    static let escapeBase: UInt32 = 0x10FF00

    /// The byte a private-use scalar stands for, nil for any other scalar.
    public static func escapedByte(_ scalar: Unicode.Scalar) -> UInt8? {
        scalar.value >= escapeBase + 0x80 ? UInt8(scalar.value - escapeBase) : nil
    }

    /// `\xFF` for a scalar that stands for a byte, as people and reports
    /// see it; nil for any other scalar.
    public static func escapedText(_ scalar: Unicode.Scalar) -> String? {
        escapedByte(scalar).map { "\\x" + String($0, radix: 16, uppercase: true) }
    }

    /// A name's bytes as a String, invalid UTF-8 kept as escape scalars.
    public static func string<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let bytes = Array(bytes)
        if let text = String(validating: bytes, as: UTF8.self),
            !text.unicodeScalars.contains(where: { escapedByte($0) != nil })
        {
            return text
        }
        var out = String.UnicodeScalarView()
        var i = 0
        while i < bytes.count {
            if let (scalar, length) = validScalar(bytes, at: i), escapedByte(scalar) == nil {
                out.append(scalar)
                i += length
            } else {
                out.append(Unicode.Scalar(escapeBase + UInt32(bytes[i]))!)
                i += 1
            }
        }
        return String(out)
    }

    /// The bytes a String made by `string(_:)` (or any String) names.
    public static func bytes(_ path: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count)
        for scalar in path.unicodeScalars {
            if let byte = escapedByte(scalar) {
                out.append(byte)
            } else {
                out.append(contentsOf: Array(String(scalar).utf8))
            }
        }
        return out
    }

    /// Calls `body` with the path's bytes as a NUL-terminated C string: the
    /// one way a path reaches open(2), stat(2), libavformat and the rest.
    public static func withCString<R>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        guard path.unicodeScalars.contains(where: { escapedByte($0) != nil }) else { return try path.withCString(body) }
        let terminated = bytes(path).map { CChar(bitPattern: $0) } + [0]
        return try terminated.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// A C string from the system (readdir, glob, mkdtemp) as a path.
    public static func string(cString: UnsafePointer<CChar>) -> String {
        string(UnsafeRawBufferPointer(start: cString, count: strlen(cString)))
    }

    /// A path for reports that must stay text and be read back (golden
    /// keys, JSON, JUnit): `\` as `\\`, each byte that is not UTF-8 as
    /// `\xHH`; everything else as it is. `fromReportText` reverses it.
    public static func reportText(_ path: String) -> String {
        var out = ""
        for scalar in path.unicodeScalars {
            if let escaped = escapedText(scalar) {
                out += escaped
            } else if scalar == "\\" {
                out += "\\\\"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The path `reportText` wrote; nil for a backslash that starts no
    /// escape it writes (`\\`, or `\x80` … `\xFF`).
    public static func fromReportText<Text: StringProtocol>(_ text: Text) -> String? {
        var out = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        var i = 0
        while i < scalars.count {
            guard scalars[i] == "\\" else {
                out.append(scalars[i])
                i += 1
                continue
            }
            if i + 1 < scalars.count, scalars[i + 1] == "\\" {
                out.append("\\")
                i += 2
                continue
            }
            guard i + 3 < scalars.count, scalars[i + 1] == "x",
                let byte = UInt8(String(String.UnicodeScalarView(scalars[i + 2...i + 3])), radix: 16), byte >= 0x80
            else { return nil }
            out.append(Unicode.Scalar(escapeBase + UInt32(byte))!)
            i += 4
        }
        return String(out)
    }

    /// The scalar a well-formed UTF-8 sequence at `i` encodes, and its length.
    private static func validScalar(_ b: [UInt8], at i: Int) -> (Unicode.Scalar, Int)? {
        let lead = b[i]
        let length: Int
        let low: UInt8
        let high: UInt8
        switch lead {
        case 0x00...0x7F: return (Unicode.Scalar(lead), 1)
        case 0xC2...0xDF: (length, low, high) = (2, 0x80, 0xBF)
        case 0xE0: (length, low, high) = (3, 0xA0, 0xBF)
        case 0xED: (length, low, high) = (3, 0x80, 0x9F)  // no surrogates
        case 0xE1...0xEF: (length, low, high) = (3, 0x80, 0xBF)
        case 0xF0: (length, low, high) = (4, 0x90, 0xBF)
        case 0xF4: (length, low, high) = (4, 0x80, 0x8F)
        case 0xF1...0xF3: (length, low, high) = (4, 0x80, 0xBF)
        default: return nil
        }
        guard i + length <= b.count, (low...high).contains(b[i + 1]),
            b[i + 2..<i + length].allSatisfy({ $0 & 0xC0 == 0x80 })
        else { return nil }
        let leadBits = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        let value = b[i + 1..<i + length].reduce(leadBits) { $0 << 6 | UInt32($1 & 0x3F) }
        return Unicode.Scalar(value).map { ($0, length) }
    }
}
