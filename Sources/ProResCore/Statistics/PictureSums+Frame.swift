extension PictureSums {
    /// Measures one planar frame on the CPU: every Y′ sample, every Cb and Cr
    /// sample (out-of-range counts, video range only), every alpha sample,
    /// and the light on `light`'s grid when it is given.
    public init(frame: NativeFrameView, range: ColorRange, light meter: LightLevelMeter?) {
        let limits = VideoRangeLimits(range: range, bitDepth: frame.format.bitDepth)
        var low = Int.max, high = Int.min
        var sum: UInt64 = 0
        var counts = OutOfRangeCounts()
        for y in 0..<frame.height {
            var rowSum: UInt64 = 0
            for sample in frame.row(plane: 0, y: y) {
                let value = Int(sample)
                if value < low { low = value }
                if value > high { high = value }
                rowSum += UInt64(sample)
            }
            sum += rowSum
        }
        if let limits {
            for y in 0..<frame.height {
                counts = counts + Self.outside(frame.row(plane: 0, y: y), limits.lumaLow, limits.lumaHigh, chroma: false)
                for plane in 1...2 {
                    counts = counts + Self.outside(frame.row(plane: plane, y: y), limits.chromaLow, limits.chromaHigh, chroma: true)
                }
            }
        }
        var alpha: AlphaCoverage?
        if frame.format.hasAlpha {
            let opaque = UInt16((1 << frame.format.bitDepth) - 1)
            var zeros: UInt64 = 0, full: UInt64 = 0
            for y in 0..<frame.height {
                for sample in frame.row(plane: 3, y: y) {
                    if sample == 0 { zeros += 1 } else if sample >= opaque { full += 1 }
                }
            }
            alpha = AlphaCoverage(transparent: zeros, opaque: full)
        }
        self.init(lumaMin: low, lumaMax: high, lumaSum: sum, samples: UInt64(frame.width * frame.height), alpha: alpha,
                  outOfRange: limits == nil ? nil : counts, light: meter.map { LightLevel($0.measure(frame)) })
    }

    /// Samples of one row below `low` or above `high`.
    private static func outside(_ row: UnsafeBufferPointer<UInt16>, _ low: Int, _ high: Int, chroma: Bool) -> OutOfRangeCounts {
        var below: UInt64 = 0, above: UInt64 = 0
        for sample in row {
            if Int(sample) < low { below += 1 } else if Int(sample) > high { above += 1 }
        }
        return chroma ? OutOfRangeCounts(chromaBelow: below, chromaAbove: above) : OutOfRangeCounts(lumaBelow: below, lumaAbove: above)
    }
}

extension PictureSums.LightLevel {
    init(_ measured: (peak: Double, average: Double)) {
        self.init(peak: measured.peak, average: measured.average)
    }
}
