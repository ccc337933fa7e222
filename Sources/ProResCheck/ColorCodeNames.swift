import GPUKit
import ProResCore
import ProResFFmpeg
import ProResGPU

/// Colour code points by name, for `--expect`: FFmpeg's names exactly as
/// `info` prints them (`smpte2084`, `bt2020nc`, `arib-std-b67`, ...), plus a
/// few everyday aliases.
///
/// Why not `av_color_*_from_name`: FFmpeg matches those by prefix, so
/// `bt2020` would silently mean whichever name happens to start the table.
public enum ColorCodeNames {
    public static let aliases: [ColorCode.Kind: [String: String]] = [
        .transfer: ["pq": "smpte2084", "hlg": "arib-std-b67", "srgb": "iec61966-2-1"],
        .primaries: ["p3": "smpte432", "display-p3": "smpte432", "dci-p3": "smpte431"],
        .matrix: ["bt2020": "bt2020nc"],
    ]

    /// The code named `name` (case-insensitive), or nil.
    public static func code(_ kind: ColorCode.Kind, named name: String) -> Int? {
        let wanted = name.lowercased()
        let resolved = aliases[kind]?[wanted] ?? wanted
        return (0...255).first { ColorCode(kind, $0).name?.lowercased() == resolved }
    }
}
