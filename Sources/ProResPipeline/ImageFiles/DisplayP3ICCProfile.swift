import ProResCore

/// An ICC v4.3 display profile for Display P3: P3 primaries, D65 white,
/// the sRGB tone curve (ICC.1:2022 matrix/TRC model).
///
/// Why generated, not embedded: every number comes from the same
/// chromaticities the conversion uses (`ColorPrimariesSpec.displayP3`), and
/// the maths is the ICC's: colorants are the RGB→XYZ matrix adapted from D65
/// to the D50 connection space with Bradford, and `chad` records that
/// adaptation, as v4 requires when the device white is not D50.
enum DisplayP3ICCProfile {
    /// ICC.1's D50 connection-space illuminant, as the header's encoded value.
    public static let d50 = SIMD3<Double>(0.9642, 1.0, 0.8249)

    /// Bradford D65 → D50.
    public static var adaptation: Matrix3 {
        ChromaticAdaptation.bradford(fromWhite: CIExy.d65.xyzUnitLuminance, toWhite: d50)
    }

    /// Linear Display P3 → D50 PCS XYZ; its columns are rXYZ, gXYZ, bXYZ.
    public static var colorants: Matrix3 {
        adaptation * ColorPrimariesSpec.displayP3.chromaticities.rgbToXYZ
    }

    /// The profile's bytes (deterministic: fixed creation date, no profile ID).
    public static let bytes: [UInt8] = build()

    private static func build() -> [UInt8] {
        let m = colorants
        let column = { (c: Int) in SIMD3(m[0, c], m[1, c], m[2, c]) }
        let curve = ICCTag.sRGBCurve
        let tags: [(String, [UInt8])] = [
            ("desc", ICCTag.text("Display P3 (D65, sRGB curve)")),
            ("cprt", ICCTag.text("No copyright, use freely")),
            ("wtpt", ICCTag.xyz(d50)),
            ("chad", ICCTag.s15Fixed16Array(adaptation)),
            ("rXYZ", ICCTag.xyz(column(0))), ("gXYZ", ICCTag.xyz(column(1))), ("bXYZ", ICCTag.xyz(column(2))),
            ("rTRC", curve), ("gTRC", curve), ("bTRC", curve),
        ]
        // Tag table after the 128-byte header; each element starts on a
        // 4-byte boundary. The three TRCs share one element, as ICC allows.
        var data: [UInt8] = []
        var entries: [(String, Int, Int)] = []
        var placed: [[UInt8]: Int] = [:]
        let dataStart = 128 + 4 + tags.count * 12
        for (signature, element) in tags {
            let offset: Int
            if let earlier = placed[element] {
                offset = earlier
            } else {
                offset = dataStart + data.count
                placed[element] = offset
                data.append(contentsOf: element)
                while data.count % 4 != 0 { data.append(0) }
            }
            entries.append((signature, offset, element.count))
        }
        var out = header(size: dataStart + data.count)
        out.appendBigEndian(UInt32(tags.count))
        for (signature, offset, size) in entries {
            out.append(contentsOf: Array(signature.utf8))
            out.appendBigEndian(UInt32(offset))
            out.appendBigEndian(UInt32(size))
        }
        return out + data
    }

    /// ICC.1 section 7.2: the 128-byte profile header.
    private static func header(size: Int) -> [UInt8] {
        var h: [UInt8] = []
        h.appendBigEndian(UInt32(size))
        h.appendBigEndian(UInt32(0))  // preferred CMM: none
        h.appendBigEndian(UInt32(0x0430_0000))  // version 4.3
        h += Array("mntrRGB XYZ ".utf8)  // display class, RGB data, XYZ connection space
        for field: UInt16 in [2024, 1, 1, 0, 0, 0] { h.appendBigEndian(field) }  // creation date (fixed)
        h += Array("acsp".utf8)
        h.appendBigEndian(UInt32(0))  // platform
        h.appendBigEndian(UInt32(0))  // flags: not embedded-only, usable independently
        h.appendBigEndian(UInt32(0))  // device manufacturer
        h.appendBigEndian(UInt32(0))  // device model
        h.appendBigEndian(UInt64(0))  // device attributes: reflective, glossy, positive, colour
        h.appendBigEndian(UInt32(0))  // rendering intent: perceptual
        h += ICCTag.s15Fixed16(d50)  // connection-space illuminant
        h.appendBigEndian(UInt32(0))  // creator
        h += [UInt8](repeating: 0, count: 16)  // profile ID: 0 = not computed
        h += [UInt8](repeating: 0, count: 28)  // reserved
        precondition(h.count == 128)
        return h
    }
}

/// ICC tag element encodings (ICC.1 section 10).
enum ICCTag {
    /// s15Fixed16Number: a signed 32-bit value in units of 1/65536.
    static func s15Fixed16(_ values: SIMD3<Double>) -> [UInt8] {
        var out: [UInt8] = []
        for v in [values.x, values.y, values.z] { out.appendBigEndian(Int32((v * 65536).rounded())) }
        return out
    }

    /// XYZType: one XYZ number.
    static func xyz(_ value: SIMD3<Double>) -> [UInt8] {
        Array("XYZ ".utf8) + [0, 0, 0, 0] + s15Fixed16(value)
    }

    /// s15Fixed16ArrayType: a 3×3 matrix in row order (`chad`).
    static func s15Fixed16Array(_ m: Matrix3) -> [UInt8] {
        Array("sf32".utf8) + [0, 0, 0, 0] + s15Fixed16(m.row0) + s15Fixed16(m.row1) + s15Fixed16(m.row2)
    }

    /// multiLocalizedUnicodeType with one en-US record, UTF-16BE.
    static func text(_ string: String) -> [UInt8] {
        let utf16 = Array(string.utf16)
        var out = Array("mluc".utf8) + [0, 0, 0, 0]
        out.appendBigEndian(UInt32(1))  // records
        out.appendBigEndian(UInt32(12))  // record size
        out += Array("enUS".utf8)
        out.appendBigEndian(UInt32(utf16.count * 2))
        out.appendBigEndian(UInt32(28))  // string offset from the element's start
        for unit in utf16 { out.appendBigEndian(unit) }
        return out
    }

    /// parametricCurveType, function 3: Y = (aX + b)^g for X ≥ d, else cX —
    /// IEC 61966-2-1's sRGB decoding with g 2.4, a 1/1.055, b 0.055/1.055,
    /// c 1/12.92, d 0.04045.
    static let sRGBCurve: [UInt8] = {
        var out = Array("para".utf8) + [0, 0, 0, 0]
        out.appendBigEndian(UInt16(3))
        out.appendBigEndian(UInt16(0))
        for v in [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045] {
            out.appendBigEndian(Int32((v * 65536).rounded()))
        }
        return out
    }()
}
