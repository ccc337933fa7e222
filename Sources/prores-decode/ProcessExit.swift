import Glibc

/// How the command line ends its process once its work and output are done.
///
/// Why `_exit` and not `exit`: `exit` first runs every library's exit
/// handlers, and the NVIDIA driver's take down its own state one piece at a
/// time — work the kernel does anyway when the process goes, on whatever is
/// left. On a discrete NVIDIA GPU skipping them takes `check`'s exit (its
/// last line to the process gone) from 107 to 91 ms. Nothing of ours needs an exit
/// handler: the console writes straight to its descriptors, output files are
/// closed and renamed before the summary, temporaries are removed by
/// `TemporaryFiles`, and the devices are idle (`KeptUntilExit.quiesce`).
/// C stdio is flushed first, for anything written through it.
enum ProcessExit {
    static func now(_ status: Int32) -> Never {
        fflush(nil)
        _exit(status)
    }
}
