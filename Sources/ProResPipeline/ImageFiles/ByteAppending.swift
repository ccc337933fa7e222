import ProResCore

/// Fixed-width integers appended in a file format's byte order.
///
/// Why: EXR headers are little-endian and PNG/ICC are big-endian; writing each
/// field through one of these keeps the order explicit at every call site.
extension Array where Element == UInt8 {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    /// The bytes of `text` (ASCII in every use here) followed by a 0 byte.
    mutating func appendNulTerminated(_ text: String) {
        append(contentsOf: Array(text.utf8))
        append(0)
    }

    /// Reads a little-endian integer at `offset`; the caller checks bounds.
    func littleEndian<T: FixedWidthInteger>(at offset: Int, as: T.Type) -> T {
        var value: T = 0
        Swift.withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: self[offset..<offset + MemoryLayout<T>.size]) }
        return T(littleEndian: value)
    }

    /// Reads a big-endian integer at `offset`; the caller checks bounds.
    func bigEndian<T: FixedWidthInteger>(at offset: Int, as: T.Type) -> T {
        var value: T = 0
        Swift.withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: self[offset..<offset + MemoryLayout<T>.size]) }
        return T(bigEndian: value)
    }
}
