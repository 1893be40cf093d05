import ArgumentParser
import Foundation
import Pipeline

/// `feedline state`: every pipeline's bookmarks — shown, exported, imported, reset.
struct StateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Show, export, import or reset the pipelines' bookmarks (where each pipeline goes on from).",
        discussion: """
        A bookmark is a pipeline's position: the newest hour or modification time it loaded, or how far each sensor's or location's hours were read (OpenAQ's sensor_<id>_hours_through). Runs read and raise them; `state` shows them and moves them between stores.

        `state export` prints a JSON document, {"feedline_state": 1, "pipelines": {PIPELINE: {BOOKMARK: VALUE}}}, every value a string as stored. `state import FILE` reads one back in one transaction: each pipeline it names gets exactly the bookmarks it lists (its others are removed; {} clears it) and a ledger row PIPELINE:state-import; pipelines it does not name are left as they are. An import is refused, with nothing changed, for a file that is not such a document (another version, a value that is not a string) or that names a pipeline which is neither a file in the pipelines directory nor in the database's ledger (NAME:backfill counts as NAME).

        Examples:
          feedline state show
          feedline state show airkorea-seoul --json
          feedline state export > state.json
          feedline state import state.json --db postgres://db.internal/feedline
          feedline state reset airkorea-seoul --yes
        """,
        subcommands: [StateShowCommand.self, StateExportCommand.self, StateImportCommand.self, StateResetCommand.self])
}

struct StateShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print every bookmark, per pipeline (or one pipeline's).")

    @Argument(help: "Only this pipeline's bookmarks.", completion: .pipelineNames)
    var pipeline: String?

    @Flag(help: "Print the state document (`state export`'s format) instead of a table.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let env = try global.environment()
        try finish(Console(environment: env).showState(pipeline: pipeline, json: json, paths: Paths(environment: env, database: global.db)))
    }
}

struct StateExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print every bookmark as a JSON state document, for `state import`.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let env = try global.environment()
        try finish(Console(environment: env).showState(pipeline: nil, json: true, paths: Paths(environment: env, database: global.db)))
    }
}

struct StateImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Replace the bookmarks of the pipelines a state document names, in one transaction.")

    @Argument(help: ArgumentHelp("A state document written by `feedline state export`.", valueName: "file"), completion: .file(extensions: ["json"]))
    var file: String

    @Option(help: ArgumentHelp("Directory of pipeline files, the pipelines an import may name (default Pipelines).", valueName: "dir"))
    var pipelinesDir: String?

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let env = try global.environment()
        try finish(Console(environment: env).importState(file: file, paths: Paths(environment: env, database: global.db, pipelines: pipelinesDir)))
    }
}

struct StateResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Clear one pipeline's bookmarks: its next run starts as a first run.")

    @Argument(help: "The pipeline whose bookmarks are cleared.", completion: .pipelineNames)
    var pipeline: String

    @Flag(help: "Clear them (without it: say what would be cleared, and clear nothing).")
    var yes = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let env = try global.environment()
        try finish(Console(environment: env).resetState(pipeline: pipeline, confirmed: yes, paths: Paths(environment: env, database: global.db)))
    }
}

// MARK: - The document

/// The state document `state export` writes and `state import` reads:
///
///     {"feedline_state": 1, "pipelines": {"airkorea-seoul": {"newest_observed_at": "2024-03-06T06:00:00Z"}}}
///
/// Every value is a JSON string, the bookmark's text as stored; no other field is allowed.
struct StateDocument: Equatable {
    static let version = 1
    static let fields = ["feedline_state", "pipelines"]

    /// pipeline → bookmark name → value.
    var pipelines: [String: [String: String]]

    /// Why a file is not a state document, naming the field.
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// The document as JSON text: keys sorted, one pipeline a line.
    var json: String {
        guard !pipelines.isEmpty else { return "{\"feedline_state\": \(Self.version), \"pipelines\": {}}" }
        let lines = pipelines.keys.sorted().map { name in
            let values = pipelines[name] ?? [:]
            let inner = values.keys.sorted().map { "\(JSONText.string($0)): \(JSONText.string(values[$0] ?? ""))" }.joined(separator: ", ")
            return "    \(JSONText.string(name)): {\(inner)}"
        }
        return "{\n  \"feedline_state\": \(Self.version),\n  \"pipelines\": {\n" + lines.joined(separator: ",\n") + "\n  }\n}"
    }

