import ArgumentParser
import Foundation

struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a feedline home: example pipelines, their fixture feeds, saved queries, feedline.yaml.",
        discussion: """
        Writes DIR/feedline.yaml (where the database, archive, pipelines, fixtures and saved queries live, relative to DIR), DIR/Pipelines/*.yaml, DIR/Data/fixtures/… and DIR/Data/queries/*.sql from copies inside feedline, so it works without the source tree. Files already there are kept (use --force to replace them). Afterwards every feedline command run in DIR or below it finds the home, as git finds its repository; elsewhere use --home DIR or FEEDLINE_HOME=DIR.

        Examples:
          feedline init air && cd air && feedline run
          feedline query latest
          feedline init . --force
        """)

    @Argument(help: ArgumentHelp("The directory to create or fill.", valueName: "dir"))
    var directory: String

    @Flag(help: "Replace files that already exist (pipelines, fixtures, queries, feedline.yaml).")
    var force = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let env = try global.environment()
        try finish(Console(environment: env).initHome(at: env.resolve(directory), named: directory, overwrite: force))
    }
}

extension Console {
    /// `feedline init DIR`: writes a home and says what to do next. Exit: 0 written (or already
    /// there); 1 a file could not be written.
    public func initHome(at directory: URL, named: String, overwrite: Bool) -> ExitStatus {
        let report: Scaffold.Report
        do { report = try Scaffold.create(at: directory, overwrite: overwrite) } catch {
            environment.errorOutput("error: \(error)")
            return .failure
        }
        let pipelines = report.written.filter { $0.hasPrefix("Pipelines/") }.count
        environment.output("feedline home \(directory.path): wrote \(report.written.count) files (\(pipelines) pipelines)"
                           + (report.kept.isEmpty ? "" : ", kept \(report.kept.count) that were already there (--force replaces them)") + ".")
        let cd = named == "." ? "" : "cd \(named.contains(" ") ? "'\(named)'" : named) && "
        let next = [("\(cd)feedline run", "load every pipeline from its fixtures (no key, no network)"),
                    ("feedline status", "what ran, rows, diagnostics"),
                    ("feedline query latest", "newest measurement per station (feedline query --list for more)")]
        let width = next.map { DisplayWidth.columns($0.0) }.max() ?? 0
        environment.output((["Next:"] + next.map { "  " + DisplayWidth.pad($0.0, toColumns: width) + "   " + $0.1 }).joined(separator: "\n"))
        return .success
    }
}
