import CStreamingCopy
import Foundation
import Glibc

/// A whole file mapped once for the run, its samples streamed out of its
/// own pages: each byte crosses the CPU once, not twice as through
/// `StreamingPread`'s piece. A measurement (`PRORES_DECODE_READ_COPY=
/// mapped-once`), not the default: mapping, populating and unmapping each
/// sample lost ~130 ms a run on the H200 (BENCHMARKS.md §7, fifteenth
/// session); this maps once and never unmaps until the reader goes, so no
/// read waits on the address space's lock for another's unmap.
///
/// A range the kernel cannot populate (the file shrank) is left to pread.
/// A file that shrinks between a range's population and its copy raises
/// SIGBUS: another reason this is not the default.
///
/// Thread-safety: any thread; immutable after init.
final class MappedFileCopy: @unchecked Sendable {
    static let wanted = StreamingPread.hasStreamingStores
        && ProcessInfo.processInfo.environment["PRORES_DECODE_READ_COPY"] == "mapped-once"
    private let base: UnsafeMutableRawPointer
    private let size: Int
    private static let pageBytes = Int(sysconf(Int32(_SC_PAGESIZE)))

    init?(fd: Int32, size: Int) {
        guard size > 0, let base = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), base != MAP_FAILED else { return nil }
        self.base = base
        self.size = size
    }

    deinit { munmap(base, size) }

    /// Whether `count` bytes at `offset` were copied to `destination`.
    func copy(into destination: UnsafeMutableRawPointer, count: Int, at offset: Int) -> Bool {
        guard offset >= 0, count > 0, offset + count <= size else { return false }
        let start = offset & ~(Self.pageBytes - 1)
        guard madvise(base + start, offset + count - start, MADV_POPULATE_READ) == 0 else { return false }
        pd_copy_streaming(destination, base + offset, count)
        return true
    }
}
