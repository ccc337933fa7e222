import ProResCore
import ProResOptions
import ProResPipeline

/// The options several commands take, declared once: the same spellings,
/// value type and one-line help everywhere. A command whose effect differs
/// words its `--help` text with `explained(_:)`.
enum SharedOptions {
    /// `-i INPUT`: ffmpeg's input flag, for the commands that take one INPUT.
    static let input = Option<String>(
        "-i", value: "INPUT", short: "the input, as ffmpeg takes it",
        long: "the input, as ffmpeg takes it (instead of the INPUT argument)")

    /// `-y`, `-n`, `-v`, `-q`: ffmpeg's short spellings, the same in every command.
    static let overwrite = Flag("-y", "--overwrite", short: "replace existing output files")
    static let noOverwrite = Flag(
        "-n", "--no-overwrite", short: "never replace an existing output (exit 6)",
        long: "never replace an existing output: exit 6 before doing anything if one exists "
            + "(the default, made explicit; contradicts -y)")
    static let quiet = Flag(
        "-q", "--quiet", short: "no progress line, warnings or summary on stderr")
    static let verbose = Flag("-v", "--verbose", short: "say more on stderr")

    /// `--json`: the command's result as JSON on stdout.
    static let json = Flag("--json", short: "print the result as JSON on stdout")
    /// `--validate`: the Khronos validation layer, wherever the GPU is used.
    static let validate = Flag("--validate", short: "enable the Khronos validation layer")

    /// `--decoder`, its choices the decoders `DecoderSelection` knows.
    static let decoder = Option<DecoderSelection.Choice>(
        "--decoder", short: "which decoder decodes (default auto)",
        long: "cpu: our CPU decoder; ffmpeg: FFmpeg's; gpu: our Vulkan compute ProRes decoder, on any Vulkan "
            + "device (ours are bit-exact with FFmpeg); auto (default): gpu on a hardware GPU, else cpu")
    static let requireHardware = Flag(
        "--require-hardware", short: "the GPU decoder on a hardware GPU, or exit 13")

    /// `--device` where one device decodes (decoding, `play`).
    static let device = Option<String>(
        "--device", value: "N|NAME", short: "Vulkan device: index or part of its name",
        long: "Vulkan device: its index in the devices list, or part of its name or driver's name "
            + "(default: a discrete GPU, else an integrated one, else Mesa lavapipe)")
    /// `--device` where several GPUs can work at once (`check`, `bench`).
    static let devices = Option<String>(
        "--device", value: "N|NAME|all|N,N...", short: "Vulkan device(s): index, name, all or a list",
        long: "Vulkan device(s): its index in the devices list, or part of its name; all: every hardware GPU; "
            + "a comma list: those devices (default: a discrete GPU, else an integrated one, else Mesa lavapipe)")

    /// `--threads`: the CPU decoders' threads.
    static let threads = Option<Int>(
        "--threads", range: 1...256, short: "CPU decoder threads (default: one per core)",
        long: "CPU decoder threads, ours or FFmpeg's (default: one per core)")

    /// `--track`: which ProRes track, by stream index.
    static let track = Option<Int>(
        "--track", range: 0...Int(Int32.max), short: "stream index of the ProRes track",
        long: "stream index of the ProRes track (default: the first)")

    /// `--reference-white`: the nits PQ and HLG map to 1.0.
    static let referenceWhite = Option<Double>(
        "--reference-white", value: "NITS", range: .real(lower: 1, upper: 10000, lowerExcluded: false),
        short: "nits that map to 1.0 for PQ and HLG (203)", long: "nits that map to 1.0 for PQ and HLG (default 203)")

    /// `--start` and `--frames`: a position and a length in the clip.
    static let start = Option<FramePosition>(
        names: ["--start"], value: "POSITION", expected: FramePosition.forms,
        short: "first frame: number, seconds or TC",
        long: "first frame to decode (exact: ProRes is intra-only): a frame number, seconds "
            + "(12.5s, 00:00:12.5) or the source's time code (10:00:01:00; ';' for drop-frame)",
        convert: FramePosition.init)
    static let frames = Option<FramePosition>(
        names: ["--frames"], value: "LENGTH", expected: FramePosition.forms,
        short: "at most LENGTH: frames, or seconds (2s)",
        long: "decode at most LENGTH: a number of frames, or seconds (2s, 00:00:02)", convert: FramePosition.init)

