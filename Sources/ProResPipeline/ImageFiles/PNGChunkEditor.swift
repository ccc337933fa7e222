import ProResCore

/// Puts chunks into an encoded PNG right after IHDR, replacing any chunk of
/// the same type the encoder wrote (FFmpeg always writes a pHYs). Right after
/// IHDR is before PLTE and IDAT, which is where cICP, iCCP and pHYs must go.
enum PNGChunkEditor {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Colour chunks that contradict the ones we add; iCCP and sRGB must not both appear.
    static let colourTypes: Set<String> = ["cICP", "iCCP", "sRGB", "gAMA", "cHRM"]

    public static func inserting(_ chunks: [PNGChunk], into file: [UInt8]) throws -> [UInt8] {
        let existing = try parse(file)
        guard existing.first?.chunk.type == "IHDR" else { throw Failure(description: "PNG does not start with IHDR") }
        let replaced = Set(chunks.map(\.type)).union(
            chunks.contains { colourTypes.contains($0.type) } ? colourTypes : [])
        var out = signature
        out.append(contentsOf: file[existing[0].range])
        for chunk in chunks { out.append(contentsOf: chunk.encoded) }
        for (chunk, range) in existing.dropFirst() where !replaced.contains(chunk.type) {
            out.append(contentsOf: file[range])
        }
        return out
    }

    /// Every chunk in order, with the byte range it occupies in `file`.
    /// CRCs are not checked: the file comes from our own encoder.
    public static func parse(_ file: [UInt8]) throws -> [(chunk: PNGChunk, range: Range<Int>)] {
        guard file.starts(with: signature) else { throw Failure(description: "not a PNG file") }
        var chunks: [(PNGChunk, Range<Int>)] = []
        var at = signature.count
        while at < file.count {
            guard at + 12 <= file.count else { throw Failure(description: "PNG ends inside a chunk header") }
            let length = Int(file.bigEndian(at: at, as: UInt32.self))
            guard length <= file.count - at - 12 else {
                throw Failure(description: "PNG chunk runs past the end of the file")
            }
            let typeBytes = file[at + 4..<at + 8]
            guard typeBytes.allSatisfy({ (0x41...0x5A).contains($0 & ~0x20) }) else {
                throw Failure(description: "PNG chunk type is not four letters")
            }
            let type = String(decoding: typeBytes, as: UTF8.self)
            chunks.append((PNGChunk(type: type, data: Array(file[at + 8..<at + 8 + length])), at..<at + 12 + length))
            at += 12 + length
        }
        return chunks
    }
}
