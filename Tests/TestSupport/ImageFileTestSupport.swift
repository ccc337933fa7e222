import Foundation
import XCTest

/// Another program's run: what it printed and how it ended.
struct ExternalRun {
    let status: Int32
    let stdout: Data
    let stderr: String
    var text: String { String(decoding: stdout, as: UTF8.self) }
}

struct ExternalToolMissing: Error, CustomStringConvertible {
    let description: String
}

/// Runs `arguments[0]` from PATH. A reader that is not installed fails the
/// test: a skipped independent check must not read as a pass (`make deps`
/// installs every one, from the Makefile's APT_PACKAGES).
func runExternal(_ arguments: [String], stdin: Data? = nil) throws -> ExternalRun {
    let which = Process()
    which.executableURL = URL(fileURLWithPath: "/bin/sh")
    which.arguments = ["-c", "command -v \"$0\" >/dev/null", arguments[0]]
    try which.run()
    which.waitUntilExit()
    guard which.terminationStatus == 0 else {
        throw ExternalToolMissing(description: "\(arguments[0]) is not installed: run make deps")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    let input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = stdin == nil ? FileHandle.nullDevice : input
    try process.run()
    if let stdin {
        try input.fileHandleForWriting.write(contentsOf: stdin)
        try input.fileHandleForWriting.close()
    }
    let errData = ToolPipeBytes()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        errData.data = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    group.wait()
    return ExternalRun(
        status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData.data, as: UTF8.self))
}

/// A small ProRes clip made by the ffmpeg CLI with the facts saved pictures
/// must carry: 64×48, 4 frames, sample aspect `sar`, a `tmcd` start time
/// code, and the given transfer (PQ by default, so whiteLuminance applies).
func makeTaggedClip(
    in directory: URL, sar: String = "4/3", rate: String = "25", timecode: String = "01:02:03:04",
    transfer: String = "smpte2084"
) throws -> String {
    let path = directory.appendingPathComponent("tagged.mov").path
    let run = try runExternal([
        "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=\(rate)",
        "-frames:v", "4", "-vf", "setsar=\(sar)", "-c:v", "prores_ks", "-profile:v", "3",
        "-timecode", timecode, "-color_primaries", "bt2020", "-color_trc", transfer,
        "-colorspace", "bt2020nc", path,
    ])
    XCTAssertEqual(run.status, 0, run.stderr)
    return path
}

/// PNG chunks read by Python's own zlib and struct, not by our code: each
/// chunk's type, whether its CRC holds, its data in hex; for iCCP also the
/// inflated profile's header fields and XYZ/para tag values.
struct PythonPNGReport: Decodable {
    struct Chunk: Decodable {
        let type: String
        let crcOK: Bool
        let hex: String
    }
    struct Profile: Decodable {
        let name: String
        let size: Int, declaredSize: Int, version: String, deviceClass: String, colorSpace: String, pcs: String
        let xyz: [String: [Double]]
        let chad: [Double]?
        let curves: [String: [Double]]
    }
    let chunks: [Chunk]
    let profile: Profile?

