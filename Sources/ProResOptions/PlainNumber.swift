/// The one reader of numbers that come from outside (options, the
/// environment's settings, the engines' shard variables), so that every
/// place takes the same spelling: a plain decimal, an optional leading `-`
/// then ASCII digits (and for a real number one `.` among them). No `+`,
/// no exponent, no spaces, no `0x`, `nan` or `inf`: `Int("+2")` and
/// `Double("1e5")` take those, and a number the docs do not describe must
/// not slip through where it means something else.
package enum PlainNumber {
    /// A whole number inside `range`; nil for any other text, for one that
    /// does not fit an `Int`, or for one outside `range`.
    package static func integer<Text: StringProtocol>(_ text: Text, in range: ClosedRange<Int> = Int.min...Int.max)
        -> Int?
    {
        var digits = Substring(text).utf8[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty else { return nil }
        var value = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let digit = Int(byte - UInt8(ascii: "0"))
            // Built towards the sign so Int.min, whose magnitude Int.max cannot hold, reads too.
            let (scaled, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowB) =
                negative ? scaled.subtractingReportingOverflow(digit) : scaled.addingReportingOverflow(digit)
            guard !overflowA, !overflowB else { return nil }
            value = next
        }
        return range.contains(value) ? value : nil
    }

    /// A finite number: `-`, digits, and at most one `.` with a digit on
    /// at least one side of it; nil for anything else.
    package static func real<Text: StringProtocol>(_ text: Text) -> Double? {
        var body = Substring(text).utf8[...]
        if body.first == UInt8(ascii: "-") { body = body.dropFirst() }
        let digitCount = body.filter { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }.count
        let dots = body.filter { $0 == UInt8(ascii: ".") }.count
        guard digitCount > 0, dots <= 1, digitCount + dots == body.count else { return nil }
        return Double(String(text)).flatMap { $0.isFinite ? $0 : nil }
    }
}
