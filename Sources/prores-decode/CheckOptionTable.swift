import ProResCheck
import ProResOptions
import ProResPipeline

/// `check`'s table: every option, its help, and the prose around them.
extension CheckCommand {
    /// `check`'s own options, and the shared ones in `check`'s words.
    enum Options {
        static let overwrite = SharedOptions.overwrite.explained(
            "also replace an existing --write-golden file (reports, JUnit and HTML files "
                + "are replaced by default, with a note: each is written beside its path and renamed over it at "
                + "the end, so a failed run keeps the old one)",
            short: "also replace an existing --write-golden file")
        static let noOverwrite = SharedOptions.noOverwrite.explained(
            "never replace an existing report, JUnit or HTML file either: exit 6 before "
                + "checking anything if one exists (contradicts -y)",
            short: "never replace a report, JUnit or HTML file")
        static let verbose = SharedOptions.verbose.explained(
            "also show FFmpeg's own diagnostics, and each file's previews")

        static let expect = Option<[ExpectRule]>(
            names: ["--expect"], value: "RULES", expected: "rules", short: "comma-separated rules every file must meet",
            long: "comma-separated rules every file must meet: profile=hq (proxy, lt, 422, hq, 4444, 4444xq), "
                + "size=1920x1080, alpha=true, interlaced=false, chroma=4:2:2, transfer=pq, primaries=bt2020, "
                + "matrix=bt2020nc (FFmpeg's names as info prints them, aliases pq hlg srgb p3; the value must be "
                + "stated by the file: 'untagged' matches a fallback), frames>=24, width, height, fps, bit-depth, "
                + "max-nits with =, !=, >=, <=, >, < (fps as 23.976, 23.98 or 24000/1001); black-frames, black-run (longest "
                + "black run inside the clip), black-head, black-tail, frozen-frames, frozen-run in frames or "
                + "seconds (0.5s); out-of-range-luma, out-of-range-chroma as a share of samples (0.01 or 1%), "
                + "out-of-range-frames; out-of-gamut (R'G'B' outside [0,1] by more than 0.01) as a share of pixels; "
                + "max-cll, max-fall in nits (PQ/HLG), or 'stated': the file's own MaxCLL, MaxFALL; mastering-display, "
                + "content-light-level, hdr-metadata (a PQ file has both) =true or =false; quote rules with > or < in the shell. "
                + "Colour and interlaced rules hold for every frame checked; constant-description fails a file whose "
                + "frames change colour, field order or alpha mid-clip. "
                + "field-order=tff|bff|progressive (frame header and container), consistent (no container/"
                + "frame-header conflict), continuous (no timestamp gap), timecode=10:00:00:00 (the start), "
                + "duration=12.48 (seconds) or duration=312f (frames)"
                + ". Sound: audio-tracks=2, audio-layout=5.1 (or 5.1+stereo, the tracks in order), "
                + "loudness=-23±1 (or -23+-1; LUFS), true-peak<=-1 (dBTP), silence<=2s (the longest), "
                + "av-duration<=1f (or seconds): measured rules hold on every track"
        ) { text in
            do { return try ExpectRule.parseList(text) } catch { throw UsageError(ErrorWords.render(error)) }
        }
        static let policy = Option<String>(
            "--policy", value: "FILE|default|none", short: "the rules files are judged by (a file)",
            long: "the rules every file is judged by, one a line: 'fail RULE' (a FAIL), 'warn RULE' (a WARN) or "
                + "RULE alone (fail), in --expect's language; # starts a comment; the line 'default' adds the "
                + "default policy. Without --policy the default policy applies: warn black-run<=0.5s, "
                + "frozen-run<=1s, out-of-range-luma<=1%, out-of-range-chroma<=1%, hdr-metadata=true, and where there is "
                + "sound true-peak<=-1, av-duration<=1f (a rule ending 'if sound' judges only files with sound; "
                + "default names them); "
                + "none: no policy. --expect adds fail rules to it")
        static let audio = Option<AudioChoice>(
            "--audio", short: "measure the sound tracks (default) or not",
            long: "measure every sound track beside the frames (default): loudness, loudness range, true and "
                + "sample peak, clipping, silence, length against the video; none skips it")
        static let golden = Option<String>(
            "--golden", value: "FILE|-", short: "fail frames whose hashes differ from FILE's",
            long:
                "fail files whose per-frame hashes differ from FILE's (or that FILE does not list; - reads it from stdin); "
                + "v2 (BLAKE3) or v1 (md5, which needs every frame's bytes on the host) files. When every PATH is a "
                + "directory (or with --list), a file FILE lists that the run does not find fails too, named")

