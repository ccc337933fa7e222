import Foundation

/// A 3D LUT in Adobe's .cube format (Cube LUT Specification 1.0): keywords,
/// then size³ lines of "R G B", red changing fastest.
///
/// Accepted keywords, each at most once and before the table: `TITLE "…"`,
/// `LUT_3D_SIZE N` (2…256, required), `DOMAIN_MIN r g b` and `DOMAIN_MAX r g b`
/// (default 0 0 0 and 1 1 1; min < max per channel), and Resolve's
/// `LUT_3D_INPUT_RANGE min max` (the same domain for all three channels).
/// Lines starting with `#` and blank lines are ignored; CR LF line ends and a
/// UTF-8 byte-order mark are accepted. Anything else is an error naming the
/// line: an unknown keyword, 1D LUTs (`LUT_1D_SIZE`), a keyword after table
/// data, a table line without exactly three finite numbers, too few or too
/// many table lines.
public struct CubeLUT: Equatable, Sendable {
    public let title: String?
    public let size: Int
    public let domainMin: SIMD3<Double>
    public let domainMax: SIMD3<Double>
    /// size³ × (R, G, B) as float32 (what the GPU reads), entry r + size·(g + size·b).
    public let values: [Float]

    public static let sizes = 2...256

    /// Reads and parses `path`; errors name the path and, for bad contents, the line.
    public init(contentsOf path: String) throws {
        try self.init(parsing: String(decoding: try CubeLUTFile.read(path), as: UTF8.self), path: path)
    }

    /// A word of the file as an error quotes it: at most 40 characters, so a
    /// binary file's "word" does not fill the screen.
    static func quoted(_ word: Substring) -> String { word.count > 40 ? word.prefix(40) + "…" : String(word) }

    /// Parses the text of a .cube file; `path` is only used in errors.
    public init(parsing text: String, path: String) throws {
        var title: String?
        var size: Int?
        var domainMin: SIMD3<Double>?
        var domainMax: SIMD3<Double>?
        var domainLine = 0
        var values: [Float] = []
        var lineNumber = 0
        func fail(_ message: String) -> CubeLUTError { CubeLUTError(path: path, line: lineNumber, message: message) }
        func numbers(_ words: ArraySlice<Substring>, count: Int, for what: String) throws -> [Double] {
            guard words.count == count else {
                throw fail("\(what) needs \(count) numbers, found \(words.count)")
            }
            return try words.map { word in
                guard let value = Double(word), value.isFinite else {
                    throw fail("'\(Self.quoted(word))' is not a finite number")
                }
                return value
            }
        }

        var body = Substring(text)
        if body.hasPrefix("\u{FEFF}") { body = body.dropFirst() }
        // Swift reads CR LF as one Character, so split on any line break.
        for rawLine in body.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            let words = rawLine.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let first = words.first, !first.hasPrefix("#") else { continue }
            if let lead = first.unicodeScalars.first, CharacterSet(charactersIn: "0123456789+-.").contains(lead) {
                guard let size else { throw fail("table data before LUT_3D_SIZE") }
                guard values.count < 3 * size * size * size else {
                    throw fail("more table lines than LUT_3D_SIZE \(size) allows (\(size * size * size))")
                }
                values += try numbers(words[...], count: 3, for: "a table line (R G B)").map(Float.init)
                continue
            }
            guard values.isEmpty else { throw fail("keyword \(first) after the table data (keywords come first)") }
            let arguments = words.dropFirst()
            switch first {
            case "TITLE":
                guard title == nil else { throw fail("TITLE given twice") }
                let rest = rawLine.drop { $0 != "\"" }.trimmingCharacters(in: .whitespacesAndNewlines)
                guard rest.count >= 2, rest.hasPrefix("\""), rest.hasSuffix("\"") else {
                    throw fail("TITLE needs a quoted string")
                }
                title = String(rest.dropFirst().dropLast())
            case "LUT_3D_SIZE":
                guard size == nil else { throw fail("LUT_3D_SIZE given twice") }
                guard arguments.count == 1, let n = Int(arguments.first!), Self.sizes.contains(n) else {
                    throw fail(
                        "LUT_3D_SIZE needs one whole number from \(Self.sizes.lowerBound) to \(Self.sizes.upperBound)")
                }
                size = n
            case "DOMAIN_MIN", "DOMAIN_MAX":
                let triple = try numbers(arguments, count: 3, for: String(first))
                let value = SIMD3(triple[0], triple[1], triple[2])
                if first == "DOMAIN_MIN" {
                    guard domainMin == nil else { throw fail("the domain minimum is given twice") }
                    domainMin = value
                } else {
                    guard domainMax == nil else { throw fail("the domain maximum is given twice") }
                    domainMax = value
                }
                domainLine = lineNumber
            case "LUT_3D_INPUT_RANGE":
                let pair = try numbers(arguments, count: 2, for: "LUT_3D_INPUT_RANGE")
                guard domainMin == nil, domainMax == nil else { throw fail("the domain is given twice") }
                domainMin = SIMD3(repeating: pair[0])
                domainMax = SIMD3(repeating: pair[1])
                domainLine = lineNumber
            case "LUT_1D_SIZE", "LUT_1D_INPUT_RANGE":
                throw fail("1D LUTs (\(first)) are not supported: give a 3D LUT")
            default:
                throw fail("unknown keyword '\(Self.quoted(first))'")
            }
        }
        let low = domainMin ?? SIMD3(repeating: 0)
        let high = domainMax ?? SIMD3(repeating: 1)
        guard (0..<3).allSatisfy({ low[$0] < high[$0] }) else {
            lineNumber = domainLine
            throw fail("the domain minimum must be below the maximum in every channel")
        }
        guard let size else { throw fail("no LUT_3D_SIZE") }
        let expected = size * size * size
        guard values.count == 3 * expected else {
            throw fail("LUT_3D_SIZE \(size) needs \(expected) table lines, found \(values.count / 3)")
        }
        self.title = title
        self.size = size
        self.domainMin = low
        self.domainMax = high
        self.values = values
    }

    /// Table entry (r, g, b), each index 0..<size.
    public func entry(r: Int, g: Int, b: Int) -> SIMD3<Double> {
        let i = 3 * (r + size * (g + size * b))
        return SIMD3(Double(values[i]), Double(values[i + 1]), Double(values[i + 2]))
    }
}
