import FeedCore
import Foundation
import Pipeline
import Storage

/// The use cases of `feedline check` and `feedline snapshot`: each replays a pipeline's fixtures
/// into a temporary database of its own (never the user's), then compares or writes what they
/// produced. They print nothing; `Console` shows their results and picks the exit status.
public struct PipelineChecks: Sendable {
    public let environment: AppEnvironment

    public init(environment: AppEnvironment) { self.environment = environment }

    /// The clock of every check and snapshot replay: fixed, so what a load takes from the clock
    /// (a fixture's `fetched_at`, the ledger's times, a feed's judgement of what is in the future)
    /// is the same on every replay and a snapshot may hold any column. 2099-01-01T00:00:00Z: after
    /// any recorded payload, so fixtures read as data fetched after it was observed, as they do
    /// in `feedline run`.
    public static let replayClock = Date(timeIntervalSince1970: 4_070_908_800)

    // MARK: - Values

    /// How one snapshot compared with what the fixtures produce now.
    public struct SnapshotComparison: Sendable {
        public enum Status: String, Sendable {
            /// The file holds exactly these rows.
            case matched
            /// The rows differ (`differences`, `notes`).
            case differs
            /// There is no file yet (`feedline snapshot` writes it).
            case missing
            /// It could not be compared (the fixtures did not load, the file cannot be read).
            case error
        }
        public var spec: SnapshotSpec
        /// The file, as messages show it.
        public var path: String
        public var status: Status
        /// Rows the fixtures produce now.
        public var rows: Int
        /// Column changes and other notes on the comparison.
        public var notes: [String] = []
        var differences: [SnapshotFile.Difference] = []
        public var message: String?

        public var added: Int { differences.filter { $0.kind == .added }.count }
        public var removed: Int { differences.filter { $0.kind == .removed }.count }
        public var changedCells: Int { differences.filter { $0.kind == .changed }.count }
        /// Each difference as a line naming table, key and column.
        public var differenceLines: [String] { differences.map { SnapshotFile.line($0, table: spec.table) } }
        public var passed: Bool { status == .matched }

        /// `2 rows added, 1 removed, 3 cells changed`.
        public var summary: String {
            switch status {
            case .matched: return "\(rows) row\(rows == 1 ? "" : "s") as recorded"
            case .missing: return message ?? "no snapshot file"
            case .error: return message ?? "could not be compared"
            case .differs:
                var parts = notes
                if added > 0 { parts.append("\(added) row\(added == 1 ? "" : "s") added") }
                if removed > 0 { parts.append("\(removed) row\(removed == 1 ? "" : "s") removed") }
                if changedCells > 0 { parts.append("\(changedCells) cell\(changedCells == 1 ? "" : "s") changed") }
                return parts.isEmpty ? "the file differs in form only (run `feedline snapshot` to rewrite it)" : parts.joined(separator: ", ")
            }
        }
    }

    /// One pipeline checked: its fixture run (with the check results) and its snapshots.
    public struct PipelineResult: Sendable {
        public var pipeline: PipelineDefinition
        public var report: RunReport
        public var snapshots: [SnapshotComparison]

        /// Why its checks and snapshots could not be judged: the fixtures did not load.
        public var loadError: String? {
            guard let error = report.error, error.kind != .checkFailed else { return nil }
            return error.description
        }
        public var failingChecks: [CheckResult] { report.checks.filter(\.failsRun) }
        public var passed: Bool { loadError == nil && failingChecks.isEmpty && snapshots.allSatisfy(\.passed) }
    }

    /// What `feedline check` found.
    public struct CheckOutcome: Sendable {
        public var results: [PipelineResult]
        /// Pipeline files that could not be read (only when no names were given).
        public var skipped: [PipelineCatalog.Problem]
        /// Pipelines left out: they declare neither checks nor snapshots.
        public var unchecked: [String]
        /// Files in a `<feed>/snapshots/` directory that no pipeline declares (looked for when
        /// every pipeline is checked): left over from a snapshot since removed, never compared.
        public var undeclaredSnapshots: [String] = []

