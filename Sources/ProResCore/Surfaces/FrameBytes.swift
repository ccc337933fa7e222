/// A frame's bytes as a hash reads them, in order: spans in memory, or the
/// native planar frame (FFmpeg's planes, tight rows) of a packed surface of
/// the decoder's native layout, unpacked a row at a time as it is read, so
/// that hashing the GPU decoder's frames writes no planar frame.
public enum FrameBytes {
    case spans([UnsafeRawBufferPointer])
    /// The planar frame of `format` held by a packed (v216/y416) surface.
    case nativePlanes(of: PixelBuffer, format: PlanarFormat)

    /// How many bytes the frame has.
    public var count: Int {
        switch self {
        case .spans(let spans): return spans.reduce(0) { $0 + $1.count }
        case .nativePlanes(let surface, let format):
            return format.tightByteCount(width: surface.layout.width, height: surface.layout.height)
        }
    }

    /// `body` with each piece in order: a span, or one unpacked row, which
    /// is valid only during the call.
    public func forEachPiece(_ body: (UnsafeRawBufferPointer) -> Void) {
        var reader = FrameBytesReader(self)
        while reader.contiguousCount > 0 {
            let piece = reader.contiguousCount
            body(UnsafeRawBufferPointer(start: reader.current, count: piece))
            reader.skip(piece)
        }
    }

    /// `body` over the bytes as spans; the native planes of a packed surface
    /// are unpacked into a temporary frame first (for users with no row reader).
    public func withSpans<R>(_ body: ([UnsafeRawBufferPointer]) throws -> R) rethrows -> R {
        switch self {
        case .spans(let spans):
            return try body(spans)
        case .nativePlanes:
            var reader = FrameBytesReader(self)
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 64)
            defer { copy.deallocate() }
            if let base = copy.baseAddress { reader.copy(copy.count, to: base) }
            return try body([UnsafeRawBufferPointer(copy)])
        }
    }
}

/// A read position in a frame's bytes: pieces readable in place
/// (`contiguousCount` at `current`), or copied out across pieces. Over
/// native planes, the piece in place is the current row, unpacked into a
/// buffer of the reader's own when the position first reaches it.
struct FrameBytesReader {
    private let spans: [UnsafeRawBufferPointer]
    private var span = 0
    private var offset = 0
    /// Native planes: the surface, its format, the row buffer and the row in it (plane, row).
    private let planes: (surface: PixelBuffer, format: PlanarFormat)?
    private var rowBuffer: RowBuffer?
    private var plane = 0
    private var row = 0

    init(_ bytes: FrameBytes) {
        switch bytes {
        case .spans(let spans):
            self.spans = spans
            planes = nil
        case .nativePlanes(let surface, let format):
            // One span per row of every plane; its bytes come from the row buffer.
            let height = surface.layout.height
            var rows: [UnsafeRawBufferPointer] = []
            rows.reserveCapacity(format.planeCount * height)
            let buffer = RowBuffer(samples: surface.layout.width)
            for index in 0..<format.planeCount {
                let bytes = format.planeWidth(index, width: surface.layout.width) * 2
                rows += repeatElement(UnsafeRawBufferPointer(start: buffer.start, count: bytes), count: height)
            }
            spans = rows
            planes = (surface, format)
            rowBuffer = buffer
        }
        skipEmpty()
    }

    /// Bytes readable in place at `current`.
    var contiguousCount: Int { span < spans.count ? spans[span].count - offset : 0 }

    var current: UnsafeRawPointer { spans[span].baseAddress! + offset }

    /// Moves on `count` bytes, all within the current piece.
    mutating func skip(_ count: Int) {
        offset += count
        skipEmpty()
    }

    /// Copies the next `count` bytes, across pieces, and moves past them.
    mutating func copy(_ count: Int, to destination: UnsafeMutableRawPointer) {
        var copied = 0
        while copied < count {
            let piece = min(count - copied, contiguousCount)
            precondition(piece > 0, "a message ended early: lanes must have equal lengths")
            (destination + copied).copyMemory(from: current, byteCount: piece)
            copied += piece
            skip(piece)
        }
    }

    /// Past the ends of pieces (and empty ones), so `current` has a byte;
    /// over native planes, the row reached is unpacked.
    private mutating func skipEmpty() {
        var moved = offset == 0 && span == 0
        while span < spans.count && offset == spans[span].count {
            span += 1
            offset = 0
            moved = true
        }
        guard moved, span < spans.count, let planes, let rowBuffer else { return }
        let height = planes.surface.layout.height
        (plane, row) = (span / height, span % height)
        FrameUnpacker.unpackRow(row, plane: plane, of: planes.surface, as: planes.format, into: rowBuffer.samples)
    }
}

/// One row of 16-bit samples, freed with the reader that unpacks into it.
private final class RowBuffer {
    let samples: UnsafeMutablePointer<UInt16>
    init(samples count: Int) { samples = .allocate(capacity: max(1, count)) }
    var start: UnsafeRawPointer { UnsafeRawPointer(samples) }
    deinit { samples.deallocate() }
}
