import ArgumentParser
import Domain
import Foundation
import Pipeline

/// `feedline schedule`: the built-in scheduler.
struct ScheduleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Run scheduled pipelines at their cron times until SIGTERM or Ctrl-C.",
        discussion: """
        Sleeps until the next pipeline is due, then runs it exactly as `feedline run NAME --live` does (run lock, ledger, one transaction). After downtime, slots missed since each pipeline's last start in the ledger are caught up by its catch_up policy: latest (default) runs once, all runs every missed slot (at most --max-catch-up). On SIGTERM or SIGINT the run in hand finishes (its load commits or rolls back) and the scheduler exits 0. When the next fire time is 15 minutes or more away, it waits in a small process of its own (one thread, no database open) and starts the scheduling process again shortly before that time; FEEDLINE_SCHEDULE_PROCESS=single keeps everything in one process.

        Examples:
          AIRKOREA_SERVICE_KEY=… feedline schedule
          feedline schedule airkorea-seoul airkorea-forecast --db /srv/air.sqlite
          feedline schedule --next 5         print the next 5 fire times
          feedline schedule --from-fixtures  fixtures on schedule, no network
        """)

    @Argument(help: "Pipelines to schedule. Default: every pipeline with a schedule.", completion: .pipelineNames)
    var pipelines: [String] = []

    @Flag(help: "Run from the pipelines' fixture files instead of the live API (trying it out, tests).")
    var fromFixtures = false

    @Option(help: ArgumentHelp("Print the next N fire times of each pipeline and exit.", valueName: "N"))
    var next: Int?

    @Option(help: ArgumentHelp("Most runs one catch_up: all pipeline gets after downtime.", valueName: "N"))
    var maxCatchUp: Int = 100

    @Option(help: ArgumentHelp("Directory the pipelines' fixture paths are relative to (default Data/fixtures).", valueName: "dir"))
    var fixtures: String?

    @Option(help: ArgumentHelp("Directory of pipeline files (default Pipelines).", valueName: "dir"))
    var pipelinesDir: String?

    @Option(help: ArgumentHelp("Where live payloads are archived (default Data/archive).", valueName: "dir"))
    var archive: String?

    @Option(help: ArgumentHelp("Rewrite this Prometheus metrics file (node_exporter's textfile collector) after the runs, atomically; default: $FEEDLINE_METRICS_FILE, else metrics_file: in feedline.yaml.", valueName: "path"))
    var metricsFile: String?

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if maxCatchUp < 1 { throw ValidationError("--max-catch-up must be at least 1.") }
        if let next, next < 1 { throw ValidationError("--next must be at least 1.") }
    }

    func run() async throws {
        let env = try global.environment(summaryOnStandardOutput: next == nil)
        let paths = Paths(environment: env, database: global.db, pipelines: pipelinesDir, fixtures: fixtures, archive: archive, metricsFile: metricsFile)
        let feedline = Console(environment: env)
        if let next {
            try finish(feedline.printUpcoming(names: pipelines, paths: paths, count: next))
            return
        }
        // Waiting happens in a process of its own that never opens the database (see
        // ScheduleSupervisor); this returns only in that process's cycles, or with
        // FEEDLINE_SCHEDULE_PROCESS=single.
        if let problem = ScheduleSupervisor.becomeSupervisor(variables: env.variables, quiet: global.quiet) {
            env.errorOutput("warning: feedline schedule: \(problem).")
        }
        let cycle = ScheduleSupervisor.cycle(variables: env.variables)
        let stop = StopSignal()
        let stopper = SignalStopper(stop: stop) { name in
            // A cycle's supervisor says it (and passes the signal on), unless it is gone.
            if let cycle, ScheduleSupervisor.supervisorIsAlive(cycle) { return }
            env.errorOutput("feedline schedule: \(name) received; finishing the run in hand, then stopping.")
        }
        let status = await feedline.schedule(names: pipelines, source: fromFixtures ? .fixtures : .live, paths: paths,
                                             sleeper: .live(clock: env.clock), stop: stop, maximumCatchUp: maxCatchUp, cycle: cycle)
        stopper.cancel()
        try finish(status)
    }
}

