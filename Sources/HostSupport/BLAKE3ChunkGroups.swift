#if arch(x86_64)
    import CHashKernels

    extension BLAKE3 {
        /// Hashes the whole chunks `chunks` (never a message's last) in SIMD
        /// lanes, in groups of a multiple of 4 chunks, in C (CHashKernels), and
        /// pushes their CVs onto `stack` in order. Returns the first chunk left
        /// to hash (fewer than 4 are). A chunk that lies in one span is read
        /// where it is; one that straddles spans is copied out first.
        static func pushChunkGroups(
            _ reader: inout SpanReader, chunks: Range<Int>, onto stack: inout ChainingValueStack
        ) -> Int {
            var chunk = chunks.lowerBound
            guard chunks.count >= 4 else { return chunk }
            // A multiple of the kernels' 4 and 8 lanes; its copies stay in L1.
            let group = 16
            let scratch = UnsafeMutableRawPointer.allocate(byteCount: group * chunkBytes, alignment: 64)
            let pointers = UnsafeMutablePointer<UnsafePointer<UInt8>?>.allocate(capacity: group)
            let cvs = UnsafeMutablePointer<UInt32>.allocate(capacity: 8 * group)
            defer {
                scratch.deallocate()
                pointers.deallocate()
                cvs.deallocate()
            }
            while chunks.upperBound - chunk >= 4 {
                let count = min(group, (chunks.upperBound - chunk) & ~3)
                for i in 0..<count {
                    pointers[i] = reader.next(chunkBytes, copyingAcrossSpansTo: scratch + i * chunkBytes)
                        .assumingMemoryBound(to: UInt8.self)
                }
                pd_blake3_hash_chunks(pointers, count, UInt64(chunk), cvs)
                for i in 0..<count {
                    let w = cvs + 8 * i
                    stack.push(ChainingValue(w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]))
                }
                chunk += count
            }
            return chunk
        }
    }
#endif
