/// Where each plane of a surface lives. Planes may have padded rows (the
/// decoder needs aligned strides); consumers read only the visible part.
public struct PlaneLayout: Hashable, Sendable {
    public let offset: Int
    public let bytesPerRow: Int
    /// Bytes of visible samples in one row (≤ bytesPerRow).
    public let visibleBytesPerRow: Int
    public let visibleRows: Int
    public let allocatedRows: Int

    public var isTight: Bool { bytesPerRow == visibleBytesPerRow }
}

/// What a surface holds and how its bytes are arranged.
public struct SurfaceLayout: Hashable, Sendable {
    public enum Content: Hashable, Sendable {
        /// A decoder's planar output (FFmpeg's layout).
        case planar(PlanarFormat)
        /// One of Apple's packed layouts, rows tightly packed.
        case packed(PackedLayout)
    }

    public let content: Content
    public let width: Int
    public let height: Int
    public let planes: [PlaneLayout]
    public let byteCount: Int

    /// Surfaces start on a page boundary so that the GPU can import them
    /// (VK_EXT_external_memory_host) without a copy.
    public static let baseAlignment = 4096

    /// Planar layout with rows padded to `rowAlignment` and `paddedHeight`
    /// rows allocated, as the decoder asks for.
    public static func planar(
        _ format: PlanarFormat, width: Int, height: Int,
        paddedWidth: Int, paddedHeight: Int, rowAlignment: Int
    ) -> SurfaceLayout {
        var planes: [PlaneLayout] = []
        var offset = 0
        for index in 0..<format.planeCount {
            let visible = format.planeWidth(index, width: width) * 2
            let padded = format.planeWidth(index, width: paddedWidth) * 2
            let stride = (padded + rowAlignment - 1) / rowAlignment * rowAlignment
            planes.append(
                PlaneLayout(
                    offset: offset, bytesPerRow: stride, visibleBytesPerRow: visible,
                    visibleRows: height, allocatedRows: paddedHeight))
            offset += stride * paddedHeight
            offset = (offset + rowAlignment - 1) / rowAlignment * rowAlignment
        }
        // Slack past the last plane: SIMD code may read a little beyond a row.
        return SurfaceLayout(
            content: .planar(format), width: width, height: height,
            planes: planes, byteCount: offset + rowAlignment)
    }

    /// One tightly packed plane of y416 or v216.
    public static func packed(_ layout: PackedLayout, width: Int, height: Int) -> SurfaceLayout {
        let row = layout.bytesPerRow(width: width)
        let plane = PlaneLayout(
            offset: 0, bytesPerRow: row, visibleBytesPerRow: row,
            visibleRows: height, allocatedRows: height)
        return SurfaceLayout(
            content: .packed(layout), width: width, height: height,
            planes: [plane], byteCount: row * height)
    }

    /// Bytes of visible data, as written to an output.
    public var visibleByteCount: Int {
        planes.reduce(0) { $0 + $1.visibleBytesPerRow * $1.visibleRows }
    }
}