    static let script = #"""
        import json, struct, sys, zlib
        d = open(sys.argv[1], 'rb').read()
        assert d[:8] == b'\x89PNG\r\n\x1a\n'
        i, chunks, profile = 8, [], None
        s15 = lambda b, o: struct.unpack('>i', b[o:o+4])[0] / 65536.0
        while i < len(d):
            n, = struct.unpack('>I', d[i:i+4]); t = d[i+4:i+8]; body = d[i+8:i+8+n]
            crc, = struct.unpack('>I', d[i+8+n:i+12+n])
            chunks.append({'type': t.decode(), 'crcOK': zlib.crc32(t + body) == crc, 'hex': body.hex()})
            if t == b'iCCP':
                name, rest = body.split(b'\0', 1)
                assert rest[0] == 0
                p = zlib.decompress(rest[1:])
                tags = {}
                for k in range(struct.unpack('>I', p[128:132])[0]):
                    sig, off, size = struct.unpack('>4sII', p[132+12*k:144+12*k]); tags[sig.decode()] = p[off:off+size]
                xyz = {k: [s15(v, 8 + 4*j) for j in range(3)] for k, v in tags.items() if v[:4] == b'XYZ '}
                curves = {}
                for k, v in tags.items():
                    if v[:4] == b'para':
                        count = {0: 1, 1: 3, 2: 4, 3: 5, 4: 7}[struct.unpack('>H', v[8:10])[0]]
                        curves[k] = [struct.unpack('>H', v[8:10])[0]] + [s15(v, 12 + 4*j) for j in range(count)]
                chad = [s15(tags['chad'], 8 + 4*j) for j in range(9)] if 'chad' in tags else None
                profile = {'name': name.decode('latin-1'), 'size': len(p), 'declaredSize': struct.unpack('>I', p[0:4])[0],
                           'version': p[8:12].hex(), 'deviceClass': p[12:16].decode(), 'colorSpace': p[16:20].decode(),
                           'pcs': p[20:24].decode(), 'xyz': xyz, 'chad': chad, 'curves': curves}
            i += 12 + n
        print(json.dumps({'chunks': chunks, 'profile': profile}))
        """#

    init(path: String) throws {
        let run = try runExternal(["python3", "-c", Self.script, path])
        guard run.status == 0 else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: run.stderr])
        }
        self = try JSONDecoder().decode(Self.self, from: run.stdout)
    }

    func data(_ type: String) -> [UInt8]? {
        chunks.first { $0.type == type }.map { chunk in
            stride(from: 0, to: chunk.hex.count, by: 2).map { i in
                let start = chunk.hex.index(chunk.hex.startIndex, offsetBy: i)
                return UInt8(chunk.hex[start..<chunk.hex.index(start, offsetBy: 2)], radix: 16)!
            }
        }
    }
}

/// Display P3's colorants adapted to the ICC D50 illuminant with Bradford,
/// worked out here in float64 from the published numbers alone (none of
/// ProResCore's colour code): the values the iCCP profile must hold.
enum IndependentP3D50 {
    typealias M = [[Double]]
    static func mul(_ a: M, _ b: M) -> M {
        (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + a[i][$1] * b[$1][j] } } }
    }
    static func apply(_ a: M, _ v: [Double]) -> [Double] {
        (0..<3).map { i in (0..<3).reduce(0) { $0 + a[i][$1] * v[$1] } }
    }
    static func inverse(_ m: M) -> M {
        let det =
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        return (0..<3).map { i in
            (0..<3).map { j in
                let r = [0, 1, 2].filter { $0 != j }
                let c = [0, 1, 2].filter { $0 != i }
                let minor = m[r[0]][c[0]] * m[r[1]][c[1]] - m[r[0]][c[1]] * m[r[1]][c[0]]
                return ((i + j) % 2 == 0 ? 1 : -1) * minor / det
            }
        }
    }
    static func xyz(_ x: Double, _ y: Double) -> [Double] { [x / y, 1, (1 - x - y) / y] }

    static let d50 = [0.9642, 1.0, 0.8249]
    static let bradford: M = [[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]]

    /// D65 → D50 Bradford adaptation.
    static var adaptation: M {
        let source = apply(bradford, xyz(0.3127, 0.3290))
        let destination = apply(bradford, d50)
        let scale: M = (0..<3).map { i in (0..<3).map { j in i == j ? destination[i] / source[i] : 0 } }
        return mul(inverse(bradford), mul(scale, bradford))
    }

    /// rXYZ, gXYZ, bXYZ.
    static var colorants: [[Double]] {
        let primaries = [xyz(0.680, 0.320), xyz(0.265, 0.690), xyz(0.150, 0.060)]
        let p: M = (0..<3).map { i in primaries.map { $0[i] } }
        let s = apply(inverse(p), xyz(0.3127, 0.3290))
        let npm: M = (0..<3).map { i in (0..<3).map { j in p[i][j] * s[j] } }
        let adapted = mul(adaptation, npm)
        return (0..<3).map { j in (0..<3).map { adapted[$0][j] } }
    }
}
