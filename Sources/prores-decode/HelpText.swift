import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU
import ProResPipeline

enum HelpText {
    static let main = """
    prores-decode: decode Apple ProRes into Apple's y416/v216 layouts

    USAGE
      prores-decode INPUT [options]          decode (INPUT: file, URL, or - for stdin)
      prores-decode info INPUT [--json] [--track N]
      prores-decode devices [--json]        list Vulkan devices
      prores-decode check PATH... [options] batch QC for CI: decode every file, report
                                            pass/fail/error (see check --help)
      prores-decode roofline [--device N|NAME] [--json]
                                            GPU bandwidth ceilings and the conversion against them
      prores-decode bench INPUT... [--decoders cpu,gpu,gpu-host] [--frames N] [--threads N]
                          [--batch N] [--device N|NAME] [--json]
                                            CPU vs GPU decoder on the same in-memory frames
      prores-decode --help | --version

    DECODE OPTIONS
      --format y416|v216|native   output layout (default: the profile's native packed
                                  layout, v216 for 4:2:2 and y416 for 4:4:4)
      -o, --output PATH|-         write raw frames, concatenated
      --framemd5 PATH|-           write one line per frame: index, pts, size, md5
      --timing PATH|-             write per-frame timing as JSON lines
      --json                      print the end-of-run summary as JSON (stdout, or
                                  stderr when stdout carries data)
      --start N                   first frame to decode (exact: ProRes is intra-only)
      --frames N                  decode at most N frames
      --threads N                 FFmpeg decoder threads (default: one per core)
      --track N                   stream index of the ProRes track (default: the first)
      --overwrite                 replace existing output files
      --quiet                     no progress line, warnings or summary on stderr
      --verbose                   also show FFmpeg's own diagnostics

    DECODER OPTIONS
      --decoder cpu|gpu|auto      cpu: FFmpeg; gpu: our Vulkan compute ProRes decoder
                                  (bit-exact with FFmpeg), on any Vulkan device;
                                  auto (default): gpu on a hardware GPU, else cpu
      --require-hardware          the GPU decoder on a hardware GPU, or exit 13
      --no-hardware               FFmpeg on the CPU (= --decoder cpu)

    GPU OPTIONS
      --vulkan                    also convert every frame on the GPU to RGBA16F
                                  extended linear Display P3 (D65), straight alpha
      --device N|NAME             Vulkan device (default: a discrete GPU, else an
                                  integrated one, else Mesa lavapipe)
      --reference-white NITS      nits that map to 1.0 for PQ and HLG (default 203)
      --save DIR                  write converted frames as DIR/frame-NNNNNN.exr
                                  (implies --vulkan)
      --save-format exr|png       EXR: half-float linear P3; PNG: 16-bit sRGB-encoded
                                  P3 preview with highlights rolled off
      --validate                  enable the Khronos validation layer (with --vulkan
                                  or the GPU decoder)
      --effect SPEC               a GPU pass on every converted frame (repeat for a
                                  chain, applied in order; nothing clamps HDR):
          sepia[:AMOUNT]            towards a sepia tone of the same luminance (0..1, default 1)
          exposure:STOPS            multiply by 2^STOPS (-20..20)
          saturation:S              0 grey, 1 unchanged, up to 10
          chroma-key:color=R,G,B[,tolerance=T][,softness=S]
                                    alpha from the distance to the key in the clip's Cb/Cr
                                    plane; key in the clip's own R'G'B' 0..1 (0,1,0 for a pure
                                    green screen); T 0.1 and S 0.1 by default
          lut:FILE.cube[,shaper=pq|linear]
                                    3D LUT, tetrahedral; pq (default): the LUT maps PQ-encoded
                                    P3 (1.0 = the reference white), linear: linear values;
                                    input outside the LUT's domain is clamped to it

    PLAYBACK OPTIONS
      --realtime                  present frames on a steady clock at the media's frame rate,
                                  as a display link does: the summary (and the last --timing
                                  line) reports presented, late and dropped frames and the
                                  pacing jitter; outputs still get every frame
      --rate FPS                  the clock's rate instead (1 to 1000: 25, 29.97, 30000/1001)

    With no -o/--framemd5 the frames are decoded and discarded (a benchmark run).
    Outputs appear only when complete: they are written under a temporary name
    and renamed; an aborted run leaves nothing behind.

    LAYOUTS (16-bit little-endian samples, rows tightly packed)
      y416    A Y' Cb Cr per pixel; Y'CbCr MSB-aligned (v << (16 - depth)),
              alpha widened by bit replication (opaque = 65535)
      v216    Cb Y'0 Cr Y'1 per pixel pair, MSB-aligned
      native  the decoder's planar format (e.g. yuv422p10le), planes Y Cb Cr [A],
              LSB-aligned: identical to `ffmpeg -f rawvideo`

    EXIT CODES
    """

