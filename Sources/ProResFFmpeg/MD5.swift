import CFFmpeg
import ProResCore

/// MD5 through libavutil.
public enum MD5 {
    public static func hex(of spans: [UnsafeRawBufferPointer]) -> String {
        hex(of: .spans(spans))
    }

    /// The md5 of a frame's bytes, the native planes of a packed surface
    /// read a row at a time.
    public static func hex(of bytes: FrameBytes) -> String {
        guard let context = av_md5_alloc() else { fatalError("out of memory") }
        defer { av_free(UnsafeMutableRawPointer(context)) }
        av_md5_init(context)
        bytes.forEachPiece { piece in
            guard let base = piece.baseAddress, piece.count > 0 else { return }
            av_md5_update(context, base.assumingMemoryBound(to: UInt8.self), piece.count)
        }
        var digest = [UInt8](repeating: 0, count: 16)
        av_md5_final(context, &digest)
        let hexDigits = Array("0123456789abcdef".utf8)
        return String(decoding: digest.flatMap { [hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 15)]] }, as: UTF8.self)
    }
}
