import App
import Storage

/// The executable: hands the command line to feedline's command tree.
@main
struct Entry {
    static func main() async {
        SQLiteProcess.prepare()  // before any thread or database exists
        await FeedlineCommand.main()
    }
}