    init(pipelines: [String: [String: String]]) { self.pipelines = pipelines }

    /// Reads a document; `label` names the file in problems.
    init(data: Data, label: String) throws(Problem) {
        func problem(_ text: String) -> Problem { Problem(description: "\(label): \(text)") }
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) } catch {
            throw problem("is not valid JSON; a state document is what `feedline state export` prints.")
        }
        guard let top = object as? [String: Any] else {
            throw problem("must be a JSON object with the fields feedline_state and pipelines.")
        }
        if let unknown = top.keys.filter({ !Self.fields.contains($0) }).sorted().first {
            throw problem("field '\(OutputFile.oneLine(unknown))' is not known; known fields: \(Self.fields.joined(separator: ", ")).")
        }
        guard let version = top["feedline_state"] else {
            throw problem("field 'feedline_state' is missing; a state document is what `feedline state export` prints.")
        }
        guard let number = version as? NSNumber, !Self.isBoolean(number), number.doubleValue == Double(Self.version) else {
            throw problem("field 'feedline_state' is \(Self.describe(version)); this feedline reads version \(Self.version).")
        }
        guard let pipelines = top["pipelines"] else { throw problem("field 'pipelines' is missing.") }
        guard let byPipeline = pipelines as? [String: Any] else {
            throw problem("field 'pipelines' must be an object of pipeline name → bookmarks, not \(Self.describe(pipelines)).")
        }
        var out: [String: [String: String]] = [:]
        for name in byPipeline.keys.sorted() {
            let field = "pipelines.\(OutputFile.oneLine(name))"
            guard !name.isEmpty else { throw problem("field 'pipelines' names a pipeline with an empty name.") }
            guard let bookmarks = byPipeline[name] as? [String: Any] else {
                throw problem("field '\(field)' must be an object of bookmark name → text, not \(Self.describe(byPipeline[name] as Any)).")
            }
            var values: [String: String] = [:]
            for key in bookmarks.keys.sorted() {
                guard !key.isEmpty else { throw problem("field '\(field)' has a bookmark with an empty name.") }
                guard let text = bookmarks[key] as? String else {
                    throw problem("field '\(field).\(OutputFile.oneLine(key))' must be text (a JSON string), not \(Self.describe(bookmarks[key] as Any)).")
                }
                values[key] = text
            }
            out[name] = values
        }
        self.pipelines = out
    }

    static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"  // JSON true and false (numbers are "i", "q" or "d")
    }

    /// A JSON value's kind, for problems: "a number", "an object", …
    static func describe(_ value: Any) -> String {
        switch value {
        case is NSNull: return "null"
        case let number as NSNumber: return isBoolean(number) ? "a boolean" : "the number \(number)"
        case is String: return "a string"
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        default: return "\(type(of: value))"
        }
    }
}

// MARK: - Use cases

