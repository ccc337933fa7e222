import ProResCore

/// Pixels of the light grid (every 4th of every 4th row) whose R′G′B′ lies
/// outside [−0.01, 1.01], for 10-bit video-range BT.709 written out here
/// from Kr and Kb (R′ = Y′ + 2(1 − Kr)·Pr, B′ = Y′ + 2(1 − Kb)·Pb,
/// G′ = (Y′ − Kr·R′ − Kb·B′)/Kg), in float64: the reference of `GamutMeter`.
/// `sample(plane, x, y)` reads the native planes, 4:2:2 chroma at x/2.
func referenceGamutBT709(
    width: Int, height: Int, sample: (Int, Int, Int) -> UInt16
) -> PictureSums.GamutCount {
    let (kr, kb) = (0.2126, 0.0722)
    let kg = 1 - kr - kb
    var outside: UInt64 = 0
    var points: UInt64 = 0
    for y in stride(from: 0, to: height, by: 4) {
        for x in stride(from: 0, to: width, by: 4) {
            let luma = (Double(sample(0, x, y)) - 64) / 876
            let pb = (Double(sample(1, x / 2, y)) - 512) / 896
            let pr = (Double(sample(2, x / 2, y)) - 512) / 896
            let r = luma + 2 * (1 - kr) * pr
            let b = luma + 2 * (1 - kb) * pb
            let g = (luma - kr * r - kb * b) / kg
            points += 1
            if [r, g, b].contains(where: { $0 < -0.01 || $0 > 1.01 }) { outside += 1 }
        }
    }
    return .init(outside: outside, points: points)
}
