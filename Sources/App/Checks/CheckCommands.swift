import ArgumentParser
import Foundation

/// `feedline check`: regression tests of the pipelines on their fixture feeds.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Test pipelines on their fixtures: declared checks, and snapshots of the rows they produce.",
        discussion: """
        Replays each pipeline's fixture files into a temporary database (never the --db one), runs the checks its file declares (checks:) and compares the rows its fixtures produce with its snapshot files (snapshots:, written by `feedline snapshot`). Differences are listed row by row: rows added or removed and cells changed, each naming table, key and column. Error checks keep their rows here so the snapshots are still compared; warn checks are reported and do not fail. Freshness checks apply to live runs only and are skipped.

        With no names, checks every pipeline that declares checks or snapshots. Exits 1 when an error check fails, a snapshot differs or is missing, or fixtures do not load; 78 when only pipeline files are invalid. --junit writes JUnit XML (one testcase per check and per snapshot) for CI; --json prints the results for scripts.

        Examples:
          feedline check
          feedline check airkorea-seoul
          feedline check --junit build/feedline-checks.xml --mkdir
          feedline check --json | jq '.pipelines[].snapshots[].status'
        """)

    @Argument(help: "Pipeline names (file names in Pipelines/ without .yaml). Default: all that declare checks or snapshots.",
              completion: .pipelineNames)
    var pipelines: [String] = []

    @Option(help: ArgumentHelp("Write the results as JUnit XML to this file: a new file, or one an earlier --junit wrote (never a directory, device, the database or any SQLite file).", valueName: "file"))
    var junit: String?

    @Flag(help: "With --junit: replace an existing file that is not a JUnit report feedline wrote.")
    var force = false

    @Flag(name: .customLong("mkdir"), help: "With --junit: create the missing directories of the path.")
    var makeDirectories = false

    @Flag(help: "Print the results as one JSON object.")
    var json = false

    @OptionGroup var files: FixtureFileOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let env = try global.environment()
        let paths = files.paths(env, database: global.db)
        try finish(await Console(environment: env).check(names: pipelines, paths: paths, json: json, junit: junit,
                                                                        force: force, makeDirectories: makeDirectories))
    }
}

/// `feedline snapshot`: records what a pipeline's fixtures produce.
struct SnapshotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Write the rows a pipeline's fixtures produce to its snapshot files, for `feedline check`.",
        discussion: """
        Replays each pipeline's fixture files into a temporary database (never the --db one) and writes the tables its file lists under snapshots: — the chosen columns, ordered by the key, as CSV (NULL is an empty field, the empty string "") or JSON — beside the fixtures: <feed>/snapshots/<pipeline>.<table>.csv under the fixtures directory unless a snapshot names its file. Says of each file whether it is new, updated (with the differences) or unchanged; review and commit them with the fixtures. Loads run at a fixed clock (2099-01-01T00:00:00Z, after any recorded data), so what a load takes from the clock is the same on every replay.

        With no names, writes the snapshots of every pipeline that declares some.

        Examples:
          feedline snapshot airkorea-seoul
          feedline snapshot
          feedline snapshot saramin-postings && git diff Data/fixtures
        """)

    @Argument(help: "Pipeline names (file names in Pipelines/ without .yaml). Default: all that declare snapshots.",
              completion: .pipelineNames)
    var pipelines: [String] = []

    @Flag(help: "Print what was written as one JSON object.")
    var json = false

    @Flag(help: "Replace a snapshot file that is not one feedline wrote (never a directory, device or SQLite file).")
    var force = false

    @OptionGroup var files: FixtureFileOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let env = try global.environment()
        let paths = files.paths(env, database: global.db)
        try finish(await Console(environment: env).snapshot(names: pipelines, paths: paths, json: json, force: force))
    }
}

/// Where `check` and `snapshot` find the pipelines, their fixtures and snapshot files.
struct FixtureFileOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Directory the pipelines' fixture and snapshot paths are relative to (default Data/fixtures).", valueName: "dir"))
    var fixtures: String?

    @Option(help: ArgumentHelp("Directory of pipeline files (default Pipelines).", valueName: "dir"))
    var pipelinesDir: String?

    func paths(_ environment: AppEnvironment, database: String?) -> Paths {
        Paths(environment: environment, database: database, pipelines: pipelinesDir, fixtures: fixtures)
    }
}
