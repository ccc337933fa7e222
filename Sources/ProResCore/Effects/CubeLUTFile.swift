import HostSupport

/// A .cube file as `AuxiliaryInput` reads it: at most 1 GiB (more than the
/// text of the largest LUT, 256³ lines of three numbers), lines of at most
/// 4 KiB, each blank, a `#` comment, a keyword (capitals and `_`) or a
/// table line (a number first).
enum CubeLUTFile {
    static let input = AuxiliaryInput(noun: ".cube file", maximumBytes: 1 << 30, maximumLineBytes: 4096) { line in
        guard
            let first = line.first(where: {
                $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\r")
            })
        else {
            return nil
        }
        let keyword = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first) || first == UInt8(ascii: "_")
        let number = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) || "+-.".utf8.contains(first)
        // A byte-order mark opens the first line.
        let mark = line.starts(with: [0xEF, 0xBB, 0xBF])
        return keyword || number || mark || first == UInt8(ascii: "#")
            ? nil : "neither a keyword, a comment nor a table line"
    }

    static func read(_ path: String) throws -> [UInt8] {
        do throws(AuxiliaryInput.Refusal) { return try input.read(path) } catch {
            throw CubeLUTError(path: path, line: error.line, message: error.message)
        }
    }
}
