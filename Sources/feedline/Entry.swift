import App

/// The executable: hands the command line to feedline's command tree.
@main
struct Entry {
    static func main() async {
        await FeedlineCommand.main()
    }
}
