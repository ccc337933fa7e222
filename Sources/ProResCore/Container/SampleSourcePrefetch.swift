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
}
