extension PictureSums {
    /// Measures one planar frame on the CPU: every Y′ sample (dark ones
    /// counted by `DarkPixels.threshold`), every Cb and Cr
    /// sample (out-of-range counts, video range only), every alpha sample,
    /// and the light on `light`'s grid when it is given.
    public init(
        frame: NativeFrameView, range: ColorRange, light meter: LightLevelMeter?, gamut: GamutMeter? = nil
    ) {
        let limits = VideoRangeLimits(range: range, bitDepth: frame.format.bitDepth)
        // Without limits every code is legal: bounds no code passes (the
        // counts are then left out).
        let lumaLow = limits?.lumaLow ?? 0
        let lumaHigh = limits?.lumaHigh ?? Int(UInt16.max)
        let dark = DarkPixels.threshold(range: range, bitDepth: frame.format.bitDepth)
        var luma = RowScan()
        var counts = OutOfRangeCounts()
        for y in 0..<frame.height {
            let row = RowScan(frame.row(plane: 0, y: y), low: lumaLow, high: lumaHigh, darkAtOrBelow: dark)
            luma.merge(row)
        }
        counts.lumaBelow = luma.below
        counts.lumaAbove = luma.above
        if let limits {
            for y in 0..<frame.height {
                for plane in 1...2 {
                    let row = RowScan(frame.row(plane: plane, y: y), low: limits.chromaLow, high: limits.chromaHigh)
                    counts.chromaBelow += row.below
                    counts.chromaAbove += row.above
                }
            }
        }
        var alpha: AlphaCoverage?
        if frame.format.hasAlpha {
            // Transparent: below 1; opaque: above the largest code less one.
            let opaque = (1 << frame.format.bitDepth) - 1
            var coverage = RowScan()
            for y in 0..<frame.height { coverage.merge(RowScan(frame.row(plane: 3, y: y), low: 1, high: opaque - 1)) }
            alpha = AlphaCoverage(transparent: coverage.below, opaque: coverage.above)
        }
        self.init(
            lumaMin: luma.low, lumaMax: luma.high, lumaSum: luma.sum, darkPixels: luma.dark,
            samples: UInt64(frame.width * frame.height),
            alpha: alpha,
            outOfRange: limits == nil ? nil : counts, light: meter.map { LightLevel($0.measure(frame)) },
            gamut: gamut?.count(frame))
    }
}

/// One pass over rows of samples: their smallest and largest code, their
/// sum, how many lie below `low` or above `high`, and how many at or below
/// `darkAtOrBelow` (none when it is negative). The loop has no
/// branches, so that the compiler vectorises it.
private struct RowScan {
    var low = Int.max, high = Int.min
    var sum: UInt64 = 0
    var below: UInt64 = 0, above: UInt64 = 0
    var dark: UInt64 = 0

    init() {}

    init(_ row: UnsafeBufferPointer<UInt16>, low: Int, high: Int, darkAtOrBelow: Int = -1) {
        // Clamped to codes: no code lies below 0 or above 65,535.
        let lowCode = UInt16(clamping: low)
        let highCode = UInt16(clamping: high)
        var smallest = UInt16.max
        var largest = UInt16.min
        var under: UInt32 = 0
        var over: UInt32 = 0
        var darkCount: UInt32 = 0
        let low32 = Int32(lowCode)
        let high32 = Int32(highCode)
        // value ≤ darkAtOrBelow ⇔ value − (darkAtOrBelow + 1) < 0; clamped so
        // that −1 (count none) and any code stay in range.
        let darkLimit32 = Int32(clamping: max(0, min(darkAtOrBelow + 1, 65_536)))
        guard let base = row.baseAddress else { return }
        // A row's sum fits in 32 bits only in pieces (65,535 samples of 16
        // bits would not): pieces of 4,096 samples. The comparisons are
        // arithmetic, the sign of a difference, not branches.
        var start = 0
        while start < row.count {
            let piece = base + start
            let count = min(row.count - start, 4096)
            var total: UInt32 = 0
            for i in 0..<count {
                let sample = piece[i]
                let value = Int32(sample)
                smallest = min(smallest, sample)
                largest = max(largest, sample)
                total &+= UInt32(sample)
                under &+= UInt32(bitPattern: value &- low32) &>> 31
                over &+= UInt32(bitPattern: high32 &- value) &>> 31
                darkCount &+= UInt32(bitPattern: value &- darkLimit32) &>> 31
            }
            sum += UInt64(total)
            start += count
        }
        if !row.isEmpty {
            self.low = Int(smallest)
            self.high = Int(largest)
        }
        below = UInt64(under)
        above = UInt64(over)
        dark = UInt64(darkCount)
    }

    mutating func merge(_ other: RowScan) {
        low = min(low, other.low)
        high = max(high, other.high)
        sum += other.sum
        below += other.below
        above += other.above
        dark += other.dark
    }
}

extension PictureSums.LightLevel {
    init(_ measured: (peak: Double, average: Double)) {
        self.init(peak: measured.peak, average: measured.average)
    }
}
