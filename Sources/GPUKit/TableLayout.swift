/// A table the host writes into a buffer and shaders read: fixed-size
/// entries of 32-bit words holding bit fields and word arrays. Declared once;
/// the host packs with the fields (`BitField.encode`), the shader reads with
/// the accessors `glsl` generates, so a field's position exists in one place.
public struct TableLayout: Sendable {
    /// How the shader reads an entry.
    public enum Access: Sendable {
        /// Loaded whole as uvec4s from the binding named (member `uvec4 words[]`):
        /// `Name loadName(uint entry)`, then `uint nameField(Name e)`.
        case vector(binding: String)
        /// Read word by word from the binding named (member `uint words[]`):
        /// `uint nameField(uint entry)`, `uint nameArray(uint entry, uint i)`.
        case scalar(binding: String)
    }

    /// Lower camel case; prefixes every generated name.
    public let name: String
    public let words: Int
    public let fields: [BitField]
    public let arrays: [WordArray]
    public let access: Access

    public init(_ name: String, words: Int, access: Access, fields: [BitField], arrays: [WordArray] = []) {
        self.name = name
        self.words = words
        self.access = access
        self.fields = fields
        self.arrays = arrays
        if case .vector = access { precondition(words % 4 == 0, "\(name): a vector table's entries are whole uvec4s") }
        var used = [UInt32](repeating: 0, count: words)
        for field in fields {
            precondition(
                field.word < words && field.shift + field.bits <= 32, "\(name).\(field.name) lies outside its entry")
            precondition(
                used[field.word] & field.mask << field.shift == 0, "\(name).\(field.name) overlaps another field")
            used[field.word] |= field.mask << field.shift
        }
        for array in arrays {
            precondition(array.word + array.count <= words, "\(name).\(array.name) lies outside its entry")
            for w in array.word..<array.word + array.count {
                precondition(used[w] == 0, "\(name).\(array.name) overlaps another field")
                used[w] = ~0
            }
        }
    }

    private var typeName: String { name.upperFirst }

    var glsl: String {
        var lines = ["const uint \(constantName)_WORDS = \(words)u;"]
        switch access {
        case .vector(let binding):
            let vectors = words / 4
            lines.append("struct \(typeName) { " + (0..<vectors).map { "uvec4 v\($0);" }.joined(separator: " ") + " };")
            let loads = (0..<vectors).map { "\(binding).words[\(vectors)u * i + \($0)u]" }.joined(separator: ", ")
            lines.append("\(typeName) load\(typeName)(uint i) { return \(typeName)(\(loads)); }")
            for field in fields {
                let word = "e.v\(field.word / 4).\(["x", "y", "z", "w"][field.word % 4])"
                lines.append("uint \(accessor(field.name))(\(typeName) e) { return \(field.extraction(word)); }")
            }
            precondition(arrays.isEmpty, "\(name): word arrays need scalar access")
        case .scalar(let binding):
            for field in fields {
                let word = "\(binding).words[i * \(words)u + \(field.word)u]"
                lines.append("uint \(accessor(field.name))(uint i) { return \(field.extraction(word)); }")
            }
            for array in arrays {
                lines.append(
                    "uint \(accessor(array.name))(uint i, uint k) { return \(binding).words[i * \(words)u + \(array.word)u + k]; }"
                )
            }
        }
        return lines.joined(separator: "\n")
    }

    private var constantName: String {
        name.reduce(into: "") { result, c in result += c.isUppercase ? "_" + String(c) : String(c).uppercased() }
    }

    private func accessor(_ field: StaticString) -> String {
        name + "\(field)".upperFirst
    }
}

/// `bits` bits at `shift` of word `word` of a table entry.
public struct BitField: Sendable {
    /// A StaticString: copying a field costs no reference counting in hot loops.
    public let name: StaticString
    public let word: Int
    public let shift: Int
    public let bits: Int

    public init(_ name: StaticString, word: Int, shift: Int = 0, bits: Int = 32) {
        self.name = name
        self.word = word
        self.shift = shift
        self.bits = bits
    }

    @inlinable
    public var mask: UInt32 { bits == 32 ? ~0 : (1 << UInt32(bits)) - 1 }

    /// `value` in place, to be or-ed into the field's word. A value that does
    /// not fit is a bug of the caller, never silently cut. Inlinable: the
    /// slice parser packs a dozen fields a slice, thousands of slices a frame.
    @inlinable @inline(__always)
    public func encode(_ value: Int) -> UInt32 {
        precondition(value >= 0 && UInt64(value) <= UInt64(mask), "\(name): \(value) does not fit \(bits) bits")
        return UInt32(value) << UInt32(shift)
    }

    @inlinable
    public func encode(_ flag: Bool) -> UInt32 { encode(flag ? 1 : 0) }

    /// The field's value in an entry.
    public func decode(_ entry: [UInt32]) -> Int { Int(entry[word] >> UInt32(shift) & mask) }

    func extraction(_ word: String) -> String {
        if bits == 32 { return word }
        let shifted = shift == 0 ? word : "(\(word) >> \(shift)u)"
        return shift + bits == 32 ? shifted : "\(shifted) & 0x\(String(mask, radix: 16, uppercase: true))u"
    }
}

/// `count` whole words from `word` on (e.g. a quantisation matrix's bytes).
public struct WordArray: Sendable {
    public let name: StaticString
    public let word: Int
    public let count: Int

    public init(_ name: StaticString, word: Int, count: Int) {
        self.name = name
        self.word = word
        self.count = count
    }
}
