import ProResCore

/// Where a decoder that writes packed surfaces decodes a pair of slices
/// first: the native planar samples of two slices side by side, 16 rows of
/// 2 × 128 samples a plane, small enough to stay in the cache until the
/// slices are packed into the surface's rows. So no planar frame is ever
/// written whole and read back.
struct SliceScratch {
    static let width = 256
    static let rows = 16
    /// The second slot's first column (a slice is at most 8 macroblocks wide).
    static let secondSlotColumn = 128
    private let storage: UnsafeMutablePointer<UInt16>

    init() {
        storage = .allocate(capacity: 4 * Self.rows * Self.width)
        storage.initialize(repeating: 0, count: 4 * Self.rows * Self.width)
    }

    func deallocate() { storage.deallocate() }

    func plane(_ index: Int) -> UnsafeMutablePointer<UInt16> { storage + index * Self.rows * Self.width }

    /// Targets over the scratch for slices of `surface`'s frame: the
    /// scratch's own rows, one after the other, in the frame's scan order.
    func targets(for surface: PackedTarget) -> PlaneTargets {
        PlaneTargets(
            planes: (0..<4).map(plane), strides: [Int](repeating: Self.width, count: 4), depth: surface.format.bitDepth,
            chroma444: surface.format.chroma == .c444, interlaced: false, interlacedScan: surface.interlaced,
            alphaBits: surface.alphaBits)
    }

    /// `slice` placed in the scratch's slot `slot`: first macroblock row,
    /// first field, the slot's columns.
    static func placed(_ slice: CPUSlice, slot: Int) -> CPUSlice {
        var placed = slice
        placed.mbX = slot * secondSlotColumn / 16
        placed.mbY = 0
        placed.parity = 0
        return placed
    }

    /// Packs `slice`, decoded into slot `slot`, into its rows of `surface`
    /// (`format`'s samples as `layout`), leaving out rows and columns past
    /// the picture.
    func pack(_ slice: CPUSlice, slot: Int, into surface: PackedTarget) {
        let x0 = slice.mbX * 16
        let width = min(16 << slice.log2Mbs, surface.width - x0)
        guard width > 0 else { return }
        let column = slot * Self.secondSlotColumn
        let chromaColumn = surface.format.chroma == .c444 ? column : column / 2
        let offset = surface.layout == .y416 ? x0 * 4 : x0 * 2
        for y in 0..<Self.rows {
            let pictureRow = slice.mbY * 16 + y
            let row = surface.interlaced ? pictureRow * 2 + slice.parity : pictureRow
            guard row < surface.height else { break }
            let at = y * Self.width
            FramePacker.packRow(
                surface.layout, surface.format, into: surface.row(row) + offset, y: plane(0) + at + column,
                cb: plane(1) + at + chromaColumn, cr: plane(2) + at + chromaColumn,
                alpha: surface.format.hasAlpha ? plane(3) + at + column : nil, width: width)
        }
    }
}

/// A packed surface a frame's slices are packed into.
struct PackedTarget {
    let base: UnsafeMutableRawPointer
    let bytesPerRow: Int
    let layout: PackedLayout
    let format: PlanarFormat
    /// The frame header's alpha type: 0 none, 1 8-bit, 2 16-bit.
    let alphaBits: Int
    let width: Int
    let height: Int
    let interlaced: Bool

    func row(_ index: Int) -> UnsafeMutablePointer<UInt16> {
        (base + index * bytesPerRow).assumingMemoryBound(to: UInt16.self)
    }
}
