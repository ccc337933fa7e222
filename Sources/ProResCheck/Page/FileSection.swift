import HostSupport
import ProResCore

/// One checked file's `<section>` of the check page: verdict, reasons,
/// failed rules, format with each colour tag's source, statistics, previews
/// and per-frame graphs. Every file name and message is escaped.
enum FileSection {
    static func html(_ r: FileCheckResult, id: String, pageDirectory: String) -> String {
        let status = r.status.rawValue
        var html =
            "<section class=\"file \(status)\" id=\"\(id)\" data-status=\"\(status)\" data-name=\"\(e(r.input.path))\">\n"
        html +=
            "<h2><span class=\"verdict \(status)\">\(status.uppercased())</span> <span class=\"name\">\(e(r.input.path))</span></h2>\n"
        var facts = [
            "key \(r.input.key)", "\(r.framesDecoded) frame\(r.framesDecoded == 1 ? "" : "s") decoded",
            "\(JSON.number(r.seconds, digits: 3)) s",
        ]
        if let decoder = r.decoder { facts.append("decoder \(decoder)") }
        if let sampled = r.sampled { facts.append("sampled \(sampled.count) frames") }
        html += "<p class=\"note\">\(e(facts.joined(separator: " · ")))</p>\n"

        let reasons =
            r.errors.map { p in p.frame.map { "frame \($0): \(p.reason)" } ?? p.reason }
            + (r.golden?.problem.map { [$0] } ?? [])
        if !reasons.isEmpty {
            html +=
                "<h3>Why</h3>\n<ul class=\"reasons\">\n" + reasons.map { "<li>\(e($0))</li>\n" }.joined() + "</ul>\n"
        }
        if !r.failedRules.isEmpty {
            html +=
                "<h3>Rules not met</h3>\n<table class=\"rules\"><tr><th>expected</th><th>got</th></tr>\n"
                + r.failedRules.map { "<tr><td>\(e($0.rule))</td><td>\(e($0.actual))</td></tr>\n" }.joined()
                + "</table>\n"
        }
        let warnings = r.warnings
        if !warnings.isEmpty {
            html +=
                "<h3>Warnings</h3>\n<ul class=\"warnings\">\n" + warnings.map { "<li>\(e($0))</li>\n" }.joined()
                + "</ul>\n"
        }
        if !r.descriptionChanges.isEmpty {
            html +=
                "<h3>Description changes</h3>\n<ul class=\"changes\">\n"
                + r.descriptionChangeNotes.map { "<li>\(e($0))</li>\n" }.joined() + "</ul>\n"
        }
        if let format = r.format { html += "<h3>Format</h3>\n" + formatTable(format) }
        if let statistics = r.statistics, statistics.frames > 0 {
            html += "<h3>Statistics</h3>\n" + statisticsTable(statistics, note: r.lightNote)
        }
        if let audio = r.audio { html += "<h3>Audio</h3>\n" + audioTable(audio) }
        html += previews(r, pageDirectory: pageDirectory)
        if let series = r.series, let format = r.format, series.lastFrame >= 0 {
            html += "<h3>Per frame</h3>\n"
            var previewed: [Int] = []
            if case .written(_, _, let sheetFrames, _, _)? = r.previews { previewed = sheetFrames }
            html += FrameGraphs.svgs(
                series, statistics: r.statistics, bitDepth: format.nativeFormat.bitDepth, sampled: r.sampled != nil,
                previewed: previewed
            )
            .map { $0 + "\n" }.joined()
        }
        return html + "</section>\n"
    }

    private static func e(_ text: String) -> String { XMLText.escape(text) }

    private static func row(_ name: String, _ value: String, source: String? = nil) -> String {
        "<tr><th>\(e(name))</th><td>\(e(value))</td><td class=\"source\">\(source.map(e) ?? "")</td></tr>\n"
    }

    /// One row a run (the first `shownRuns`, then a count of the rest): its
    /// frames, its time from `start` (a frame index) to the frame after it,
    /// and its number.
    private static func runRows(
        _ name: String, _ runs: [(frames: ClosedRange<Int>, start: Int, number: String)], fps: Double?
    ) -> String {
        let shownRuns = 10
        var rows = runs.prefix(shownRuns).map { run in
            let frames = "frames \(run.frames.lowerBound)–\(run.frames.upperBound)"
            let times = fps.map { fps in
                let (start, end) = (Double(run.start) / fps, Double(run.frames.upperBound + 1) / fps)
                return ", \(JSON.number(start, digits: 3))–\(JSON.number(end, digits: 3)) s"
            }
            return row(name, "\(frames)\(times ?? ""), \(run.number)")
        }.joined()
        if runs.count > shownRuns { rows += row(name, "and \(runs.count - shownRuns) more (see the JSON report)") }
        return rows
    }

