import Foundation
import Glibc

/// Page-aligned memory for compressed samples, handed out in blocks carved
/// from large regions that stay mapped for the rest of the process.
///
/// Why: a GPU decoder imports a region once (VK_EXT_external_memory_host)
/// and the DMA engine reads each sample where `pread` put it, instead of the
/// CPU copying every byte into staging memory first (on the H200 host that
/// copy took ~100 µs of wall time a 4K frame on all 16 cores). An import must
/// not outlive the memory it pins; regions are never unmapped, so no import
/// can, whichever object goes first. Freed blocks are reused, so the memory
/// held is the peak of samples in flight, per size class; a request finds a
/// free block of a somewhat larger class before it maps more (see
/// `largestReuse`).
///
/// Thread-safety: all state is behind `lock`.
public final class SampleMemory: @unchecked Sendable {
    public static let shared = SampleMemory()

    /// A mapped region, as a GPU would import it.
    public struct Region: Hashable {
        public let base: UnsafeRawPointer
        public let size: Int
    }

    /// One block: `bytes` usable bytes at a page-aligned address inside a
    /// region. Goes back to its size class's free list when released.
    public final class Block: @unchecked Sendable {
        public let pointer: UnsafeMutableRawPointer
        public let capacity: Int
        private let owner: SampleMemory

        fileprivate init(pointer: UnsafeMutableRawPointer, capacity: Int, owner: SampleMemory) {
            self.pointer = pointer
            self.capacity = capacity
            self.owner = owner
        }

        deinit { owner.recycle(pointer, capacity: capacity) }
    }

    /// Regions are at least this large, so that a decoder imports a few
    /// dozen of them, not one per frame.
    static let minimumRegionBytes = 64 << 20

    /// A request takes a free block up to this much larger than its class
    /// before a new region is mapped. Why: every region a GPU device uses
    /// is imported (pinned), ~70 ms a gigabyte on the H200, and unpinned
    /// at exit, ~28 more; and `check`'s files of one folder fall in neighbouring
    /// classes: its 4K 4444 XQ files (3.25 MiB blocks) come after the 422
    /// HQ ones (3.75 MiB) have freed theirs, and would otherwise map five
    /// regions of their own.
    static let largestReuse = (numerator: 3, denominator: 2)
    private static let pageBytes = 4096

    private let lock = NSLock()
    /// Sorted by base address, for `region(containing:)`.
    private var regions: [Region] = []
    private var free: [Int: [UnsafeMutableRawPointer]] = [:]

    init() {}

    /// A block of at least `bytes`, or nil when the system refuses memory.
    public func allocate(bytes: Int) -> Block? {
        let capacity = Self.sizeClass(bytes)
        lock.lock()
        defer { lock.unlock() }
        if let pointer = free[capacity]?.popLast() {
            return Block(pointer: pointer, capacity: capacity, owner: self)
        }
        if let larger = free.keys.filter({
            $0 > capacity && $0 <= capacity * Self.largestReuse.numerator / Self.largestReuse.denominator
                && free[$0]?.isEmpty == false
        }).min(), let pointer = free[larger]?.popLast() {
            return Block(pointer: pointer, capacity: larger, owner: self)
        }
        let blocks = max(1, (Self.minimumRegionBytes + capacity - 1) / capacity)
        let size = blocks * capacity
        let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let base, base != MAP_FAILED else { return nil }
        // Fewer pages to pin and translate for the DMA; advice only.
        _ = madvise(base, size, MADV_HUGEPAGE)
        let region = Region(base: UnsafeRawPointer(base), size: size)
        regions.insert(region, at: regions.firstIndex { $0.base > region.base } ?? regions.count)
        free[capacity, default: []] += (1..<blocks).reversed().map { base + $0 * capacity }
        return Block(pointer: base, capacity: capacity, owner: self)
    }

    /// The region holding `pointer`, when it is memory of ours.
    public func region(containing pointer: UnsafeRawPointer) -> Region? {
        lock.lock()
        defer { lock.unlock() }
        var low = 0
        var high = regions.count
        while low < high {
            let middle = (low + high) / 2
            if regions[middle].base <= pointer { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let region = regions[low - 1]
        return pointer < region.base + region.size ? region : nil
    }

    /// Bytes held in regions (used and free).
    public var mappedBytes: Int {
        lock.lock()
        defer { lock.unlock() }
        return regions.reduce(0) { $0 + $1.size }
    }

    private func recycle(_ pointer: UnsafeMutableRawPointer, capacity: Int) {
        lock.lock()
        free[capacity, default: []].append(pointer)
        lock.unlock()
    }

    /// Whole pages, rounded up to one of eight steps per power of two (at
    /// most 12.5% unused), so that samples of one stream share a class
    /// although their sizes differ.
    static func sizeClass(_ bytes: Int) -> Int {
        let pages = max(1, (bytes + pageBytes - 1) / pageBytes)
        let step = max(1, (1 << (Int.bitWidth - 1 - pages.leadingZeroBitCount)) / 8)
        return (pages + step - 1) / step * step * pageBytes
    }
}
