import ProResCore

/// Sets attributes in the header of a single-part scanline OpenEXR file
/// (what FFmpeg's encoder writes), leaving every pixel byte as it was.
///
/// Layout (OpenEXR "file layout"): magic and version (8 bytes), attributes
/// each `name\0 type\0 size value`, a 0 byte ending the header, then the
/// offset table — one uint64 per chunk of scanlines, each an *absolute* file
/// offset — then the chunks. Growing the header moves every chunk, so each
/// offset is shifted by the number of bytes the header grew.
enum EXRHeaderEditor {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    static let magic: UInt32 = 20_000_630
    /// Version-field flags that mean a layout this editor does not handle.
    static let tiledFlag: UInt32 = 0x200, deepFlag: UInt32 = 0x800, multipartFlag: UInt32 = 0x1000

    /// `file` with `attributes` set: an attribute of the same name is
    /// replaced where it stands, the others are added at the header's end.
    public static func setting(_ attributes: [EXRAttribute], in file: [UInt8]) throws -> [UInt8] {
        let header = try parseHeader(file)
        var kept = header.attributes
        var added: [EXRAttribute] = []
        for attribute in attributes {
            if let i = kept.firstIndex(where: { $0.name == attribute.name }) {
                kept[i] = attribute
            } else {
                added.append(attribute)
            }
        }
        var out = Array(file[0..<8])
        for attribute in kept + added { out.append(contentsOf: attribute.encoded) }
        out.append(0)
        let shift = out.count - header.end
        let chunkCount = try chunkCount(header.attributes)
        let tableEnd = header.end + chunkCount * 8
        guard tableEnd <= file.count else {
            throw Failure(description: "EXR offset table runs past the end of the file")
        }
        for n in 0..<chunkCount {
            let offset = file.littleEndian(at: header.end + n * 8, as: UInt64.self)
            guard offset >= tableEnd, offset < file.count else {
                throw Failure(description: "EXR chunk offset \(offset) lies outside the file")
            }
            out.appendLittleEndian(UInt64(Int(offset) + shift))
        }
        out.append(contentsOf: file[tableEnd...])
        return out
    }

    /// The header's attributes in order, and the offset just past its terminating 0 byte.
    public static func parseHeader(_ file: [UInt8]) throws -> (attributes: [EXRAttribute], end: Int) {
        guard file.count >= 8, file.littleEndian(at: 0, as: UInt32.self) == magic else {
            throw Failure(description: "not an OpenEXR file")
        }
        let version = file.littleEndian(at: 4, as: UInt32.self)
        guard version & 0xFF == 2, version & (tiledFlag | deepFlag | multipartFlag) == 0 else {
            throw Failure(
                description: "not a single-part scanline OpenEXR file (version field 0x\(String(version, radix: 16)))")
        }
        var attributes: [EXRAttribute] = []
        var at = 8
        func string() throws -> String {
            guard let end = file[at...].firstIndex(of: 0) else {
                throw Failure(description: "EXR header ends inside a name")
            }
            defer { at = end + 1 }
            return String(decoding: file[at..<end], as: UTF8.self)
        }
        while true {
            guard at < file.count else { throw Failure(description: "EXR header has no end") }
            if file[at] == 0 { return (attributes, at + 1) }
            let name = try string()
            let type = try string()
            guard at + 4 <= file.count else { throw Failure(description: "EXR header ends inside attribute \(name)") }
            let size = Int(file.littleEndian(at: at, as: Int32.self))
            at += 4
            guard size >= 0, at + size <= file.count else {
                throw Failure(description: "EXR attribute \(name) has a bad size \(size)")
            }
            attributes.append(EXRAttribute(name: name, type: type, value: Array(file[at..<at + size])))
            at += size
        }
    }

    /// Entries in the offset table: the data window's rows over the
    /// compression's rows per chunk.
    static func chunkCount(_ attributes: [EXRAttribute]) throws -> Int {
        guard let window = attributes.first(where: { $0.name == "dataWindow" && $0.value.count == 16 }),
            let compression = attributes.first(where: { $0.name == "compression" && $0.value.count == 1 })
        else {
            throw Failure(description: "EXR header lacks dataWindow or compression")
        }
        let yMin = Int(window.value.littleEndian(at: 4, as: Int32.self))
        let yMax = Int(window.value.littleEndian(at: 12, as: Int32.self))
        guard yMax >= yMin else { throw Failure(description: "EXR data window is empty") }
        // none, RLE, ZIPS: 1 row; ZIP, PXR24: 16; PIZ, B44, B44A, DWAA: 32; DWAB: 256.
        let rowsPerChunk: [Int] = [1, 1, 1, 16, 32, 16, 32, 32, 32, 256]
        let code = Int(compression.value[0])
        guard code < rowsPerChunk.count else { throw Failure(description: "EXR compression \(code) is unknown") }
        return (yMax - yMin + rowsPerChunk[code]) / rowsPerChunk[code]
    }
}