/// `feedline crontab`: the schedules for the system's cron or systemd.
struct CrontabCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crontab",
        abstract: "Print crontab lines (or write systemd units) that run the scheduled pipelines.",
        discussion: """
        Every line runs `feedline run NAME --live` in the feedline home, the same code path as `feedline schedule`, so system cron and the built-in scheduler share run locks and the ledger. Lines are grouped by time zone under CRON_TZ=. With no names, every scheduled pipeline; each run appends to LOG-DIR/NAME.log (the directory is created if missing). With --systemd, a service + timer pair per pipeline: printed, or written one file per unit with --output-dir.

        The lines name /usr/local/bin/feedline when this feedline runs from a build directory (install it there: see the README), else this executable; --executable names another.

        Exit codes a supervisor sees: 0 ran; 10 deferred (already running, or today's quota is used up: nothing failed); 75 the source was down; 1 failed; 78 configuration.

        Examples:
          feedline crontab > feedline.cron && crontab feedline.cron
          feedline crontab airkorea-seoul airkorea-forecast
          sudo feedline crontab --systemd --output-dir /etc/systemd/system
        """)

    @Argument(help: "Pipeline names (file names in Pipelines/ without .yaml). Default: all scheduled pipelines.", completion: .pipelineNames)
    var pipelines: [String] = []

    @Flag(help: "Systemd service + timer units instead of crontab lines.")
    var systemd = false

    @Option(help: ArgumentHelp("With --systemd: write one file per unit into this directory instead of printing them.", valueName: "dir"))
    var outputDir: String?

    @Flag(help: "With --output-dir: replace unit files feedline did not write.")
    var force = false

    @Option(help: ArgumentHelp("Path of the feedline executable (default: /usr/local/bin/feedline when this one runs from a build directory, else this one).", valueName: "path"))
    var executable: String?

    @Option(help: ArgumentHelp("Directory for per-pipeline logs (crontab; default HOME/Data/logs, created if missing).", valueName: "dir"))
    var logDir: String?

    @Option(help: ArgumentHelp("Directory of pipeline files (default Pipelines).", valueName: "dir"))
    var pipelinesDir: String?

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if outputDir != nil && !systemd { throw ValidationError("--output-dir writes systemd units: add --systemd.") }
        if force && outputDir == nil { throw ValidationError("--force applies to --output-dir.") }
    }

    func run() async throws {
        let env = try global.environment()
        let paths = Paths(environment: env, database: global.db, pipelines: pipelinesDir)
        let home = (env.home?.root ?? env.workingDirectory).standardizedFileURL.path
        let chosen = executable.map { env.resolve($0).standardizedFileURL.path } ?? Self.defaultExecutable(running: Self.currentExecutable())
        if executable == nil, chosen != Self.currentExecutable() {
            env.errorOutput("note: this feedline runs from a build directory (\(Self.currentExecutable())); the lines name \(chosen), where the README's install step puts it (--executable to name another).")
        }
        let renderer = CrontabRenderer(executable: chosen, home: home, database: paths.databaseForCommands,
                                       logDirectory: logDir.map { env.resolve($0).standardizedFileURL.path } ?? home + "/Data/logs")
        try finish(Console(environment: env).crontab(names: pipelines, paths: paths, renderer: renderer, systemd: systemd,
                                                     outputDirectory: outputDir.map { env.resolve($0) }, force: force,
                                                     makeLogDirectory: true))
    }

    /// Where the lines point by default: the installed path when `running` is a build product
    /// (a path through `.build`), which the next `swift build` replaces or `swift package clean` deletes.
    static func defaultExecutable(running: String) -> String {
        running.split(separator: "/").contains { $0.hasPrefix(".build") } ? installedPath : running
    }

    /// Where the README installs feedline.
    static let installedPath = "/usr/local/bin/feedline"

    /// The running executable's absolute path (`/proc/self/exe` on Linux).
    static func currentExecutable() -> String {
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return target }
        let argument = CommandLine.arguments.first ?? "feedline"
        return URL(fileURLWithPath: argument).standardizedFileURL.path
    }
}

/// `feedline status`: the pipelines at a glance.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show each pipeline's last run, newest data, next fire time and lock holder.",
        discussion: """
        One line per pipeline: last run (start, outcome, rows new/updated/unchanged, diagnostics), age of the newest data and what that time is — measured (the newest measured hour), issued (the newest forecast release), modified (the newest posting change) or loaded (only the load time is known) — with STALE when older than the pipeline's freshness contract (freshness: { warn_after: 3h, error_after: 12h }) or, without one, than twice the schedule's interval, the next fire time in the pipeline's time zone, and who holds its run lock. The table fits COLUMNS or the terminal by shortening and leaving out the least useful columns; --wide prints them all (so does output to a pipe or file when COLUMNS is not set). --json for scripts.

        --check makes it a monitoring plug-in (Nagios, Icinga, Sensu): one line per problem, and exit 0 when every pipeline is fresh and its last run succeeded, 1 on a warning (data past warn_after, or without a contract past twice the schedule's interval; a failing warn check), 2 on an error (data past error_after; a last run that failed or was abandoned; a failing error check; a daily quota used up; a pipeline file that cannot be read). --json carries the same verdicts.

        Examples:
          feedline status
          feedline status --wide
          feedline status --json --db /srv/air.sqlite
          feedline status --check            exit 0 ok, 1 warning, 2 error
        """)

    @Flag(help: "Print a machine-readable JSON object.")
    var json = false

    @Flag(help: "Judge every pipeline: one line per problem; exit 0 ok, 1 warning, 2 error.")
    var check = false

    @Flag(help: "Print every column, however wide.")
    var wide = false

    @Option(help: ArgumentHelp("Directory of pipeline files (default Pipelines).", valueName: "dir"))
    var pipelinesDir: String?

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let env = try global.environment()
        let paths = Paths(environment: env, database: global.db, pipelines: pipelinesDir)
        try finish(Console(environment: env).status(paths: paths, json: json, wide: wide, check: check))
    }
}

