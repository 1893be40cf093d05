import ArgumentParser
import Foundation

/// `feedline fixtures`: a pipeline's fixture files.
struct FixturesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fixtures",
        abstract: "Manage a pipeline's fixture files.",
        subcommands: [FixturesAddCommand.self])
}

/// `feedline fixtures add PIPELINE ARCHIVED_FILE`.
struct FixturesAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Turn a payload a live run archived into a fixture of a pipeline, and write its snapshots.",
        discussion: """
        Copies the archived payload (with the metadata beside it, so it replays with the request that fetched it) into the fixtures directory as <feed>/<pipeline>-<fetched>-<sha256>.<xml|json>, adds it to the fixtures: list of the pipeline file (one line; when the list cannot safely be extended, prints the lines to add instead), adds snapshots: with the pipeline's target table when the file declares none, then writes the snapshots as `feedline snapshot` does. Refuses a file that is not an archived payload of the pipeline's feed and operation, one whose bytes changed since it was archived, and one that holds the key in the environment.

        Examples:
          feedline run my-station --live
          ls Data/archive/airkorea/*/*/
          feedline fixtures add my-station Data/archive/airkorea/…/<sha256>.xml
          feedline check my-station
        """)

    @Argument(help: "The pipeline (its file name in Pipelines/ without .yaml).", completion: .pipelineNames)
    var pipeline: String

    @Argument(help: ArgumentHelp("A payload in the archive (Data/archive/<feed>/<API operation>/<day>/<sha256>.<xml|json>).", valueName: "archived-file"),
              completion: .file())
    var archivedFile: String

    @OptionGroup var files: FixtureFileOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let env = try global.environment()
        let paths = files.paths(env, database: global.db)
        try finish(await Console(environment: env).addFixture(pipeline: pipeline, archived: archivedFile, paths: paths))
    }
}

extension Console {
    /// `feedline fixtures add`: says where the fixture went, how the pipeline file changed (or
    /// the lines to add), and what the snapshots did. Exit 0, or the snapshot's status; 64 for
    /// a refused file; 78 for an unknown pipeline.
    public func addFixture(pipeline: String, archived: String, paths: Paths) async -> ExitStatus {
        let outcome: FixtureAdding.Outcome
        do throws(CommandRefusal) {
            outcome = try await FixtureAdding(environment: environment).add(pipeline: pipeline, archived: archived, paths: paths)
        } catch {
            return refused(error)
        }
        if outcome.keySearched == nil {
            err("note: the pipeline's key is not set here, so the payload was not searched for it (it was scrubbed when it was archived).")
        }
        out(outcome.copied ? "copied    \(outcome.path)" : "unchanged \(outcome.path) (the same bytes were there)")
        switch outcome.listing {
        case .added:
            out("listed    \(outcome.entry) under fixtures: in the pipeline file" + (outcome.addedSnapshots ? " (and a snapshots: list of its target table)" : ""))
        case .alreadyListed:
            out("listed    \(outcome.entry) was already among its fixtures")
        case .manual:
            err("warning: the pipeline file's fixtures: list cannot be extended safely by feedline; add this to it:")
            outcome.manualLines.forEach { err("  " + $0) }
            err("then run `feedline snapshot \(pipeline)`.")
            return .success
        }
        guard let snapshots = outcome.snapshots else {
            out("no snapshots declared: add a snapshots: list to the pipeline file, then run `feedline snapshot \(pipeline)`.")
            return .success
        }
        for failure in snapshots.failures { err("error: \(failure.pipeline): \(failure.error)") }
        for w in snapshots.written {
            out("\(w.change.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(w.path) (\(w.spec.table), \(TerminalProgress.grouped(w.rows)) rows)")
        }
        if snapshots.exitStatus == .success { out("next: feedline check \(pipeline)") }
        return snapshots.exitStatus
    }
}
