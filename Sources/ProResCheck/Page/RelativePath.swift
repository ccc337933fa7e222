import Foundation
import HostSupport
import ProResCore

/// The path from one directory to a file, so a page can reference its
/// previews relatively and the page and previews move together (a CI
/// artifact folder downloaded elsewhere still shows its pictures).
enum RelativePath {
    /// `file` as seen from `directory`; both relative to the working
    /// directory unless absolute. `..` and `.` are resolved by name (not
    /// through symbolic links), as a browser resolves a relative URL.
    static func from(directory: String, to file: String) -> String {
        let base = components(absolute(directory))
        let target = components(absolute(file))
        var common = 0
        while common < base.count, common < target.count - 1, base[common] == target[common] { common += 1 }
        let ups = Array(repeating: "..", count: base.count - common)
        return (ups + target[common...]).joined(separator: "/")
    }

    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// The path's names, `.` dropped and `..` taking one back.
    private static func components(_ path: String) -> [String] {
        var names: [String] = []
        for name in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch name {
            case ".": continue
            case "..": if !names.isEmpty { names.removeLast() }
            default: names.append(String(name))
            }
        }
        return names
    }

    /// A relative path as a URL reference: every byte outside the unreserved
    /// set and '/' percent-encoded, so '#', '?', '%', spaces and quotes in
    /// file names stay part of the name. The name's own bytes (PathBytes),
    /// so a byte that is not UTF-8 (`c\xFF.mov`) is `%FF`, as on disk.
    static func urlReference(_ path: String) -> String {
        var out = ""
        for byte in PathBytes.bytes(path) {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
