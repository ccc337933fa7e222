extension ProResFrameHeader {
    /// An interlaced frame whose bytes end with its first field (RDD 36: a
    /// frame holds one picture per field). FFmpeg then returns the frame as
    /// decoded with the second field's lines untouched — whatever the pooled
    /// surface held before — and the GPU decoder wrote nothing there either:
    /// both now conceal those lines (video black, neutral chroma, opaque)
    /// and report the frame damaged. `bytes` is the whole sample.
    public func secondFieldIsMissing(in bytes: UnsafeRawBufferPointer) -> Bool {
        guard fieldOrder != .progressive else { return false }
        let picture = 8 + headerSize
        guard picture + 5 <= bytes.count else { return false }  // no first field either: the decoder's damage
        let size =
            Int(bytes[picture + 1]) << 24 | Int(bytes[picture + 2]) << 16 | Int(bytes[picture + 3]) << 8
            | Int(bytes[picture + 4])
        return bytes.count - picture - size <= 0
    }

    /// The damage a frame with `secondFieldIsMissing` is reported with.
    public static let missingSecondField = "the second field is missing; its lines were concealed"
}
