import CFFmpeg

/// Which FFmpeg libraries we were built against and which the dynamic linker
/// gave us, for `--version`: a decode that differs between two machines is
/// first explained by these differing.
public enum FFmpegVersions {
    public struct Library: Sendable, Equatable {
        public let name: String
        /// `59.37.100`, from the headers at build time.
        public let compiled: String
        /// The same, from the shared library loaded now.
        public let runtime: String
    }

    /// FFmpeg's own release string (`5.1.6-0+deb12u1`), from the loaded libavutil.
    public static var release: String { String(cString: av_version_info()) }

    public static var libraries: [Library] {
        [
            Library(
                name: "libavcodec",
                compiled: dotted(LIBAVCODEC_VERSION_MAJOR, LIBAVCODEC_VERSION_MINOR, LIBAVCODEC_VERSION_MICRO),
                runtime: dotted(avcodec_version())),
            Library(
                name: "libavformat",
                compiled: dotted(LIBAVFORMAT_VERSION_MAJOR, LIBAVFORMAT_VERSION_MINOR, LIBAVFORMAT_VERSION_MICRO),
                runtime: dotted(avformat_version())),
            Library(
                name: "libavutil",
                compiled: dotted(LIBAVUTIL_VERSION_MAJOR, LIBAVUTIL_VERSION_MINOR, LIBAVUTIL_VERSION_MICRO),
                runtime: dotted(avutil_version())),
        ]
    }

    private static func dotted(_ major: Int32, _ minor: Int32, _ micro: Int32) -> String {
        "\(major).\(minor).\(micro)"
    }

    /// AV_VERSION_INT packs major.minor.micro as 16.8.8 bits.
    private static func dotted(_ packed: UInt32) -> String {
        "\(packed >> 16).\((packed >> 8) & 0xFF).\(packed & 0xFF)"
    }
}
