import ProResCore

extension DecodeRun {
    /// One run decodes one picture format: a frame whose header states
    /// another size, chroma format or alpha channel (edited or spliced
    /// material, or a damaged header) ends the run with `decoderUnavailable`
    /// (exit 7) on either decoder, rather than the CPU writing frames of two
    /// sizes into one output (FFmpeg decodes a frame with an alpha flag into
    /// a plane more) and the GPU failing the frames. A header that does not
    /// parse is left to the decoder (damage).
    static func checkPictureFormat(_ sample: CompressedSample, against format: FormatDescription) throws {
        guard let header = try? ProResFrameHeader(sample.bytes) else { return }
        let alpha = header.alpha != .none
        guard
            header.width != format.width || header.height != format.height || header.chroma != format.chroma
                || alpha != format.hasAlpha
        else { return }
        func words(_ width: Int, _ height: Int, _ chroma: ProResFrameHeader.Chroma, _ alpha: Bool) -> String {
            "\(width)x\(height) \(chroma.rawValue)" + (alpha ? " with alpha" : "")
        }
        throw ProResDecodeError.decoderUnavailable(
            "frame \(sample.index) is \(words(header.width, header.height, header.chroma, alpha)), the stream "
                + "\(words(format.width, format.height, format.chroma, format.hasAlpha)): one run decodes one picture size, "
                + "chroma format and alpha channel (split the file where it changes)")
    }
}
