import ArgumentParser
import Domain
import Foundation

/// `feedline backfill`: fills missing station-hours of a realtime-by-station pipeline.
struct BackfillCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backfill",
        abstract: "Fetch only the station-hours a realtime-by-station pipeline is missing between two dates.",
        discussion: """
        Looks up which hours each station of the pipeline has (the measurement_completeness view). For each station with gaps it asks AirKorea for the smallest dataTerm (DAILY, MONTH, 3MONTH) that reaches the oldest missing hour, within what is left of today's quota (FEEDLINE_QUOTA_AIRKOREA, default 500 calls a day). Loads go through the same path as `feedline run --live`: one transaction per dataTerm, recorded in the run ledger as PIPELINE:backfill. It then prints what was missing, what was filled and what is still missing. Dates are KST calendar days; AirKorea keeps about three months.

        Exit codes: 0 every planned request loaded (hours the API does not have may remain); 3 some stations were left for lack of quota, or some loads failed; 75 nothing could be fetched for quota or a transient error; 1 a terminal failure; 78 a missing key, an invalid setting or a pipeline that is not realtime-by-station.

        Examples:
          feedline backfill airkorea-jongno --from 2024-03-01 --to 2024-03-06
          feedline backfill airkorea-jongno --from 2024-02-01 --to 2024-03-06 --dry-run
          feedline backfill airkorea-jongno --from 2024-03-01 --to 2024-03-06 --json
        """)

    @Argument(help: "The pipeline (a realtime-by-station pipeline in Pipelines/).", completion: .pipelineNames)
    var pipeline: String

    @Option(help: ArgumentHelp("First KST day to fill (YYYY-MM-DD).", valueName: "date"))
    var from: String

    @Option(help: ArgumentHelp("Last KST day to fill (YYYY-MM-DD), inclusive.", valueName: "date"))
    var to: String

    @Option(help: ArgumentHelp("Rows per page for the backfill requests (default 1000).", valueName: "n"))
    var pageSize: Int?

    @Flag(help: "Print what is missing and the plan (with its quota cost); fetch and write nothing.")
    var dryRun = false

    @Flag(help: "Print one JSON object at the end (what was missing, the plan, the quota, the loads, what is still missing) instead of the lines.")
    var json = false

    @Option(help: ArgumentHelp("Directory of pipeline files (default Pipelines).", valueName: "dir"))
    var pipelinesDir: String?

    @Option(help: ArgumentHelp("Where live payloads are archived (default Data/archive).", valueName: "dir"))
    var archive: String?

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard let start = LocalDate(iso: from) else { throw ValidationError("--from must be a date written YYYY-MM-DD, not '\(from)'.") }
        guard let end = LocalDate(iso: to) else { throw ValidationError("--to must be a date written YYYY-MM-DD, not '\(to)'.") }
        guard start <= end else { throw ValidationError("--from (\(from)) must not be after --to (\(to)).") }
        if let pageSize, !(1...10_000).contains(pageSize) { throw ValidationError("--page-size must be in 1…10000.") }
    }

    func run() async throws {
        let env = try global.environment(summaryOnStandardOutput: !json && !dryRun)
        let paths = Paths(environment: env, database: global.db, pipelines: pipelinesDir, archive: archive)
        try finish(await Console(environment: env).backfill(pipeline: pipeline, from: LocalDate(iso: from)!, through: LocalDate(iso: to)!,
                                                             paths: paths, pageSize: pageSize, dryRun: dryRun, json: json))
    }
}
