import ArgumentParser
import Foundation
import Logging

/// `feedline`: the command tree. Commands parse and validate, then hand over to `Console`.
public struct FeedlineCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "feedline",
        abstract: "Ingest public air-quality and career data into SQLite, safely and repeatably.",
        discussion: """
        Pipelines are declared in Pipelines/*.yaml of a feedline home (`feedline init DIR` makes one; commands find it from --home, FEEDLINE_HOME or the directories above the current one). Without API keys, `feedline run` replays the bundled fixture feeds; with keys in the environment, `feedline run --live` fetches from the APIs.

        Examples:
          feedline init air && cd air        a home with example pipelines
          feedline pipelines                 list and validate the pipelines
          feedline run                       run every pipeline on the fixtures
          feedline run airkorea-seoul --live       (AIRKOREA_SERVICE_KEY set)
          feedline replay Data/archive       re-load archived payloads
          feedline check                     test pipelines on their fixtures
          feedline query "select * from measurement_latest"
          feedline status                    last runs, stale data, quota
          feedline status --check            exit 0 ok, 1 warning, 2 error
          feedline metrics                   the same as Prometheus metrics
          feedline drift                     fields feeds added, dropped or retyped
          feedline describe measurement      what a table's columns hold
        """,
        version: "0.1.0",
        subcommands: [InitCommand.self, RunCommand.self, ReplayCommand.self, PipelinesCommand.self, CheckCommand.self, SnapshotCommand.self, FixturesCommand.self,
                      IntakeCommand.self,
                      ScheduleCommand.self, CrontabCommand.self, StatusCommand.self, MetricsCommand.self, DriftCommand.self,
                      QueryCommand.self, ReportCommand.self, BackfillCommand.self, DescribeCommand.self, StoreCommand.self, StateCommand.self, GenerateDocsCommand.self]
    )

    public init() {}

    /// Parses the process's arguments (see `QueryCommand.arguments(_:)` for SQL that starts
    /// with `--`) and runs the command. A first word that is no command (`feedline rnu`) stops
    /// with a usage error naming the closest command (exit 64).
    public static func main() async {
        let arguments = QueryCommand.arguments(Array(CommandLine.arguments.dropFirst()))
        if let message = unknownCommandMessage(arguments) {
            FileHandle.standardError.write(Data((message + "\n").utf8))
            Foundation.exit(ExitStatus.usage.rawValue)
        }
        await main(arguments)
    }

    /// The names `feedline` accepts as its first word (`help` and hidden commands included).
    static var commandNames: [String] {
        configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
    }

    /// The commands a user is shown and offered (not the hidden ones such as `generate-docs`).
    static var visibleCommandNames: [String] {
        configuration.subcommands.filter { $0.configuration.shouldDisplay }.compactMap { $0.configuration.commandName }
    }

    /// An error line for a command line whose first word is not a command, with the closest
    /// command names; nil when the first word is a command or an option.
    static func unknownCommandMessage(_ arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-"), !commandNames.contains(first) else { return nil }
        // Worded like ArgumentParser's own "Unknown option '--lve'. Did you mean '--live'?".
        let hint = Suggestions.didYouMean(first, among: visibleCommandNames + ["help"], quote: "'")
            .map { " \($0.prefix(1).uppercased())\($0.dropFirst())" } ?? ""
        return "Error: Unknown command '\(first)'.\(hint)\n"
            + "Commands: \(visibleCommandNames.joined(separator: ", ")).\n"
            + "  See 'feedline --help' for more information."
    }
}

