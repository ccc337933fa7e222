/// A message given as spans that, concatenated, form it: a frame's planes,
/// or one span per row. Chunk and block boundaries fall anywhere in them.
struct SpanMessage {
    let spans: [UnsafeRawBufferPointer]
    /// `ends[i]`: the message offset just past span i.
    let ends: [Int]

    init(_ spans: [UnsafeRawBufferPointer]) {
        self.spans = spans
        var end = 0
        ends = spans.map {
            end += $0.count
            return end
        }
    }

    var count: Int { ends.last ?? 0 }

    /// A reader positioned at message offset `offset` (a task's first chunk).
    func reader(at offset: Int) -> SpanReader {
        // The first span that ends after `offset` holds it (empty spans never do).
        var low = 0
        var high = spans.count
        while low < high {
            let middle = (low + high) / 2
            if ends[middle] > offset { high = middle } else { low = middle + 1 }
        }
        let start = low < spans.count ? ends[low] - spans[low].count : offset
        return SpanReader(spans: spans, span: low, offset: offset - start)
    }
}

/// Reads a `SpanMessage` forwards, across span boundaries.
struct SpanReader {
    private let spans: [UnsafeRawBufferPointer]
    /// The span being read: its index, where the reader is in it and the
    /// bytes left there (kept apart from the array so that the common case,
    /// a block inside one span, touches no array).
    private var span: Int
    private var position: UnsafeRawPointer?
    private var left: Int

    init(spans: [UnsafeRawBufferPointer], span: Int, offset: Int) {
        self.spans = spans
        self.span = span
        let current = span < spans.count ? spans[span] : UnsafeRawBufferPointer(start: nil, count: 0)
        position = current.baseAddress.map { $0 + offset }
        left = current.count - offset
    }

    /// Copies the next `count` bytes to `destination` (the caller knows the
    /// message holds them).
    @inline(__always)
    mutating func read(_ count: Int, into destination: UnsafeMutableRawPointer) {
        if count <= left {
            if count > 0 { destination.copyMemory(from: position!, byteCount: count) }
            position = position.map { $0 + count }
            left -= count
        } else {
            readAcrossSpans(count, into: destination)
        }
    }

    /// The next `count` bytes where they lie when one span holds them all,
    /// else copied to `scratch` (`count` of them) and read there.
    @inline(__always)
    mutating func next(_ count: Int, copyingAcrossSpansTo scratch: UnsafeMutableRawPointer) -> UnsafeRawPointer {
        guard count <= left, let start = position else {
            read(count, into: scratch)
            return UnsafeRawPointer(scratch)
        }
        position = start + count
        left -= count
        return start
    }

    private mutating func readAcrossSpans(_ count: Int, into destination: UnsafeMutableRawPointer) {
        var done = 0
        while done < count {
            if left == 0 {
                span += 1
                position = spans[span].baseAddress
                left = spans[span].count
                continue
            }
            let n = min(left, count - done)
            (destination + done).copyMemory(from: position!, byteCount: n)
            position! += n
            left -= n
            done += n
        }
    }
}
