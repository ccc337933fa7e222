/// A seeded generator (SplitMix64), so that every failure reproduces from
/// the seed the test prints.
struct KernelRandom: RandomNumberGenerator {
    private(set) var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `range` (closed).
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(next() % span)
    }

    mutating func int(_ range: Range<Int>) -> Int { int(range.lowerBound...range.upperBound - 1) }

    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { unit() < p }

    mutating func pick<T>(_ values: [T]) -> T { values[int(0..<values.count)] }
}