extension Console {
    /// `state show` / `state export`: every bookmark (or one pipeline's) as a table or a document.
    func showState(pipeline: String?, json: Bool, paths: Paths) -> ExitStatus {
        let bookmarks: [String: [String: String]]
        do {
            let store = try environment.openStore(paths, forWriting: false)
            bookmarks = try store.allBookmarks()
        } catch {
            return databaseOpenFailure(error, paths: paths)
        }
        let shown = pipeline.map { name in bookmarks.filter { $0.key == name } } ?? bookmarks
        if json {
            environment.output(StateDocument(pipelines: shown).json)
            return .success
        }
        guard !shown.isEmpty else {
            environment.output(pipeline.map { "\($0) has no bookmarks in \(paths.databaseName)." } ?? "No bookmarks in \(paths.databaseName).")
            return .success
        }
        let rows = [["pipeline", "bookmark", "value"]] + shown.keys.sorted().flatMap { name in
            (shown[name] ?? [:]).sorted { $0.key < $1.key }.map { [name, $0.key, $0.value].map(OutputFile.oneLine) }
        }
        let widths = (0..<2).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            environment.output(row[0].padding(toLength: widths[0], withPad: " ", startingAt: 0) + "  "
                + row[1].padding(toLength: widths[1], withPad: " ", startingAt: 0) + "  " + row[2])
        }
        return .success
    }

    /// `state import FILE`: checks the whole document and every pipeline it names, then replaces
    /// their bookmarks in one transaction; on any refusal nothing is written (nor created).
    func importState(file: String, paths: Paths) -> ExitStatus {
        let url = environment.resolve(file)
        let document: StateDocument
        do {
            let data = try ProjectFile.read(url, what: "state file")
            document = try StateDocument(data: data, label: file)
        } catch let problem as ProjectFile.Problem {
            environment.errorOutput("error: \(problem)")
            return problem.kind == .missing ? .usage : .failure
        } catch {
            environment.errorOutput("error: \(error) Nothing was imported.")
            return .failure
        }
        // Which pipelines are known: files in the pipelines directory, and the ledger's.
        var known = Set(((try? FileManager.default.contentsOfDirectory(atPath: paths.pipelines.resolvingSymlinksInPath().path)) ?? [])
            .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
            .map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent })
        do {
            if let existing = try environment.existingStore(paths) { known.formUnion(try existing.ledgerPipelines()) }
        } catch {
            return databaseOpenFailure(error, paths: paths)
        }
        let unknown = document.pipelines.keys.sorted().filter { name in
            !known.contains(name) && !known.contains(String(name.prefix { $0 != ":" }))
        }
        if !unknown.isEmpty {
            let names = unknown.map { "'pipelines.\(OutputFile.oneLine($0))'" }.joined(separator: ", ")
            environment.errorOutput("error: \(file): field \(names) names no pipeline of \(paths.pipelines.path) nor of the ledger of \(paths.databaseName). Nothing was imported; remove \(unknown.count == 1 ? "it" : "them") from the file, or add the pipeline file first.")
            return .configuration
        }
        do {
            let store = try environment.openStore(paths, forWriting: true)
            try store.replaceBookmarks(document.pipelines, at: environment.clock())
        } catch {
            environment.errorOutput("error: cannot import \(file) into \(paths.databaseName): \(error) Nothing was imported.")
            return databaseOpenRefusalStatus(error, paths: paths)
        }
        let count = document.pipelines.values.reduce(0) { $0 + $1.count }
        environment.output("imported \(count) bookmark\(count == 1 ? "" : "s") of \(document.pipelines.count) pipeline\(document.pipelines.count == 1 ? "" : "s") from \(file) into \(paths.databaseName)")
        return .success
    }

    /// `state reset PIPELINE`: clears its bookmarks with `confirmed`; otherwise says what would be cleared.
    func resetState(pipeline: String, confirmed: Bool, paths: Paths) -> ExitStatus {
        let current: [String: String]
        do {
            // Read first: a missing database is refused (78), never created.
            current = try environment.openStore(paths, forWriting: false).bookmarks(pipeline: pipeline)
        } catch {
            return databaseOpenFailure(error, paths: paths)
        }
        guard !current.isEmpty else {
            environment.output("\(pipeline) has no bookmarks in \(paths.databaseName); nothing to clear.")
            return .success
        }
        let listed = current.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
        guard confirmed else {
            environment.errorOutput("error: not clearing: this would clear \(current.count) bookmark\(current.count == 1 ? "" : "s") of \(pipeline) in \(paths.databaseName) (\(listed)), so its next run starts as a first run. Add --yes to clear them.")
            return .usage
        }
        do {
            let cleared = try environment.openStore(paths, forWriting: true).clearBookmarks(pipeline: pipeline)
            environment.output("cleared \(cleared) bookmark\(cleared == 1 ? "" : "s") of \(pipeline) (\(listed))")
        } catch {
            environment.errorOutput("error: cannot clear the bookmarks of \(pipeline) in \(paths.databaseName): \(error)")
            return databaseOpenRefusalStatus(error, paths: paths)
        }
        return .success
    }

    /// The exit status for a store error after the store opened (busy: 75).
    func databaseOpenRefusalStatus(_ error: Error, paths: Paths) -> ExitStatus {
        environment.databaseOpenRefusal(error, paths: paths).status
    }
}
