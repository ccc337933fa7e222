import HostSupport

/// Parses `--effect SPEC` (docs/colour.md, "Effects", lists the grammar):
///
///     sepia[:AMOUNT]          AMOUNT 0…1, default 1
///     exposure:STOPS          −20…20
///     saturation:S            0…10
///     chroma-key:color=R,G,B[,tolerance=T][,softness=S]    R, G, B 0…1; T, S 0…2
///     lut:FILE.cube[,shaper=pq|linear]
///
/// A malformed spec is a usage error naming it; a LUT file is read here, so a
/// bad .cube fails before anything is decoded or written (`CubeLUTError`).
public enum EffectParser {
    public static let names = ["sepia", "exposure", "saturation", "chroma-key", "lut"]

    /// `referenceWhite` is the run's (`--reference-white`): the LUT's PQ shaper needs it.
    public static func parse(_ text: String, referenceWhite: Double) throws -> Effect {
        func invalid(_ why: String) -> ProResDecodeError { .badRequest(.invalidEffect(spec: text, why: why)) }
        let name = String(text.prefix { $0 != ":" })
        let argument = text.count > name.count ? String(text.dropFirst(name.count + 1)) : nil
        func number(_ word: Substring, _ what: String, in range: ClosedRange<Double>) throws -> Double {
            guard let value = Double(word), value.isFinite, range.contains(value) else {
                throw invalid(
                    "\(what) must be a number from \(format(range.lowerBound)) to \(format(range.upperBound)), not '\(word)'"
                )
            }
            return value
        }
        func required() throws -> Substring {
            guard let argument, !argument.isEmpty else { throw invalid("\(name) needs a value (\(name):…)") }
            return Substring(argument)
        }
        switch name {
        case "sepia":
            return .sepia(amount: try argument.map { try number(Substring($0), "the amount", in: 0...1) } ?? 1)
        case "exposure":
            return .exposure(stops: try number(try required(), "stops", in: -20...20))
        case "saturation":
            return .saturation(factor: try number(try required(), "the saturation", in: 0...10))
        case "chroma-key":
            // "color=0,1,0,tolerance=0.2": a word without '=' continues the previous key's list.
            var fields: [(key: String, values: [Substring])] = []
            for word in try required().split(separator: ",", omittingEmptySubsequences: false) {
                if let equals = word.firstIndex(of: "=") {
                    let key = String(word[..<equals])
                    guard ["color", "tolerance", "softness"].contains(key) else {
                        throw invalid("unknown chroma-key setting '\(key)' (expected color, tolerance, softness)")
                    }
                    guard !fields.contains(where: { $0.key == key }) else { throw invalid("\(key) given twice") }
                    fields.append((key, [word[word.index(after: equals)...]]))
                } else {
                    guard !fields.isEmpty else { throw invalid("expected color=R,G,B") }
                    fields[fields.count - 1].values.append(word)
                }
            }
            func values(_ key: String) -> [Substring]? { fields.first { $0.key == key }?.values }
            guard let color = values("color") else { throw invalid("chroma-key needs color=R,G,B") }
            guard color.count == 3 else { throw invalid("color needs three values R,G,B, found \(color.count)") }
            let rgb = try color.map { try number($0, "a key colour component", in: 0...1) }
            func single(_ key: String, _ fallback: Double) throws -> Double {
                guard let list = values(key) else { return fallback }
                guard list.count == 1 else { throw invalid("\(key) takes one value") }
                return try number(list[0], key, in: 0...2)
            }
            return .chromaKey(
                ChromaKey(
                    color: SIMD3(rgb[0], rgb[1], rgb[2]),
                    tolerance: try single("tolerance", ChromaKey.defaultTolerance),
                    softness: try single("softness", ChromaKey.defaultSoftness)))
        case "lut":
            var path = String(try required())
            var shaper = LUTEffect.Shaper.pq(referenceWhite: referenceWhite)
            if let comma = path.lastIndex(of: ","), path[path.index(after: comma)...].hasPrefix("shaper=") {
                switch path[path.index(after: comma)...].dropFirst("shaper=".count) {
                case "pq": break
                case "linear": shaper = .linear
                case let other: throw invalid("unknown shaper '\(other)' (expected pq or linear)")
                }
                path = String(path[..<comma])
            }
            guard !path.isEmpty else { throw invalid("lut needs a file (lut:FILE.cube)") }
            return .lut(LUTEffect(path: path, lut: try CubeLUT(contentsOf: path), shaper: shaper))
        default:
            throw invalid("unknown effect '\(name)' (expected \(names.joined(separator: ", ")))")
        }
    }

    /// Numbers in effect descriptions: up to 6 decimals, no trailing zeros.
    static func format(_ value: Double) -> String { JSON.number(value, digits: 6) }
}
