import CStreamingCopy
import Foundation
import Glibc

/// pread(2) whose destination is written with streaming stores: the kernel
/// copies a piece of the file into a small buffer that stays in the cache,
/// and `pd_copy_streaming` moves it on. The sample table reader's blocks
/// are written once and next read by the GPU's DMA, so a plain copy's
/// reading of each destination line first, and keeping it in the cache, is
/// wasted memory traffic (issue #11: reading the file bounds a decode).
///
/// On the H200 host (BENCHMARKS.md §6, eleventh session) eight threads
/// read a page-cached file into a 512 MB pool at 31–36 GB/s this way
/// against 26–30 with plain pread; `check`'s folder took 522 ms against
/// 562 (medians of 8, interleaved) and the 1,200-frame file 0.440 s against
/// 0.474. The default on x86-64; `PRORES_DECODE_READ_COPY=plain` reads with pread
/// alone, `PRORES_DECODE_READ_CHUNK_KB=N` sets the piece (512).
///
/// `PRORES_DECODE_READ_COPY=mapped` (a measurement, not the default) copies
/// from the file's own pages instead: each read maps its range, has the
/// kernel fill in the page tables, streams the bytes out and unmaps it, so
/// every byte crosses the CPU once rather than twice (the kernel's copy
/// into the piece, then ours). A range the kernel cannot populate (the
/// file shrank, an old kernel) is read the default way.
///
/// Thread-safety: any thread; the spare buffers under `lock`.
final class StreamingPread: @unchecked Sendable {
    static let shared: StreamingPread? = {
        let copy = ProcessInfo.processInfo.environment["PRORES_DECODE_READ_COPY"]
        guard hasStreamingStores, copy != "plain" else { return nil }
        let pieceBytes = (ProcessInfo.processInfo.environment["PRORES_DECODE_READ_CHUNK_KB"].flatMap(Int.init)
                              .map { max(4, min($0, 16 << 10)) } ?? 512) << 10
        return StreamingPread(pieceBytes: pieceBytes, fromMappedPages: copy == "mapped")
    }()

    /// Elsewhere `pd_copy_streaming` is a memcpy: the bounce would only add a copy.
    #if arch(x86_64)
    static let hasStreamingStores = true
    #else
    static let hasStreamingStores = false
    #endif

    let pieceBytes: Int
    let fromMappedPages: Bool
    private let lock = NSLock()
    private var spare: [UnsafeMutableRawPointer] = []
    private static let pageBytes = off_t(sysconf(Int32(_SC_PAGESIZE)))

    init(pieceBytes: Int, fromMappedPages: Bool = false) {
        self.pieceBytes = pieceBytes
        self.fromMappedPages = fromMappedPages
    }

    /// Like pread(2): the bytes read (at most one piece, or all `count`
    /// from mapped pages), 0 at the end of the file, -1 with errno set.
    func read(_ fd: Int32, into destination: UnsafeMutableRawPointer, count: Int, at offset: off_t) -> Int {
        if fromMappedPages, count > 0, let n = readMapped(fd, into: destination, count: count, at: offset) { return n }
        let buffer = take()
        defer { give(buffer) }
        let n = pread(fd, buffer, min(count, pieceBytes), offset)
        if n > 0 { pd_copy_streaming(destination, buffer, n) }
        return n
    }

    /// `count` bytes streamed from the file's mapped pages, or nil where
    /// the kernel would not map or populate them.
    private func readMapped(_ fd: Int32, into destination: UnsafeMutableRawPointer, count wanted: Int, at offset: off_t) -> Int? {
        // The page holding the file's end maps whole, zeros after the end: clamp to the size, as pread(2) does.
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let count = Int(max(0, min(off_t(wanted), info.st_size - offset)))
        guard count > 0 else { return 0 }
        let start = offset & ~(Self.pageBytes - 1)
        let lead = Int(offset - start)
        let length = lead + count
        guard let pages = mmap(nil, length, PROT_READ, MAP_SHARED, fd, start), pages != MAP_FAILED else { return nil }
        defer { munmap(pages, length) }
        // Populating fails, where an access would raise SIGBUS, if the file
        // shrank since `fstat`. (One that shrinks between this and the copy
        // still raises it: one reason this is not the default.)
        guard madvise(pages, length, MADV_POPULATE_READ) == 0 else { return nil }
        pd_copy_streaming(destination, pages + lead, count)
        return count
    }

    private func take() -> UnsafeMutableRawPointer {
        if let buffer = lock.withLock({ spare.popLast() }) { return buffer }
        return UnsafeMutableRawPointer.allocate(byteCount: pieceBytes, alignment: 4096)
    }

    private func give(_ buffer: UnsafeMutableRawPointer) {
        lock.withLock { spare.append(buffer) }
    }
}
