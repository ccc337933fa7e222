import Foundation
import GPUKit

/// A device's memory peak in words, for `--verbose` notes.
enum MemoryWords {
    static func peak(_ totals: MemoryLedger.Totals) -> String {
        "buffers held at most \(megabytes(totals.device)) of device memory and \(megabytes(totals.host)) of host memory"
    }

    private static func megabytes(_ bytes: Int) -> String {
        bytes >= 10_000_000 ? "\(bytes / 1_000_000) MB" : String(format: "%.1f MB", Double(bytes) / 1e6)
    }
}
