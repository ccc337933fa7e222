import CFFmpeg
import ProResCore

/// MD5 through libavutil.
public enum MD5 {
    public static func hex(of spans: [UnsafeRawBufferPointer]) -> String {
        guard let context = av_md5_alloc() else { fatalError("out of memory") }
        defer { av_free(UnsafeMutableRawPointer(context)) }
        av_md5_init(context)
        for span in spans where span.count > 0 {
            av_md5_update(context, span.baseAddress!.assumingMemoryBound(to: UInt8.self), span.count)
        }
        var digest = [UInt8](repeating: 0, count: 16)
        av_md5_final(context, &digest)
        let hexDigits = Array("0123456789abcdef".utf8)
        return String(decoding: digest.flatMap { [hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 15)]] }, as: UTF8.self)
    }
}