        public var passed: Bool { results.allSatisfy(\.passed) }
        /// 0 everything passed; 1 a check of severity error failed, a snapshot differs or is
        /// missing, or fixtures did not load; 78 only invalid pipeline files.
        public var exitStatus: ExitStatus {
            if !passed { return .failure }
            return skipped.isEmpty ? .success : .configuration
        }
    }

    /// What `feedline snapshot` wrote for one pipeline.
    public struct SnapshotWrite: Sendable {
        public enum Change: String, Sendable { case created, updated, unchanged }
        public var pipeline: String
        public var spec: SnapshotSpec
        public var path: String
        public var rows: Int
        public var change: Change
        /// For `updated`: how the new file differs from the old one.
        public var comparison: SnapshotComparison?
    }

    /// What `feedline snapshot` did.
    public struct SnapshotOutcome: Sendable {
        public var written: [SnapshotWrite]
        /// `pipeline: why` for pipelines whose fixtures did not load, or whose snapshot files
        /// could not be written (nothing of theirs past that point was written).
        public var failures: [(pipeline: String, error: String)]
        public var skipped: [PipelineCatalog.Problem]
        /// A snapshot's path is one feedline does not write to (`OutputFile`, `ProjectFile`).
        public var refused = false

        public var exitStatus: ExitStatus {
            if refused { return .usage }
            if !failures.isEmpty { return written.isEmpty ? .failure : .partial }
            return skipped.isEmpty ? .success : .configuration
        }
    }

    // MARK: - check

    /// Replays each selected pipeline's fixtures into a temporary database with its checks, then
    /// compares its snapshots. `error` checks keep their rows here (the database is thrown
    /// away), so the snapshots are still compared when a check fails.
    public func check(names: [String], paths: Paths) async throws(CommandRefusal) -> CheckOutcome {
        let selection = try PipelineRuns(environment: environment).select(names: names, paths: paths)
        var outcome = CheckOutcome(results: [], skipped: selection.skipped, unchecked: [])
        for pipeline in selection.pipelines {
            if pipeline.checks.isEmpty && pipeline.snapshots.isEmpty && names.isEmpty {
                outcome.unchecked.append(pipeline.name)
                continue
            }
            var checked = pipeline
            checked.checks = pipeline.checks.map { check in var kept = check; kept.onFailure = .keep; return kept }
            var (report, database) = await replayFixtures(checked, paths: paths)
            defer { database.remove() }
            // Results say what the file declares (`check` keeps the rows only to compare snapshots).
            report.checks = report.checks.map { result in
                var declared = result
                if let check = pipeline.checks.first(where: { $0.name == result.name }) { declared.onFailure = check.onFailure }
                return declared
            }
            var result = PipelineResult(pipeline: pipeline, report: report, snapshots: [])
            for spec in pipeline.snapshots {
                result.snapshots.append(compare(spec, database: database, loadError: result.loadError, paths: paths))
            }
            outcome.results.append(result)
        }
        // A pipeline file that could not be read may declare some of them: say nothing then.
        if names.isEmpty && selection.skipped.isEmpty {
            outcome.undeclaredSnapshots = undeclaredSnapshots(selection.pipelines, paths: paths)
        }
        return outcome
    }

    /// The files under the feeds' `snapshots/` directories that none of `pipelines` declares.
    private func undeclaredSnapshots(_ pipelines: [PipelineDefinition], paths: Paths) -> [String] {
        let declared = Set(pipelines.flatMap { $0.snapshots.map { paths.fixtures.appendingPathComponent($0.file).standardizedFileURL.path } })
        var found: [String] = []
        for source in Set(pipelines.map(\.source)).sorted() {
            let directory = paths.fixtures.appendingPathComponent(source).appendingPathComponent("snapshots")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for name in names.sorted() where !name.hasPrefix(".") {
                let file = directory.appendingPathComponent(name).standardizedFileURL
                if !declared.contains(file.path) { found.append(environment.displayPath(file)) }
            }
        }
        return found
    }

