import App
import CProcess
import Foundation

/// The executable: hands the command line to feedline's command tree.
@main
struct Entry {
    static func main() async {
        // `feedline schedule`'s waiting process: one thread, no database (ScheduleSupervisor).
        if let status = ScheduleSupervisor.runIfRequested() { exit(status) }
        // One malloc arena for every thread instead of one per thread that allocates: a replay's
        // decoding and writing threads otherwise each keep freed memory in an arena of their own
        // (peak RSS of a 30-day replay 46.7 → 43.6 MiB, medians of three pairs, at the same CPU;
        // scripts/bench.d/README.md).
        feedline_malloc_one_arena()
        await FeedlineCommand.main()
    }
}