    /// `--rate`: a clock rate, its near misses told apart from nonsense.
    static let rate = Option<FrameRate>(
        names: ["--rate"], value: "FPS", range: .real(lower: 1, upper: 1000, lowerExcluded: false),
        expected: "frames per second from 1 to 1000 (25, 29.97 or 30000/1001)",
        short: "the clock's rate (25, 29.97 or 30000/1001)",
        long: "the clock's rate instead (25, 29.97 or 30000/1001; needs --realtime)"
    ) { text in
        // Plain decimals only, as every number read from outside (`PlainNumber`).
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        let plain =
            parts.count == 2
            ? parts.allSatisfy { PlainNumber.integer($0) != nil } : PlainNumber.real(text) != nil
        guard plain else { return nil }
        if let problem = FrameRate.problem(parsing: text) {
            throw UsageError("invalid value '\(text)' for --rate: \(problem)")
        }
        return FrameRate(parsing: text)
    }

    /// `--effect SPEC`, repeatable: the GPU passes on every frame, in order.
    static let effect = Option<String>(
        "--effect", value: "SPEC", repeatable: true, short: "a GPU pass on every frame (repeatable)",
        long: "a GPU pass on every converted frame (needs --vulkan; repeat for a chain, applied in order; "
            + "nothing clamps HDR):",
        details: [
            ("sepia[:AMOUNT]", "towards a sepia tone of the same luminance (0..1, default 1)"),
            ("exposure:STOPS", "multiply by 2^STOPS (-20..20)"),
            ("saturation:S", "0 grey, 1 unchanged, up to 10"),
            (
                "chroma-key:color=R,G,B[,tolerance=T][,softness=S]",
                "alpha from the distance to the key in the clip's Cb/Cr plane; key in the clip's own R'G'B' 0..1 "
                    + "(0,1,0 for a pure green screen); T 0.1 and S 0.1 by default"
            ),
            (
                "lut:FILE.cube[,shaper=pq|linear]",
                "3D LUT, tetrahedral; pq (default): the LUT maps PQ-encoded P3 (1.0 = the reference white), "
                    + "linear: linear values; input outside the LUT's domain is clamped to it"
            ),
        ])

    /// The report outputs `check` and `merge` share, in `check`'s words.
    static let report = Option<String>(
        "--report", value: "FILE|-", short: "write the JSON report",
        long: #"JSON report: {"files":[...],"summary":{...},"run":{...}}; "#
            + "prores-decode merge joins the reports of a run's shards into one")
    static let junit = Option<String>(
        "--junit", value: "FILE|-", short: "JUnit XML: one testcase per file")
    static let html = Option<String>(
        "--html", value: "FILE|-", short: "write a page to look at (one offline file)",
        long: "a page to look at: summary, then per file (failures first) the verdict and why, the format "
            + "with each colour tag's source, statistics, --previews pictures (linked relative to FILE's "
            + "directory: move them together) and per-frame graphs with damaged, black and frozen frames marked; "
            + "one offline file, inline CSS and SVG, readable without JavaScript")
    static let writeGolden = Option<String>(
        "--write-golden", value: "FILE|-", short: "write golden v2: BLAKE3 of every frame",
        long: "write golden v2: the BLAKE3-256 of every native planar frame of the files that decoded cleanly "
            + "(names relative to the directory argument; not with --sample, which checks some frames only); verify a line with "
            + "prores-decode F --format native --start N --frames 1 -o - | b3sum")
    /// `--on-warning`: what a WARN does to the exit status (`check`, `merge`).
    static let onWarning = Option<CheckCommand.WarningExit>(
        "--on-warning", short: "what a WARN does to the exit status",
        long: "what a WARN does to the exit status: warn (default) exits 15 when every file passed and one has "
            + "warnings; pass exits 0; fail exits 10, as a failure. Reports say WARN whichever is chosen")
}