    /// `spec`'s file compared with the rows in `database`.
    private func compare(_ spec: SnapshotSpec, database: ReplayDatabase, loadError: String?, paths: Paths) -> SnapshotComparison {
        let url = paths.fixtures.appendingPathComponent(spec.file)
        var comparison = SnapshotComparison(spec: spec, path: environment.displayPath(url), status: .error, rows: 0)
        if let loadError {
            comparison.message = "not compared: the fixtures did not load (\(loadError))"
            return comparison
        }
        let rows: [[SQLValue]]
        do { rows = try database.rows(spec) } catch {
            comparison.message = "cannot read \(spec.table) from the replay: \(error)"
            return comparison
        }
        comparison.rows = rows.count
        let now = SnapshotFile.render(spec, rows: rows)
        let bytes: Data
        do throws(ProjectFile.Problem) {
            bytes = try ProjectFile.read(spec.file, in: paths.fixtures, what: "snapshot file")
        } catch {
            var st = stat()
            if error.kind == .missing && lstat(url.path, &st) != 0 {
                comparison.status = .missing
                comparison.message = "no snapshot file yet; write it with `feedline snapshot \(database.pipeline)`"
            } else {
                comparison.message = error.description
            }
            return comparison
        }
        guard let recorded = String(data: bytes, encoding: .utf8), !recorded.contains("\u{0}") else {
            comparison.message = "cannot read \(comparison.path) as UTF-8 text"
            return comparison
        }
        if recorded == now {
            comparison.status = .matched
            return comparison
        }
        return Self.compare(recorded: recorded, now: now, into: comparison)
    }

    /// The difference between a file's text and what it would hold now.
    static func compare(recorded: String, now: String, into comparison: SnapshotComparison) -> SnapshotComparison {
        var comparison = comparison
        let expected: SnapshotFile.Table
        do { expected = try SnapshotFile.parse(recorded, format: comparison.spec.format) } catch {
            comparison.status = .error
            comparison.message = "\(comparison.path) cannot be read as \(comparison.spec.format.rawValue.uppercased()): \(error); rewrite it with `feedline snapshot`"
            return comparison
        }
        let actual = (try? SnapshotFile.parse(now, format: comparison.spec.format)) ?? SnapshotFile.Table(columns: [], rows: [])
        let (notes, differences) = SnapshotFile.diff(expected: expected, actual: actual, key: comparison.spec.key)
        comparison.notes = notes
        comparison.differences = differences
        // The same rows written differently (line endings, quoting) still match.
        comparison.status = notes.isEmpty && differences.isEmpty && expected == actual ? .matched : .differs
        return comparison
    }

    // MARK: - snapshot

    /// Replays each selected pipeline's fixtures (checks left out) into a temporary database and
    /// writes its snapshots beside the fixtures; says for each file whether it is new, changed
    /// (and how) or the same.
    public func snapshot(names: [String], paths: Paths, force: Bool = false) async throws(CommandRefusal) -> SnapshotOutcome {
        let selection = try PipelineRuns(environment: environment).select(names: names, paths: paths)
        var pipelines = selection.pipelines
        if names.isEmpty {
            pipelines = pipelines.filter { !$0.snapshots.isEmpty }
            if pipelines.isEmpty { throw CommandRefusal(.configuration, error: "no pipeline declares snapshots; add a `snapshots:` list to a pipeline file (see `feedline snapshot --help`).") }
        } else if let bare = pipelines.first(where: { $0.snapshots.isEmpty }) {
            throw CommandRefusal(.configuration, error: "\(bare.file) declares no snapshots; add a list such as\n  snapshots:\n    - table: \(bare.target ?? "TABLE")\n"
                                 + "(optional: columns, exclude, key, where, format: csv|json, file).")
        }
        var outcome = SnapshotOutcome(written: [], failures: [], skipped: selection.skipped)
        for pipeline in pipelines {
            var replayed = pipeline
            replayed.checks = []
            let (report, database) = await replayFixtures(replayed, paths: paths)
            defer { database.remove() }
            if let error = report.error {
                outcome.failures.append((pipeline.name, "the fixtures did not load, so no snapshot was written: \(error)"))
                continue
            }
            var writes: [SnapshotWrite] = []
            do {
                for spec in pipeline.snapshots {
                    let rows = try database.rows(spec)
                    let text = SnapshotFile.render(spec, rows: rows)
                    let url = paths.fixtures.appendingPathComponent(spec.file)
                    let path = environment.displayPath(url)
                    let target = try Self.snapshotTarget(spec, fixtures: paths.fixtures, database: paths.database, force: force)
                    var existing: Data?
                    if target.replacedMode != nil {
                        existing = try ProjectFile.read(spec.file, in: paths.fixtures, what: "snapshot file")
                    }
                    let old = existing.flatMap { String(data: $0, encoding: .utf8) }
                    var write = SnapshotWrite(pipeline: pipeline.name, spec: spec, path: path, rows: rows.count,
                                              change: existing == nil ? .created : old == text ? .unchanged : .updated)
                    if let old, old != text {
                        write.comparison = Self.compare(recorded: old, now: text,
                                                        into: SnapshotComparison(spec: spec, path: path, status: .differs, rows: rows.count))
                    }
                    if write.change != .unchanged { try target.write(Data(text.utf8)) }
                    writes.append(write)  // only once it is on disk
                }
            } catch let problem as OutputFile.Problem {
                outcome.refused = outcome.refused || problem.refused
                outcome.failures.append((pipeline.name, "cannot write its snapshots: \(problem)"))
            } catch let problem as ProjectFile.Problem {
                outcome.refused = true
                outcome.failures.append((pipeline.name, "cannot write its snapshots: \(problem)"))
            } catch {
                outcome.failures.append((pipeline.name, "cannot write its snapshots: \(error)"))
            }
            outcome.written += writes
        }
        return outcome
    }