        static let sample = Option<Int>(
            "--sample", range: 1...Int.max, short: "check only N evenly spaced frames per file",
            long: "check only N evenly spaced frames per file, first and last included: round(i*(frames-1)/(N-1))")
        static let jobs = Option<Int>(
            "--jobs", range: 1...256, short: "check N files at once (default 1)",
            long: "check N files at once (default 1; on the GPU decoder one per device, two with "
                + "--previews), each CPU decoder with max(1, cores/N) threads; the output order never changes")
        static let include = Option<PathPattern>(
            names: ["--include"], value: "GLOB", repeatable: true, expected: "a glob",
            short: "check only found files matching a GLOB",
            long: "check only found files whose key matches one GLOB (* and ? within a directory, ** across "
                + "directories; without '/' the file name alone); files named as PATH are always checked"
        ) { try pattern($0, for: "--include") }
        static let exclude = Option<PathPattern>(
            names: ["--exclude"], value: "GLOB", repeatable: true, expected: "a glob",
            short: "skip found files matching GLOB",
            long: "skip found files whose key matches GLOB (as --include). Sidecars found under a directory "
                + "(.xml .md5 .txt .json .csv .pdf ...) are skipped with a note, never checked"
        ) { try pattern($0, for: "--exclude") }
        static let list = Option<String>(
            "--list", value: "FILE|-", short: "also check the files named in FILE",
            long: "also check the files and http(s) URLs named in FILE (- reads stdin), one a line, byte for byte "
                + "(never a glob); blank lines and lines starting with # are skipped; at most 64 MiB")
        static let shard = Option<ShardRequest>(
            names: ["--shard"], value: "I/N|auto|auto/N",
            expected: "I/N with 1 ≤ I ≤ N ≤ \(CheckShard.maximumCount), auto or auto/N",
            short: "check only shard I of N",
            long:
                "check only shard I of N (1-based, N at most 100000): the files whose key's SHA-256, first 8 bytes as a big-endian "
                + "integer, is I-1 mod N, so adding a file moves no other; auto reads I (and N) from the engine: "
                + "PRORES_DECODE_SHARD_INDEX/_TOTAL (0-based), CI_NODE_INDEX/CI_NODE_TOTAL (GitLab), "
                + "JOB_COMPLETION_INDEX (Kubernetes), SLURM_ARRAY_TASK_ID/_MIN/_COUNT, AWS_BATCH_JOB_ARRAY_INDEX; "
                + "N from auto/N where the engine gives none; a variable that is not a plain decimal inside "
                + "its bounds is a usage error",
            convert: ShardRequest.init(parsing:))
        static let resume = Option<String>(
            "--resume", value: "PREVIOUS.json", short: "carry over unchanged files' verdicts",
            long:
                "carry over PREVIOUS.json's pass, warn and fail verdicts (made with the same options) for files whose "
                + "key and size and modification time (an http:// URL: ETag and Last-Modified) are unchanged; check "
                + "the rest. Carried files are marked "
                + "\"carried\": true in the report and (carried) on stderr; --write-golden takes their lines from the "
                + "golden file PREVIOUS.json's run wrote (beside it). Errors and https:// URLs are always checked again. "
                + "PREVIOUS.json is checked as merge checks a report (line by line, status words, files_digest)")
        static let timeout = Option<Double>(
            "--timeout", value: "SECONDS", range: .real(lower: 0, upper: 604_800, lowerExcluded: true),
            short: "per file, opening included (default 600)",
            long: "per file, opening included (default 600): ERROR \"timed out\"")
        static let threads = SharedOptions.threads.explained(
            "CPU decoder threads per file (default: max(1, cores/jobs))", short: "CPU decoder threads per file")

        static let decoder = SharedOptions.decoder.explained(
            "cpu: our CPU decoder; ffmpeg: FFmpeg's; gpu: our Vulkan compute decoder, on any Vulkan "
                + "device (ours are bit-exact with FFmpeg); auto (default): gpu on a hardware GPU, else cpu. "
                + "Verdicts, statistics and hashes are the same")
        static let device = SharedOptions.devices.explained(
            "Vulkan device for the GPU decoder: its index in the devices list, or part of its name; "
                + "all: every hardware GPU, files spread over them; a comma list: those devices (default: a "
                + "discrete GPU, else an integrated one, else Mesa lavapipe)")
        static let requireHardware = SharedOptions.requireHardware.explained(
            "the GPU decoder on a hardware GPU, or exit 13 before checking anything")

        static let previews = Option<String>(
            "--previews", value: "DIR", short: "a contact sheet and a frame per file, in DIR",
            long: "per file, a contact sheet and a full frame to look at: DIR/KEY.sheet.png and DIR/KEY.frame.png "
                + "(KEY as in the report: the path relative to its directory argument, or as given, '/' written "
                + "'__'); DIR is created if missing, same-named previews are replaced")
        static let previewFrames = Option<Int>(
            "--preview-frames", value: "K", range: PreviewOptions.framesRange,
            short: "frames on the contact sheet (default 6)",
            long: "frames on the contact sheet (default 6; needs --previews)")

