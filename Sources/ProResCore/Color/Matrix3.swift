/// A 3×3 matrix of Doubles, stored by rows.
///
/// Why: every colour conversion in this module (RGB→XYZ, chromatic
/// adaptation, gamut mapping, Y'CbCr→R'G'B') is a 3×3 linear map, and the
/// maths is done once on the CPU in Double before being handed to the shader
/// as Floats (libplacebo's habit). Kept tiny and free of dependencies so the
/// derivations stay readable and testable.
public struct Matrix3: Equatable, Sendable, CustomStringConvertible {
    public var row0: SIMD3<Double>
    public var row1: SIMD3<Double>
    public var row2: SIMD3<Double>

    public init(_ row0: SIMD3<Double>, _ row1: SIMD3<Double>, _ row2: SIMD3<Double>) {
        self.row0 = row0
        self.row1 = row1
        self.row2 = row2
    }

    /// From three rows of three values each (row-major, as matrices are printed).
    public init(rows: [[Double]]) {
        precondition(rows.count == 3 && rows.allSatisfy { $0.count == 3 }, "Matrix3 needs 3 rows of 3")
        self.init(
            SIMD3(rows[0][0], rows[0][1], rows[0][2]),
            SIMD3(rows[1][0], rows[1][1], rows[1][2]),
            SIMD3(rows[2][0], rows[2][1], rows[2][2]))
    }

    /// From three columns.
    public init(columns c0: SIMD3<Double>, _ c1: SIMD3<Double>, _ c2: SIMD3<Double>) {
        self.init(SIMD3(c0.x, c1.x, c2.x), SIMD3(c0.y, c1.y, c2.y), SIMD3(c0.z, c1.z, c2.z))
    }

    public init(diagonal d: SIMD3<Double>) {
        self.init(SIMD3(d.x, 0, 0), SIMD3(0, d.y, 0), SIMD3(0, 0, d.z))
    }

    public static let identity = Matrix3(diagonal: SIMD3(1, 1, 1))

    /// Element at (row, column), both 0-based.
    public subscript(row: Int, column: Int) -> Double {
        get { rows[row][column] }
        set {
            switch row {
            case 0: row0[column] = newValue
            case 1: row1[column] = newValue
            default:
                precondition(row == 2, "row out of range")
                row2[column] = newValue
            }
        }
    }

    public var rows: [SIMD3<Double>] { [row0, row1, row2] }

    /// Column j (0-based).
    public func column(_ j: Int) -> SIMD3<Double> { SIMD3(row0[j], row1[j], row2[j]) }

    public var transposed: Matrix3 { Matrix3(columns: row0, row1, row2) }

    public var determinant: Double { Matrix3.dot(row0, Matrix3.cross(row1, row2)) }

    /// The inverse, or nil when the matrix is singular (|det| below 1e-300).
    /// For rows a, b, c the inverse's columns are b×c, c×a, a×b divided by
    /// the determinant a·(b×c) (the adjugate written with cross products).
    public var inverse: Matrix3? {
        let det = determinant
        guard abs(det) > 1e-300, det.isFinite else { return nil }
        return Matrix3(
            columns: Matrix3.cross(row1, row2) / det,
            Matrix3.cross(row2, row0) / det,
            Matrix3.cross(row0, row1) / det)
    }

    /// Matrix × column vector.
    public func apply(_ v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(Matrix3.dot(row0, v), Matrix3.dot(row1, v), Matrix3.dot(row2, v))
    }

    public static func * (m: Matrix3, v: SIMD3<Double>) -> SIMD3<Double> { m.apply(v) }

    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(columns: a.apply(b.column(0)), a.apply(b.column(1)), a.apply(b.column(2)))
    }

    /// Largest absolute element-wise difference, for tests and sanity checks.
    public func maxAbsDifference(_ other: Matrix3) -> Double {
        let d = [row0 - other.row0, row1 - other.row1, row2 - other.row2]
        return d.map { max(abs($0.x), abs($0.y), abs($0.z)) }.max()!
    }

    public var description: String {
        rows.map { "[\($0.x), \($0.y), \($0.z)]" }.joined(separator: "\n")
    }

    static func dot(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
        a.x * b.x + a.y * b.y + a.z * b.z
    }

    static func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }
}
