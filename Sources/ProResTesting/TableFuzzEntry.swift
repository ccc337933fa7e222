import Foundation

/// The container indexes alone: a clean clip whose sample table is replaced
/// by the input, so that every mutation lands in the tables (sample sizes,
/// offsets, durations, timescales, MXF index and durations) while the
/// frames they point at stay real ProRes, then the whole of `FuzzEntry.run`
/// (libavformat, our sample-table reader, the decode, every invariant).
/// Random bytes rarely make a container that opens; this reaches the
/// tables' parsing with every input. The fuzz target's `tables` mode and
/// `FuzzSeedReplayTests` call it.
///
/// Input: one byte choosing the template (even: Fixtures/hq.mov, whose
/// `moov` box, its last, the rest replaces; odd: Fixtures/hq.mxf, whose
/// header partition up to the first essence element the rest replaces).
public enum TableFuzzEntry {
    /// A clip cut around the part an input replaces.
    public struct Template: Sendable {
        public let head: [UInt8]
        public let tail: [UInt8]
        /// The part replaced: the seed of this template.
        public let original: [UInt8]
    }

    /// The MOV and MXF templates from `fixtures` (a Fixtures/ directory).
    public static func templates(fixtures: String) throws -> [Template] {
        let mov = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixtures + "/hq.mov")))
        let mxf = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixtures + "/hq.mxf")))
        guard let moov = lastBox(mov, "moov") else { throw TemplateError("Fixtures/hq.mov has no moov box last") }
        let essenceKey: [UInt8] = [0x06, 0x0E, 0x2B, 0x34, 0x01, 0x02, 0x01, 0x01, 0x0D, 0x01, 0x03, 0x01]
        guard
            let essence = (0..<mxf.count - essenceKey.count).first(where: {
                mxf[$0..<$0 + essenceKey.count].elementsEqual(essenceKey)
            })
        else {
            throw TemplateError("Fixtures/hq.mxf has no essence element")
        }
        return [
            Template(head: Array(mov[..<moov]), tail: [], original: Array(mov[moov...])),
            Template(head: [], tail: Array(mxf[essence...]), original: Array(mxf[..<essence])),
        ]
    }

    /// The seeds: each template's own table, behind its selector byte.
    public static func seeds(_ templates: [Template]) -> [[UInt8]] {
        templates.indices.map { [UInt8($0)] + templates[$0].original }
    }

    /// The clip the input makes, or nil for an empty input.
    public static func clip(_ bytes: UnsafeRawBufferPointer, templates: [Template]) -> [UInt8]? {
        guard let selector = bytes.first, !templates.isEmpty else { return nil }
        let template = templates[Int(selector) % templates.count]
        return template.head + bytes.dropFirst() + template.tail
    }

    /// `FuzzEntry.run` on the clip the input makes; always read as a file
    /// (the tables are what a file reader seeks by).
    public static func run(_ bytes: UnsafeRawBufferPointer, templates: [Template]) -> FuzzEntry.Outcome? {
        guard let clip = clip(bytes, templates: templates), clip.count <= FuzzEntry.maximumInputSize else { return nil }
        return FuzzEntry.run(clip, input: .file)
    }

    /// Where the top-level box `kind` starts, when it is the file's last.
    private static func lastBox(_ data: [UInt8], _ kind: String) -> Int? {
        var at = 0
        while at + 8 <= data.count {
            let size = data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8 else { return nil }
            if String(decoding: data[at + 4..<at + 8], as: UTF8.self) == kind {
                return at + size == data.count ? at : nil
            }
            at += size
        }
        return nil
    }

    public struct TemplateError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
