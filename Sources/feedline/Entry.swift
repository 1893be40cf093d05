import App
import CProcess
import Foundation
import Storage

/// The executable: hands the command line to feedline's command tree.
@main
struct Entry {
    static func main() async {
        // `feedline schedule`'s waiting process: one thread, no database (ScheduleSupervisor).
        if let status = ScheduleSupervisor.runIfRequested() { exit(status) }
        SQLiteProcess.prepare()  // before any thread or database exists
        // One malloc arena for every thread instead of one per thread that allocates: a replay's
        // decoding and writing threads otherwise each keep freed memory in an arena of their own
        // (peak RSS of a 7-day replay 48.7 → 45.7 MiB, mean of four pairs, at the same CPU;
        // README, "Performance").
        feedline_malloc_one_arena()
        await FeedlineCommand.main()
    }
}
