import ArgumentParser
import Foundation

/// `feedline metrics`: the status as Prometheus metrics.
struct MetricsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Print each pipeline's last run, data age, freshness and today's quota as Prometheus metrics.",
        discussion: """
        Prints the Prometheus text exposition format (feedline_… families with HELP and TYPE): per pipeline the newest run's outcome, start and end time, duration, rows inserted/updated/unchanged, payloads, diagnostics by code and check results by status, the newest data time and its age, the freshness verdict and the pipeline's verdict (the same as `feedline status --check`); runs in the ledger by outcome; per feed API and key variable today's calls, the limit and what is left. No key, fingerprint, URL or error text is ever a label. Only reads the database.

        For node_exporter's textfile collector, give run, replay and schedule --metrics-file PATH (or metrics_file: in feedline.yaml, or FEEDLINE_METRICS_FILE): they rewrite the file after every run, atomically. Here, --metrics-file writes the file instead of printing.

        Examples:
          feedline metrics
          feedline metrics --metrics-file /var/lib/node_exporter/textfile/feedline.prom
        """)

    @Option(help: ArgumentHelp("Write the metrics to this file (atomically) instead of printing them.", valueName: "path"))
    var metricsFile: String?

    @Option(help: ArgumentHelp("Directory of pipeline files (default Pipelines).", valueName: "dir"))
    var pipelinesDir: String?

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let env = try global.environment()
        let paths = Paths(environment: env, database: global.db, pipelines: pipelinesDir)
        try finish(Console(environment: env).metrics(paths: paths, file: metricsFile.map(env.resolve)))
    }
}

extension Console {
    /// `feedline metrics`: prints the metrics, or writes them to `file` (through `OutputFile`).
    /// A reader like `status`: a missing database is refused with 78. Exit 0 whatever the
    /// verdict (the metrics carry it).
    public func metrics(paths: Paths, file: URL? = nil) -> ExitStatus {
        let report: StatusReport
        do throws(CommandRefusal) { report = try StatusReport.read(environment, paths: paths, ledgerFigures: true) } catch { return refused(error) }
        report.warnings.forEach(err)
        let text = Self.metricsText(report, now: environment.clock())
        guard let file else {
            out(String(text.dropLast()))  // `out` ends the line
            return .success
        }
        do throws(OutputFile.Problem) {
            try OutputFile.prepare(file, kind: .metrics, database: OutputFile.Database(paths.database), force: false, makeDirectories: false)
                .write(Data(text.utf8))
        } catch {
            err("error: \(error)")
            return error.refused ? .usage : .failure
        }
        return .success
    }

    /// The metrics file `run`, `replay` or `schedule` rewrites after its runs, checked before
    /// anything runs (a refused path stops the command with 64); nil when none is set.
    func preparedMetricsFile(_ paths: Paths) throws(CommandRefusal) -> OutputFile? {
        guard let url = paths.metricsFile else { return nil }
        do throws(OutputFile.Problem) {
            return try OutputFile.prepare(url, kind: .metrics, database: OutputFile.Database(paths.database), force: false, makeDirectories: false)
        } catch {
            throw CommandRefusal(error.refused ? .usage : .failure, error: error.message)
        }
    }

    /// Rewrites the metrics file after runs that ended with `status`, and returns the status to
    /// exit with: a metrics file that could not be written turns success into failure (what was
    /// asked for did not all happen), and is said on standard error.
    func rewriteMetrics(_ file: OutputFile?, paths: Paths, after status: ExitStatus) -> ExitStatus {
        guard let file else { return status }
        let failed: ExitStatus = status == .success ? .failure : status
        let report: StatusReport
        do throws(CommandRefusal) { report = try StatusReport.read(environment, paths: paths, ledgerFigures: true) } catch {
            err("error: cannot write the metrics to \(file.requested.path): the status could not be read.")
            error.lines.forEach(err)
            return failed
        }
        do throws(OutputFile.Problem) { try file.write(Data(Self.metricsText(report, now: environment.clock()).utf8)) } catch {
            err("error: \(error)")
            return failed
        }
        return status
    }
}