    /// The facts `info` prints; a colour tag's third column says where it came from.
    static func formatTable(_ f: FormatDescription) -> String {
        let rate = f.frameRate.map {
            "\($0.numerator)/\($0.denominator) (\(JSON.number(Double($0.numerator) / Double($0.denominator), digits: 3)) fps)"
        }
        var rows =
            row("profile", f.profileName + (f.profile.map { " [\($0.fourCC)]" } ?? ""))
            + row("size", "\(f.width)×\(f.height)")
            + row("display", f.displayWords)
            + row("frame rate", rate ?? "unknown")
            + row("frames", f.frameCount.map(String.init) ?? "unknown")
            + row("duration", f.durationWords ?? "unknown")
            + row("timecode", f.timecodeWords ?? "none")
            + row("chroma", "\(f.chroma.rawValue), \(f.bitDepth)-bit")
            + row("alpha", f.hasAlpha ? "\(f.alpha.bits)-bit" : "none")
            + row("scan", f.fieldOrder.rawValue)
            + row("container", "\(f.containerName), track \(f.trackIndex)")
        for (name, tag) in [
            ("primaries", f.colorTags.primaries), ("transfer", f.colorTags.transfer), ("matrix", f.colorTags.matrix),
        ] {
            rows += row(
                name,
                tag.source == .fallback
                    ? "unspecified; conversions assume \(tag.value.displayName)" : tag.value.displayName,
                source: tag.source.rawValue)
        }
        rows += row("range", f.colorTags.range.value.rawValue, source: f.colorTags.range.source.rawValue)
        if let mastering = f.masteringWords { rows += row("mastering", mastering) }
        if let light = f.contentLightWords { rows += row("light level", light) }
        rows += f.notes.map { row("note", $0) }.joined()
        return "<table class=\"format\">\n" + rows + "</table>\n"
    }

    static func statisticsTable(_ s: FrameStatistics, note: String?) -> String {
        var rows =
            row("frames measured", "\(s.frames)")
            + row(
                "luma min / mean / max",
                "\(s.lumaMin) / \(s.lumaMean.map { JSON.number($0, digits: 2) } ?? "–") / \(s.lumaMax)")
            + row("black frames", "\(s.black.count)") + row("frozen frames", "\(s.frozen.count)")
        rows += runRows(
            "black run",
            zip(s.black.runs, s.blackRunDarkShares).map { run, share in
                (run, run.lowerBound, "dark \(JSON.number(share * 100, digits: 2))%")
            }, fps: s.framesPerSecond)
        rows += runRows(
            "frozen run",
            zip(s.frozen.runs, s.frozenRunDifferences).map { run, difference in
                (run, run.lowerBound - 1, "difference \(JSON.number(difference, digits: 6))")
            }, fps: s.framesPerSecond)
        if s.range == .video {
            let o = s.outOfRange
            rows += row(
                "outside video range",
                "luma \(o.lumaBelow) below, \(o.lumaAbove) above; chroma \(o.chromaBelow) below, "
                    + "\(o.chromaAbove) above; in \(s.outOfRangeFrames) frames")
        }
        if let gamut = s.outOfGamut, let share = s.outOfGamutFraction {
            rows += row(
                "out of gamut",
                "\(gamut.outside) of \(gamut.points) grid pixels (\(JSON.number(share * 100, digits: 4))%)")
        }
        if s.hasAlpha {
            rows += row(
                "alpha frames",
                "\(s.opaqueFrames) opaque, \(s.partialFrames) partial, \(s.transparentFrames) transparent")
        }
        if s.measuresLight {
            rows += row(
                "light",
                "peak \(s.maxNits.map { JSON.number($0, digits: 1) } ?? "–") nits, highest frame average "
                    + "\(s.maxFrameAverageNits.map { JSON.number($0, digits: 1) } ?? "–") nits")
        } else if let note {
            rows += row("light", note)
        }
        return "<table class=\"statistics\">\n" + rows + "</table>\n"
    }

    /// The contact sheet and middle frame, referenced relative to the page.
    /// The sheet marks its damaged (concealed) frames in red; the caption
    /// names them, and the frames that could not be shown at all.
    private static func previews(_ r: FileCheckResult, pageDirectory: String) -> String {
        switch r.previews {
        case nil, .skipped?:
            return ""
        case .failed(let reason)?:
            return "<h3>Previews</h3>\n<p class=\"note\">none: \(e(reason))</p>\n"
        case .written(let sheet, let frame, let sheetFrames, let damagedFrames, let fullFrame)?:
            func list(_ runs: [ClosedRange<Int>]) -> String {
                runs.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)–\($0.upperBound)" }.joined(
                    separator: ", ")
            }
            let marked =
                damagedFrames.isEmpty
                ? ""
                : "; marked in red (damaged, concealed): "
                    + damagedFrames.map(String.init).joined(separator: ", ")
            let notDecoded = r.series?.notDecoded.runs ?? []
            let leftOut = notDecoded.isEmpty ? "" : "; not shown (not decoded): " + list(notDecoded)
            func src(_ path: String) -> String {
                e(RelativePath.urlReference(RelativePath.from(directory: pageDirectory, to: path)))
            }
            return "<h3>Previews</h3>\n"
                + "<figure><img src=\"\(src(sheet))\" alt=\"contact sheet\" loading=\"lazy\">"
                + "<figcaption>contact sheet: frames \(sheetFrames.map(String.init).joined(separator: ", "))\(e(marked + leftOut))</figcaption></figure>\n"
                + "<figure><img src=\"\(src(frame))\" alt=\"frame \(fullFrame)\" loading=\"lazy\">"
                + "<figcaption>frame \(fullFrame), the middle one</figcaption></figure>\n"
        }
    }
}