    /// Where `spec`'s file is written: inside the fixtures directory (its missing directories
    /// are created there; a link leading out of it is refused), through `OutputFile`, which
    /// replaces only a snapshot file feedline wrote (its header), or with `force` another file.
    static func snapshotTarget(_ spec: SnapshotSpec, fixtures: URL, database: URL, force: Bool) throws -> OutputFile {
        let url = try ProjectFile.path(spec.file, in: fixtures, what: "snapshot file")
        var st = stat()
        if lstat(url.path, &st) == 0 {
            _ = try ProjectFile.contained(url, in: fixtures, what: "snapshot file")
        } else {
            var existing = url.deletingLastPathComponent()
            while existing.path != "/" && lstat(existing.path, &st) != 0 { existing = existing.deletingLastPathComponent() }
            _ = try ProjectFile.contained(existing, in: fixtures, what: "snapshot file's directory")
        }
        return try OutputFile.prepare(url, kind: .snapshot(spec), database: OutputFile.Database(database),
                                      force: force, makeDirectories: true)
    }

    // MARK: - Replaying fixtures

    /// A temporary database one replay loaded, removed by `remove()`.
    struct ReplayDatabase {
        let pipeline: String
        let directory: URL
        var path: String { directory.appendingPathComponent("replay.sqlite").path }

        func rows(_ spec: SnapshotSpec) throws -> [[SQLValue]] {
            try ReadOnlyDatabase(path: path).snapshotRows(spec)
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    /// Loads `pipeline`'s fixtures, with its checks, into a new temporary database at the
    /// replay clock; the database is kept for reading until the caller removes it.
    func replayFixtures(_ pipeline: PipelineDefinition, paths: Paths) async -> (RunReport, ReplayDatabase) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("feedline-check-\(UUID().uuidString)")
        let database = ReplayDatabase(pipeline: pipeline.name, directory: directory)
        var replaying = environment
        replaying.clock = { Self.replayClock }
        func failed(_ error: Error) -> RunReport {
            RunReport(pipeline: pipeline.name, run: nil, mode: .fixtures, counts: LoadCounts(), error: asFeedError(error), fileErrors: [])
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let store = try replaying.openStore(Paths(environment: replaying, database: database.path))
            let staged = try replaying.stageFixtures(pipeline, fixtures: paths.fixtures)
            let report = await replaying.makeRunner(store: store).runStaged(pipeline.name, mode: .fixtures, payloads: staged, checks: pipeline.checks, onDrift: pipeline.onDrift)
            return (report, database)
        } catch {
            return (failed(error), database)
        }
    }
}