/// Options every command shares.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("SQLite database file, or a postgres://user@host:port/dbname URL (needs the PostgreSQL build; the password from PGPASSWORD or ~/.pgpass).", valueName: "path-or-url"))
    var db: String?

    @Option(name: .long, help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error, critical.", valueName: "level"))
    var logLevel: String = "warning"

    @Option(name: .long, help: ArgumentHelp("Log format on standard error: human, or json (one JSON object a line, error messages included); default: $FEEDLINE_LOG_FORMAT, else log_format: in feedline.yaml, else human.", valueName: "format"))
    var logFormat: String?

    @Option(name: .long, help: ArgumentHelp("The feedline home (made by `feedline init`); default: $FEEDLINE_HOME, else the nearest directory up from here holding feedline.yaml or Pipelines/.", valueName: "dir"))
    var home: String?

    @Flag(name: .long, help: "Print only what was asked for and what went wrong: query rows, tables, --json documents, --dry-run plans, errors and warnings. Leaves out the progress line, run and backfill summaries and notes (the exit code still says how it went).")
    var quiet = false

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical.")
        }
        if let logFormat, LogFormat(rawValue: logFormat) == nil {
            throw ValidationError("--log-format must be \(LogFormat.choices), not '\(logFormat)'.")
        }
    }

    /// Builds the live environment with logging on stderr at the chosen level and format, in the
    /// home found from --home, FEEDLINE_HOME or the working directory (exit 78 when a named home
    /// is missing, its feedline.yaml is invalid, or FEEDLINE_LOG_FORMAT names no format). Log
    /// events, error lines and standard output pass through the secret scrubber (`SecretRedaction`)
    /// in both formats.
    ///
    /// `summaryOnStandardOutput`: the command prints only summaries on standard output (`run`
    /// and `replay` without --json, `backfill` without --json or --dry-run, the scheduler), so
    /// --quiet silences it; commands that print data leave it false.
    func environment(summaryOnStandardOutput: Bool = false) throws -> AppEnvironment {
        let level = Logger.Level(rawValue: logLevel) ?? .warning
        var environment = AppEnvironment.live(logger: Logger(label: "feedline") { _ in SwiftLogNoOpLogHandler() })
        let redaction = SecretRedaction(variables: environment.variables, feeds: environment.feeds)
        let standardError = environment.errorOutput
        // Until the format is known (it may come from the home's feedline.yaml): the flag's or
        // the environment's, if valid.
        let early = (try? LogFormat.resolve(flag: logFormat, variables: environment.variables, home: nil)) ?? .human
        environment.errorOutput = FeedlineLogging.errorOutput(format: early, redaction: redaction, write: standardError)
        let format: LogFormat
        do {
            environment.home = try FeedlineHome.locate(explicit: home, variables: environment.variables, from: environment.workingDirectory)
            format = try LogFormat.resolve(flag: logFormat, variables: environment.variables, home: environment.home)
        } catch {
            environment.errorOutput("error: \(error)")
            throw ExitCode(ExitStatus.configuration.rawValue)
        }
        environment.logger = FeedlineLogging.logger(format: format, level: level, redaction: redaction)
        environment.errorOutput = FeedlineLogging.errorOutput(format: format, redaction: redaction, write: standardError)
        if !redaction.isEmpty {
            let standardOutput = environment.output
            environment.output = { text in standardOutput(redaction.scrub(text)) }
        }
        if format == .json {
            // No progress line: standard error holds only JSON lines.
            return quiet ? Self.quieted(environment, summaryOnStandardOutput: summaryOnStandardOutput) : environment
        }
        if quiet { return Self.quieted(environment, summaryOnStandardOutput: summaryOnStandardOutput) }
        return TerminalProgress.attach(to: environment)
    }

    /// `environment` as --quiet makes it: no progress line (it is never attached), `note:`
    /// lines left out of standard error, and standard output silenced when it carries only
    /// summaries — except what went wrong: a summary's `error:` and `warning:` lines (a failed
    /// run's error, a warning check) go to standard error. Quiet means no progress, not no errors.
    static func quieted(_ environment: AppEnvironment, summaryOnStandardOutput: Bool) -> AppEnvironment {
        var quiet = environment
        let errorOutput = environment.errorOutput
        quiet.errorOutput = { text in if !text.hasPrefix("note: ") { errorOutput(text) } }
        if summaryOnStandardOutput {
            quiet.output = { text in
                for line in text.split(separator: "\n") {
                    let trimmed = line.drop { $0 == " " }
                    if trimmed.hasPrefix("error: ") || trimmed.hasPrefix("warning: ") { errorOutput(String(trimmed)) }
                }
            }
        }
        return quiet
    }
}

