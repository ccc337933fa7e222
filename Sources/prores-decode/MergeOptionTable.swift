import ProResOptions

/// `merge`'s table: every option, its help, and the prose around them.
extension MergeCommand {
    /// `merge`'s own option, and the shared ones in `merge`'s words.
    enum Options {
        static let report = SharedOptions.report.explained(
            "the merged JSON report: every shard's file lines, in path order, and the totals")
        static let html = SharedOptions.html.explained(
            "a page to look at: verdicts, reasons, formats and --previews pictures linked relative to FILE's "
                + "directory (per-frame graphs stay on each shard's own page)")
        static let writeGolden = SharedOptions.writeGolden.explained(
            "join the shards' golden files: each is found beside its report, under the name the shard's "
                + "--write-golden gave it")
        static let overwrite = SharedOptions.overwrite.explained(
            "also replace an existing --write-golden file", short: "also replace an existing --write-golden file")
        static let noOverwrite = SharedOptions.noOverwrite.explained(
            "never replace an existing report, JUnit or HTML file either",
            short: "never replace a report, JUnit or HTML file")
        static let list = Option<String>(
            "--list", value: "FILE", short: "the list the shards checked (check --list)",
            long: "the list the shards checked (check --list FILE): when a shard's report is missing, each of "
                + "its files is named on stderr (the list must give the digest the shards recorded)")
    }

    static let spec = CommandSpec(
        name: "merge", operands: "REPORT.json...", summary: "join the shard reports of one check into one",
        sections: [
            OptionSection(
                heading: "OUTPUTS",
                options: [
                    Options.report, SharedOptions.junit, Options.html, Options.writeGolden, Options.overwrite,
                    Options.noOverwrite, SharedOptions.onWarning,
                ]),
            OptionSection(heading: "INPUTS", options: [Options.list]),
        ],
        about: """
            Reads the JSON reports (--report) of the shards of one check run and proves \
            they are one run's (the same options, the same file list, the same shard count, \
            each shard once) and that together they cover the list exactly once (no file \
            twice, each in the shard its key belongs to); then writes one report as \
            check would have for the whole list. Relative preview paths are taken as \
            relative to each report's directory: keep a shard's report, golden file and \
            previews together as check wrote them.
            """,
        epilogue: """
            Exit status: as check's: 0 every file passed; 10 at least one failed; 11 none \
            failed but at least one could not be checked; 15 every file passed, at least one \
            with warnings (--on-warning); 2 the reports are not one run's \
            shards, or miss or repeat files (each problem named on stderr, nothing written); \
            3 a report or golden file is missing or unreadable, or a report fails its checks (a \
            file line not as check writes it, a status word its errors, failed rules and golden \
            result contradict, file lines that do not give its files_digest, totals that are not \
            its lines'): one line names the report and the file, nothing is written; 6 an output \
            could not be written.
            """)
}