extension Console {
    /// `feedline schedule --next N`: the next `count` fire times of each scheduled pipeline, as
    /// a table: one row per fire time, in the pipeline's time zone and in UTC; the pipeline's
    /// name, schedule, zone and catch-up policy on its first row.
    public func printUpcoming(names: [String], paths: Paths, count: Int) -> ExitStatus {
        guard let pipelines = scheduledPipelines(names: names, paths: paths) else { return .configuration }
        let now = environment.clock()
        var table = TextTable(["PIPELINE", "SCHEDULE", "TIME ZONE", "CATCH-UP", "NEXT (LOCAL)", "UTC"])
        for p in pipelines {
            var times: [Date] = []
            var cursor = now
            while times.count < count, let next = p.schedule.nextFireTime(after: cursor) {
                times.append(next)
                cursor = next
            }
            let head = [p.name, p.schedule.expression.text, p.schedule.timeZone.identifier, p.catchUp.rawValue]
            if times.isEmpty { table.append(head + ["(never fires)", ""]) }
            for (i, time) in times.enumerated() {
                let local = Self.localTime(time, zone: p.schedule.timeZone)  // "2024-03-06 16:00 Asia/Seoul (…Z)"
                table.append((i == 0 ? head : ["", "", "", ""]) + [String(local.prefix(16)), iso8601UTC(time)])
            }
        }
        environment.output(table.text)
        return .success
    }

    /// `feedline crontab [NAME…] [--systemd [--output-dir DIR]]`: the schedules for the system
    /// scheduler, printed (crontab lines, or systemd units) or written one file per unit. With
    /// `makeLogDirectory`, the crontab's log directory is created when missing, so the first run
    /// can append to its log (the command does; tests of the text alone do not).
    public func crontab(names: [String] = [], paths: Paths, renderer: CrontabRenderer, systemd: Bool,
                        outputDirectory: URL? = nil, force: Bool = false, makeLogDirectory: Bool = false) -> ExitStatus {
        let pipelines: [PipelineDefinition]
        if names.isEmpty {
            let (all, problems) = PipelineCatalog(directory: paths.pipelines, feeds: environment.feeds, workingDirectory: environment.workingDirectory).loadAll()
            for problem in problems { environment.errorOutput("error: \(problem)") }
            if !problems.isEmpty { return .configuration }
            pipelines = all
        } else {
            do throws(CommandRefusal) { pipelines = try PipelineRuns(environment: environment).select(names: names, paths: paths).pipelines } catch {
                return refused(error)
            }
        }
        if !pipelines.contains(where: { $0.schedule != nil }) {
            environment.errorOutput("error: no pipeline \(names.isEmpty ? "in \(paths.pipelines.path)" : "named here") has a schedule.")
            return .configuration
        }
        do {
            if systemd, let outputDirectory {
                let (units, notes) = try renderer.systemdUnits(pipelines, now: environment.clock())
                for note in notes { environment.errorOutput(note) }
                for unit in units {
                    let file = outputDirectory.appendingPathComponent(unit.name)
                    try OutputFile.prepare(file, kind: .systemdUnit, database: nil, force: force, makeDirectories: false).write(Data(unit.text.utf8))
                    environment.output("wrote \(file.path)")
                }
                environment.output("next: systemctl daemon-reload && systemctl enable --now " + units.filter { $0.name.hasSuffix(".timer") }.map(\.name).joined(separator: " "))
            } else if systemd {
                environment.output(try renderer.systemd(pipelines, now: environment.clock()))
            } else {
                let text = try renderer.crontab(pipelines)
                let logs = URL(fileURLWithPath: renderer.logDirectory)
                if makeLogDirectory, !FileManager.default.fileExists(atPath: logs.path) {
                    try OutputFile.createDirectories(logs)
                    environment.errorOutput("note: created the log directory \(logs.path).")
                }
                environment.output(text)
            }
        } catch let problem as OutputFile.Problem {
            environment.errorOutput("error: \(problem.message)")
            return problem.refused ? .usage : .failure
        } catch {
            environment.errorOutput("error: \(error)")
            return .configuration
        }
        return .success
    }
}