    static let check = """
    usage: prores-decode check PATH... [--report FILE.json] [--junit FILE.xml]
                               [--expect RULES] [--golden FILE] [--write-golden FILE]
                               [--sample N] [--jobs N] [--shard I/N] [--timeout SECONDS]
                               [--threads N] [--overwrite] [--verbose]
                               [--previews DIR [--preview-frames K]]

    Decodes every frame of every file (native planar output) and judges it:
      PASS   every checked frame decoded cleanly, every rule held, golden md5s match
      FAIL   a frame damaged, undecodable or missing, a broken rule, a golden mismatch
      ERROR  missing, unreadable, not ProRes, or timed out
    One line per file on stderr, in path order, then a TOTAL line.

    PATH: a file; a directory (every regular file below it, recursively, hidden
    names skipped); or a quoted glob pattern ('clips/*.mov'). Files are checked in
    path order. A PATH that names nothing (missing, empty directory, no match) is
    an ERROR: a check never passes by finding nothing.

      --report FILE|-         JSON report: {"files":[...],"summary":{...}}
      --junit FILE|-          JUnit XML: one testcase per file
      --expect RULES          comma-separated rules every file must meet:
                                profile=hq (proxy, lt, 422, hq, 4444, 4444xq), size=1920x1080,
                                alpha=true, interlaced=false, chroma=4:2:2,
                                transfer=pq, primaries=bt2020, matrix=bt2020nc (FFmpeg's
                                names as info prints them, aliases pq hlg srgb p3; the value
                                must be stated by the file: 'untagged' matches a fallback),
                                frames>=24, width, height, fps, bit-depth, max-nits
                                with =, !=, >=, <=, >, < (fps equal to 3 decimals)
      --golden FILE           fail files whose per-frame md5s differ from FILE's
                              (or that FILE does not list)
      --write-golden FILE     write per-frame md5s of files that decoded cleanly
                              (names relative to the directory argument)
      --sample N              check only N evenly spaced frames per file, first and
                              last included: round(i*(frames-1)/(N-1))
      --jobs N                check N files at once (default 1), each decoder with
                              max(1, cores/N) threads; the output order never changes
      --shard I/N             check only files I, I+N, I+2N... of the sorted list (1-based)
      --timeout SECONDS       per file, opening included (default 600): ERROR "timed out"
      --threads N             FFmpeg threads per file (default: max(1, cores/jobs))
      --overwrite             replace existing report and golden files
      --verbose               also show FFmpeg's own diagnostics, and each file's previews
      --previews DIR          per file, a contact sheet and a full frame to look at:
                              DIR/KEY.sheet.png and DIR/KEY.frame.png (KEY as in the
                              report: the path relative to its directory argument, or as
                              given, '/' written '__'); DIR is created if missing,
                              same-named previews are replaced
      --preview-frames K      frames on the contact sheet (default 6, at most 100)

    Previews: K frames evenly spaced among the checked frames that decoded cleanly (with
    --sample, among the sampled ones), decoded again and converted on the GPU (Vulkan;
    Mesa lavapipe will do) to linear Display P3; each thumbnail box-filtered to 320 pixels
    wide (never enlarged), 3 a row, 8 px apart; the full frame is the middle one. 16-bit PNG, P3 with the sRGB curve, highlights above 0.75 rolled off as
    --save-format png does, alpha shown over an 8-pixel checkerboard of sRGB greys 0.8 and
    0.6. They never change a verdict: a file that could not be checked gets none, and
    when one cannot be made (no Vulkan device...) the report says why ("previews":
    {"error": ...}) and a warning counts them. They take part of --timeout. Keep DIR
    outside the checked directories, or the next run checks the PNGs too.

    Statistics in the JSON report (they inform, never fail a file): luma min/mean/max
    in native code values; black frames (mean luma within 2% of the black..white span
    above video black); frozen frames (md5 equal to the previous checked frame's);
    alpha coverage; for PQ/HLG the peak pixel and peak frame-average light in nits,
    estimated on every 4th pixel of every 4th row. Damaged frames are left out:
    their broken slices hold concealment (black), not picture.

    Exit status: 0 every file passed; 10 at least one file failed; 11 none failed but
    at least one could not be checked; 2 usage; 3 golden file unreadable; 6 a report
    could not be written; 9 interrupted (no report is written).
    """

    static var exitCodes: String {
        ExitCode.allCases.map { "  \(String($0.rawValue).padding(toLength: 4, withPad: " ", startingAt: 0)) \($0.meaning)" }
            .joined(separator: "\n")
    }
}