func finish(_ status: ExitStatus) throws {
    if status != .success { throw ExitCode(status.rawValue) }
}

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run pipelines: fetch (or read fixtures) → parse → map → transform → load.",
        discussion: """
        With no names, runs every pipeline in the pipelines directory. By default payloads come from each pipeline's fixture files; --live fetches from the API (keys from the environment: \(AppEnvironment.credentialVariables.joined(separator: ", ")); calls are paced to each feed's rate limits). Each pipeline loads in one transaction: it commits whole or not at all, and re-running the same payloads changes nothing.

        Examples:
          feedline run
          feedline run airkorea-seoul --db /tmp/air.sqlite
          feedline run airkorea-provinces --live --json
        """)

    @Argument(help: "Pipeline names (file names in Pipelines/ without .yaml). Default: all.", completion: .pipelineNames)
    var pipelines: [String] = []

    @Flag(help: "Fetch from the live API instead of the fixture files.")
    var live = false

    @Option(help: ArgumentHelp("Directory the pipelines' fixture paths are relative to (default Data/fixtures).", valueName: "dir"))
    var fixtures: String?

    @Option(help: ArgumentHelp("Directory of pipeline files (default Pipelines).", valueName: "dir"))
    var pipelinesDir: String?

    @Option(help: ArgumentHelp("Where live payloads are archived (default Data/archive).", valueName: "dir"))
    var archive: String?

    @Flag(help: "Print a machine-readable JSON summary.")
    var json = false

    @Flag(help: "Print the request plan (redacted URLs) and its quota cost; call and write nothing.")
    var dryRun = false

    @Flag(help: "Fetch every page again, even pages an interrupted live run of the same plan archived (by default they are loaded from the archive).")
    var fresh = false

    @Option(help: ArgumentHelp("Rewrite this Prometheus metrics file (node_exporter's textfile collector) after the runs, atomically; default: $FEEDLINE_METRICS_FILE, else metrics_file: in feedline.yaml.", valueName: "path"))
    var metricsFile: String?

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if live && fixtures != nil { throw ValidationError("--live and --fixtures exclude each other.") }
        if fresh && !live { throw ValidationError("--fresh applies to live runs (--live).") }
    }

    func run() async throws {
        let env = try global.environment(summaryOnStandardOutput: !json && !dryRun)
        let paths = Paths(environment: env, database: global.db, pipelines: pipelinesDir, fixtures: fixtures, archive: archive, metricsFile: metricsFile)
        try finish(await Console(environment: env).run(names: pipelines, source: live ? .live : .fixtures, paths: paths, json: json, dryRun: dryRun,
                                                                    fresh: fresh))
    }
}

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Re-load saved payloads (an archive or any directory of .xml/.json files) with no network.",
        discussion: """
        Archived payloads carry their request beside them; for plain files feedline recognises the feed and operation from the payload's shape, or takes --source. A file that cannot be recognised or parsed is reported on one line and the other files still load. Payloads whose exact bytes were loaded before are skipped (use --force to load them again). A file that has not changed since an earlier replay hashed it (same inode, size and times) is not read again: its hash is remembered under FEEDLINE_CACHE_DIR (--force reads every file). --checks runs a pipeline's declared checks on the replay's load, as a run of that pipeline does (an error check fails the replay).

        Examples:
          feedline replay Data/archive
          feedline replay saved/ --source airkorea --param stationName=종로구
          feedline replay Data/archive/airkorea --checks airkorea-seoul
        """)

    @Argument(help: "Files or directories to replay.")
    var inputs: [String]

    @Option(help: ArgumentHelp("Feed of plain files that carry no metadata (e.g. airkorea).", valueName: "name"))
    var source: String?

    @Option(name: .customLong("param"), help: ArgumentHelp("Request parameter the payloads omit, e.g. stationName=종로구 (repeatable).", valueName: "name=value"))
    var params: [String] = []

    @Flag(help: "Load payloads even if the same bytes were loaded before.")
    var force = false

    @Option(help: ArgumentHelp("Run this pipeline's declared checks on the load.", valueName: "pipeline"), completion: .pipelineNames)
    var checks: String?

    @Option(help: ArgumentHelp("Directory of pipeline files, for --checks and the metrics (default Pipelines).", valueName: "dir"))
    var pipelinesDir: String?

    @Option(help: ArgumentHelp("Rewrite this Prometheus metrics file (node_exporter's textfile collector) after the runs, atomically; default: $FEEDLINE_METRICS_FILE, else metrics_file: in feedline.yaml.", valueName: "path"))
    var metricsFile: String?

    @Flag(help: "Print a machine-readable JSON summary.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        for p in params where !p.contains("=") { throw ValidationError("--param expects name=value, got '\(p)'.") }
    }

    func run() async throws {
        let env = try global.environment(summaryOnStandardOutput: !json)
        let parameters = Dictionary(params.map { p -> (String, String) in
            let parts = p.split(separator: "=", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }, uniquingKeysWith: { _, b in b })
        let paths = Paths(environment: env, database: global.db, pipelines: pipelinesDir, metricsFile: metricsFile)
        try finish(await Console(environment: env).replay(inputs: inputs, sourceHint: source, parameters: parameters, paths: paths, force: force,
                                                          json: json, checksFrom: checks))
    }
}

struct PipelinesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipelines",
        abstract: "List and validate the pipeline files.",
        discussion: """
        Prints a table of the valid pipelines (name, feed/operation, format, schedule, time zone, parameters); a table of what their schedules spend of each daily quota (a key on an API: the calls on the busiest day of the coming year, at least one a request, against the limit, with each pipeline's calls a run × runs that day); a table of every problem in every invalid file (its path, the field, what is wrong); then the counts. --json prints one JSON object instead. A fixture file that does not exist is a warning, and so are schedules that exceed a daily quota or use more than 80% of it. Exits 78 if any file is invalid. Pipeline names complete in the shell for `run`, `schedule` and `backfill` (see Data/completions/).

        Examples:
          feedline pipelines                     list and check Pipelines/*.yaml
          feedline pipelines --pipelines-dir ci  check another directory's files
          feedline pipelines --json              every pipeline and problem as JSON
          feedline pipelines && feedline run     run only when every file is valid
        """)

    @Option(help: ArgumentHelp("Directory of pipeline files (default Pipelines).", valueName: "dir"))
    var pipelinesDir: String?

    @Option(help: ArgumentHelp("Fixtures directory, to check the files pipelines name (default Data/fixtures).", valueName: "dir"))
    var fixtures: String?

    @Flag(help: "Print one JSON object: the pipelines, every problem (file, field, message) and the counts.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let env = try global.environment()
        let paths = Paths(environment: env, database: global.db, pipelines: pipelinesDir, fixtures: fixtures)
        try finish(Console(environment: env).listPipelines(paths: paths, json: json))
    }
}