        /// A glob of `--include` or `--exclude`, refused in that option's words.
        private static func pattern(_ text: String, for option: String) throws -> PathPattern {
            guard let pattern = PathPattern(text) else {
                throw UsageError("\(option) '\(text)' is not a usable pattern")
            }
            return pattern
        }
    }

    /// `--audio`: whether the sound tracks are measured.
    enum AudioChoice: String, CaseIterable {
        case measure
        case skip = "none"
    }
    static let spec = CommandSpec(
        name: "check", operands: "PATH...", summary: "batch QC for CI: pass, warn, fail or error per file",
        sections: [
            OptionSection(
                heading: "REPORTS",
                options: [
                    SharedOptions.report, SharedOptions.junit, SharedOptions.html, SharedOptions.writeGolden,
                    Options.overwrite, Options.noOverwrite, Options.verbose,
                ]),
            OptionSection(
                heading: "RULES",
                options: [Options.expect, Options.policy, SharedOptions.onWarning, Options.audio, Options.golden]),
            OptionSection(
                heading: "SCOPE AND SPEED",
                options: [
                    Options.sample, Options.jobs, Options.include, Options.exclude, Options.list, Options.shard,
                    Options.resume, Options.timeout, Options.threads,
                ]),
            OptionSection(
                heading: "DECODER",
                options: [Options.decoder, Options.device, Options.requireHardware]),
            OptionSection(heading: "PREVIEWS", options: [Options.previews, Options.previewFrames]),
        ],
        about: """
            Decodes every frame of every file (native planar output) and judges it:
              PASS   every checked frame decoded cleanly, every rule held, golden hashes match
              WARN   a pass with warnings: a warn rule of the policy broken, frames where decoders may differ
              FAIL   a damaged, undecodable or missing frame, a broken rule, a golden mismatch
              ERROR  missing, unreadable, not ProRes, or timed out
            One line per file on stderr, in path order, then a TOTAL line.

            PATH: a file; a directory (every regular file below it, recursively, hidden \
            names skipped); a quoted glob pattern ('clips/*.mov'); or an http:// or https:// \
            URL, read with range requests (its query, a presigned URL's signature, is left out \
            of reports and keys). Files are checked in path order. A PATH that names nothing (missing, empty directory, no match) is \
            an ERROR: a check never passes by finding nothing.
            """,
        epilogue: """
            Previews: K frames evenly spaced among the checked frames that decoded cleanly (with \
            --sample, among the sampled ones), decoded again and converted on the GPU (Vulkan; \
            Mesa lavapipe will do) to linear Display P3; each thumbnail box-filtered to 320 pixels \
            wide (never enlarged), 3 a row, 8 px apart; the full frame is the middle one. 16-bit \
            PNG, P3 with the sRGB curve, highlights above 0.75 rolled off as --save-format png \
            does, alpha shown over an 8-pixel checkerboard of sRGB greys 0.8 and 0.6. They never \
            change a verdict: a file that could not be checked gets none, and when one cannot be \
            made (no Vulkan device...) the report says why ("previews": {"error": ...}) and a \
            warning counts them. They take part of --timeout. Keep DIR outside the checked \
            directories, or the next run checks the PNGs too.

            Statistics in the JSON report (the rules that name them judge them): luma min/mean/max \
            in native code values; black frames and runs (FFmpeg blackdetect's defaults: 98% of \
            the pixels at or below black + 10% of the span; each run's times and dark share); \
            frozen frames and runs (FFmpeg freezedetect's -60 dB: mean absolute difference from \
            the hold's first frame at most 0.001 of the code range, on every 16th sample of \
            every 4th row, or BLAKE3 equal to the previous frame's; each run's times and \
            difference); pixels out of gamut (R'G'B' outside [-0.01, 1.01] by the stream's \
            matrix, on every 4th pixel of every 4th row); \
            codes outside the video range (Y' below 64 or above 940, Cb/Cr below 64 or above \
            960 at 10 bits, x4 at 12); alpha coverage; for PQ/HLG the peak pixel and peak \
            frame-average light in nits, estimated on every 4th pixel of every 4th row. On \
            the GPU decoder they are computed on the device where the frame was decoded \
            (integers exactly as on the CPU, light within 1e-4). Damaged frames are left \
            out: their broken slices hold concealment (black), not picture.

            Exit status: 0 every file passed; 10 at least one file failed; 11 none failed but \
            at least one could not be checked; 15 every file passed, at least one with warnings \
            (--on-warning pass makes it 0, fail 10); 2 usage; 3 golden file unreadable, or the \
            --resume report unreadable or failing its checks (as merge's); 6 a report \
            could not be written; 9 interrupted (--report and --write-golden still hold the \
            files it finished, marked interrupted, for --resume; nothing else is written).
            """)
}
