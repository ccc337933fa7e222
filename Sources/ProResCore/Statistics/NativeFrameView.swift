/// Row-by-row access to one frame in the decoder's planar format, given as
/// the spans a `FrameSink` receives: planes Y', Cb, Cr, [A] in order, 16-bit
/// little-endian, LSB-aligned samples.
///
/// Why: a sink sees the visible bytes as whole planes (tight rows) or as one
/// span per row (padded rows), never a split row. Locating each row once
/// lets the statistics read any sample without copying the frame.
public struct NativeFrameView {
    public let format: PlanarFormat
    public let width: Int
    public let height: Int
    /// rows[plane][y]: the first sample of that row.
    private let rows: [[UnsafePointer<UInt16>]]

    /// Nil when the spans do not hold exactly one such frame.
    public init?(spans: [UnsafeRawBufferPointer], format: PlanarFormat, width: Int, height: Int) {
        var rows: [[UnsafePointer<UInt16>]] = []
        var spanIndex = 0
        var offset = 0
        for plane in 0..<format.planeCount {
            let rowBytes = format.planeWidth(plane, width: width) * 2
            var planeRows: [UnsafePointer<UInt16>] = []
            planeRows.reserveCapacity(height)
            for _ in 0..<height {
                while spanIndex < spans.count, offset == spans[spanIndex].count {
                    spanIndex += 1
                    offset = 0
                }
                guard spanIndex < spans.count, spans[spanIndex].count - offset >= rowBytes,
                    let base = spans[spanIndex].baseAddress
                else { return nil }
                // The decoder wrote these bytes as uint16_t; they stay bound so.
                planeRows.append((base + offset).assumingMemoryBound(to: UInt16.self))
                offset += rowBytes
            }
            rows.append(planeRows)
        }
        while spanIndex < spans.count, offset == spans[spanIndex].count {
            spanIndex += 1
            offset = 0
        }
        guard spanIndex == spans.count else { return nil }
        self.format = format
        self.width = width
        self.height = height
        self.rows = rows
    }

    /// Plane 0 Y', 1 Cb, 2 Cr, 3 A.
    public func row(plane: Int, y: Int) -> UnsafeBufferPointer<UInt16> {
        UnsafeBufferPointer(start: rows[plane][y], count: format.planeWidth(plane, width: width))
    }
}
