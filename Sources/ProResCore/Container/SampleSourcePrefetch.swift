import Foundation
import HostSupport

/// How far ahead a source is read before its consumer is ready.
public enum SampleSourcePrefetch {
    /// Two GPU decoder batches of 4K (16 frames each on a 16-core host):
    /// ~120 MB of 4K 422 HQ samples, read while the device is made or the
    /// previous file of a `check` decodes.
    public static let framesBeforeTheDecoder = 32
    /// At most this many bytes are read ahead that way (32 frames of 8K
    /// 422 HQ would be 520 MB), so a large or uncached file does not read
    /// far more than it may be asked for.
    public static let bytesBeforeTheDecoder = 256 << 20
    /// Reads in flight ahead of a source's consumer: `check`'s files, the
    /// CPU decoder.
    public static let readsAhead = 8
    /// Reads in flight ahead of a GPU decoder of one file (`decode`). Why:
    /// a decode of one page-cached 4K file waits for its reads on most
    /// hosts, and with 16 its 1,920 frames take 10–46 ms less than with 8,
    /// while `check`, whose next file is read while the current one
    /// decodes, moves by -4 to +10 ms. `PRORES_DECODE_READ_AHEAD=N` sets
    /// both: the caller passes it to the source (`SampleSource.readAhead`).
    public static let readsAheadOfOneFile = 16
}
