import Foundation
import Pipeline
import Storage
import Yams

/// Reads and validates the declarative pipeline files in `Pipelines/`.
///
/// Every problem is reported as one line naming the file and the field, and a bad file never
/// stops the others from being listed.
public struct PipelineCatalog: Sendable {
    public let directory: URL
    public let feeds: [String: any Feed]

    /// Paths in messages are shown relative to this directory when they lie inside it.
    public let workingDirectory: URL

    /// What the feeds bring to a store, for checking `checks:` and `snapshots:` against the schema.
    let schema: FeedSchema

    public init(directory: URL, feeds: [any Feed],
                workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)) {
        self.directory = directory
        self.feeds = Dictionary(feeds.map { ($0.source, $0) }, uniquingKeysWith: { a, _ in a })
        self.workingDirectory = workingDirectory
        self.schema = FeedSchema.merged(feeds.map(\.schema))
    }

    /// How a file is named in messages: its real path, relative to the working directory when
    /// inside it (`Pipelines/x.yaml`), absolute otherwise.
    func displayPath(_ file: URL) -> String {
        let path = file.standardizedFileURL.path
        let base = workingDirectory.standardizedFileURL.path
        let prefix = base.hasSuffix("/") ? base : base + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    /// A problem with one pipeline file.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var file: String
        public var field: String?
        public var message: String
        public var description: String { "\(file)\(field.map { ": field '\($0)'" } ?? ""): \(message)" }
        /// The pipeline the file would define (its name without `.yaml`/`.yml`).
        public var pipelineName: String { URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent }
    }

    /// Several problems with one pipeline file, found in one reading (every unknown field and
    /// every bad field, in the order the fields are checked).
    public struct Problems: Error, CustomStringConvertible, Sendable {
        public var problems: [Problem]
        public var description: String { problems.map(\.description).joined(separator: "\n") }
    }

    /// Loads every `*.yaml`/`*.yml` file; returns the valid pipelines and the problems found.
    public func loadAll() -> (pipelines: [PipelineDefinition], problems: [Problem]) {
        let files: [URL]
        do {
            // A symbolic link to the directory (deployments link configuration in) is followed.
            files = try FileManager.default.contentsOfDirectory(at: directory.resolvingSymlinksInPath(), includingPropertiesForKeys: nil)
                .map { directory.appendingPathComponent($0.lastPathComponent) }
                .filter { ["yaml", "yml"].contains($0.pathExtension.lowercased()) }
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
        } catch {
            let message = FeedlineHome.isDirectory(directory)
                ? "cannot list the pipelines directory (\(error.localizedDescription))."
                : "there is no pipelines directory here; \(FeedlineHome.hint)."
            return ([], [Problem(file: displayPath(directory), field: nil, message: message)])
        }
        var pipelines: [PipelineDefinition] = []
        var problems: [Problem] = []
        for file in files {
            do { pipelines.append(try load(file)) } catch let problem as Problem { problems.append(problem) } catch let found as Problems {
                problems += found.problems
            } catch {
                problems.append(Problem(file: displayPath(file), field: nil, message: "\(error)"))
            }
        }
        return (pipelines, problems)
    }

    /// Loads and validates one file. A file that cannot be read as a YAML mapping throws one
    /// `Problem`; otherwise every field is checked and all that is wrong is thrown together
    /// (`Problems`, or a `Problem` when there is one).
    public func load(_ file: URL) throws -> PipelineDefinition {
        let name = file.deletingPathExtension().lastPathComponent
        let label = displayPath(file)
        if let message = PipelineName.problem(name) { throw Problem(file: ShellText.shown(label), field: nil, message: message) }
        /// A field named by the file itself is quoted only as a short excerpt.
        func problem(_ field: String?, _ message: String) -> Problem { Problem(file: label, field: field.map { ProjectFile.excerpt($0) }, message: message) }

        // Only a regular file (or a link to one) is read, and only up to the size bound: a FIFO
        // or device would block the read, a huge file would fill memory.
        let real = file.resolvingSymlinksInPath()
        // A link may lead elsewhere in the home that holds the directory, never out of it.
        do throws(ProjectFile.Problem) {
            _ = try ProjectFile.contained(file, in: directory, alsoInside: [directory.deletingLastPathComponent()], what: "pipeline file")
        } catch where error.kind == .refused {
            throw problem(nil, "resolves to \(real.path), outside \(displayPath(directory.deletingLastPathComponent())); it is not read.")
        } catch {}
        let attributes = try? FileManager.default.attributesOfItem(atPath: real.path)
        guard let type = attributes?[.type] as? FileAttributeType else { throw problem(nil, "cannot be read (missing, a dangling link, or no permission).") }
        guard type == .typeRegular else { throw problem(nil, "is not a regular file.") }
        if let size = (attributes?[.size] as? NSNumber)?.intValue, size > PipelineFileBounds.maximumBytes {
            throw problem(nil, "is \(TerminalProgress.grouped(size)) bytes; pipeline files are limited to \(PipelineFileBounds.maximumBytes / 1024) KiB.")
        }
        guard let bytes = try? Data(contentsOf: real) else { throw problem(nil, "cannot be read (no permission?).") }
        if let violation = PipelineFileBounds.check(bytes) { throw problem(nil, violation.message) }
        guard let text = String(data: bytes, encoding: .utf8) else { throw problem(nil, "cannot be read as UTF-8 text.") }
        let file: PipelineFile
        do {
            guard let node = try YAMLDocument.compose(text) else { throw problem(nil, "must be a mapping of fields (source, operation, …).") }
            do { file = try YAMLDocument.decode(PipelineFile.self, from: node) } catch {
                throw problem(nil, "must be a mapping of fields (source, operation, …).")
            }
        } catch let found as Problem {
            throw found
        } catch {
            throw problem(nil, "is not valid YAML (\(String(describing: error).split(separator: "\n").first ?? "")).")
        }
        // From here on, each field's problem is noted and checking goes on.
        var found: [Problem] = file.problems.map { problem($0.field, $0.message) }
        func checked<T>(_ body: () throws -> T) -> T? {
            do { return try body() } catch let p as Problem { found.append(p) } catch is AlreadyNoted {} catch { found.append(problem(nil, "\(error)")) }
            return nil
        }
        struct AlreadyNoted: Error {}
        func integer(_ field: String, _ text: String?, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
            guard let text else { return fallback }
            guard let n = Int(text), range.contains(n) else { throw problem(field, "must be a whole number in \(range.lowerBound)…\(range.upperBound), not '\(text)'.") }
            return n
        }
        let shapeProblems = Set(file.problems.map(\.field))
        func required(_ field: String, _ value: String?) throws -> String {
            guard let value else {
                if shapeProblems.contains(field) { throw AlreadyNoted() }  // "must be a single value", said once
                throw problem(field, "is required.")
            }
            return value
        }

        let source = checked { try required("source", file.source) }
        var feed: (any Feed)?
        if let source {
            feed = feeds[source]
            if feed == nil { found.append(problem("source", "'\(source)' is not a known feed; known: \(feeds.keys.sorted().joined(separator: ", ")).")) }
        }
        let operation = checked { try required("operation", file.operation) }
        let format = checked { () throws -> PayloadFormat in
            let formatText = file.format ?? "xml"
            guard let format = PayloadFormat(rawValue: formatText.lowercased()) else { throw problem("format", "must be xml or json, not '\(formatText)'.") }
            return format
        }
        let parameters = file.parameters
        let parametersValid = file.parametersValid
        let pageSize = checked { try integer("page_size", file.pageSize, default: 1000, range: 1...10_000) }
        let maxPages = checked { try integer("max_pages", file.maxPages, default: 100, range: 1...100_000) }
        var spec: SourceSpec?
        if let operation, let format, let pageSize, let maxPages {
            spec = SourceSpec(operation: operation, parameters: parameters, format: format, pageSize: pageSize, maxPages: maxPages)
        }
        if let feed, var checkedSpec = spec, parametersValid {  // placeholders ({today}) checked as a real date
            checkedSpec.parameters = checkedSpec.parameters.map { p in
                (p.name, p.values.map { value in
                    CoordinatePlaceholder.all.contains { $0.token == value } ? "37.5720,127.0050"  // a point stands in
                        : value.replacingOccurrences(of: "{today}", with: "2024-01-01").replacingOccurrences(of: "{yesterday}", with: "2024-01-01")
                            .replacingOccurrences(of: "{now}", with: "1893456000")
                })
            }
            do { _ = try feed.requests(for: checkedSpec) } catch let error as FeedError {
                found.append(problem(error.message.contains("operation") ? "operation" : "parameters", error.message))
            } catch {
                found.append(problem("parameters", "\(error)"))
            }
        }
        let fixtures = file.fixtures
        let schedule = checked { () throws -> String? in
            let schedule = file.schedule
            if let schedule {
                do { _ = try CronExpression(parsing: schedule) } catch { throw problem("schedule", "\(error)") }
            }
            return schedule
        }
        let timeZone = checked { () throws -> String in
            let timeZone = file.timeZone ?? CronSchedule.defaultTimeZoneIdentifier
            guard TimeZone(identifier: timeZone) != nil else { throw problem("timezone", "'\(timeZone)' is not a known time zone.") }
            return timeZone
        }
        let catchUp = checked { () throws -> CatchUpPolicy in
            let catchUpText = file.catchUp ?? CatchUpPolicy.latest.rawValue
            guard let catchUp = CatchUpPolicy(rawValue: catchUpText) else { throw problem("catch_up", "must be latest or all, not '\(catchUpText)'.") }
            return catchUp
        }
        let onDrift = checked { () throws -> DriftPolicy in
            let text = file.onDrift ?? DriftPolicy.warn.rawValue
            guard let policy = DriftPolicy(rawValue: text) else {
                throw problem("on_drift", "must be warn or fail, not '\(ProjectFile.excerpt(text))'.")
            }
            return policy
        }
        let freshness = file.freshness.flatMap { Self.freshnessContract($0, problem: problem, found: &found) }
        let description = file.description, target = file.target
        var checks: [DataCheck] = [], snapshots: [SnapshotSpec] = []
        if !file.checks.isEmpty || !file.snapshots.isEmpty {
            // Names and SQL are checked against an empty database of feedline's schema (StoreSchemaProbe).
            do {
                var definitions = CheckDefinitions(probe: try StoreSchemaProbe.shared(schema: schema), pipeline: name, source: source)
                checks = definitions.checks(file.checks)
                snapshots = definitions.snapshots(file.snapshots)
                found += definitions.problems.map { problem($0.field, $0.message) }
            } catch {
                found.append(problem("checks", "cannot be checked against feedline's schema: \(error)"))
            }
        }
        if found.count == 1 { throw found[0] }
        if !found.isEmpty { throw Problems(problems: found) }
        var definition = PipelineDefinition(name: name, description: description, source: source!, spec: spec!,
                                            target: target, schedule: schedule!, timeZone: timeZone!,
                                            fixtures: fixtures, file: label, catchUp: catchUp!)
        definition.checks = checks
        definition.snapshots = snapshots
        definition.freshness = freshness
        definition.onDrift = onDrift!
        return definition
    }

    /// The contract `freshness:` declares: each bound a duration (`90m`, `3h`, `2d`, `1h30m`, the
    /// rule of a freshness check's `max_age`), `warn_after` no longer than `error_after`. Each
    /// problem is noted naming its field; nil when there is one.
    static func freshnessContract(_ values: [String: String], problem: (String?, String) -> Problem, found: inout [Problem]) -> FreshnessContract? {
        var bounds: [String: TimeInterval] = [:]
        var valid = true
        for field in PipelineFile.freshnessFields {
            guard let text = values[field] else { continue }
            guard let seconds = CheckDefinitions.duration(text) else {
                found.append(problem("freshness.\(field)", "must be a duration such as 90m, 3h, 2d or 1h30m, not '\(ProjectFile.excerpt(text))'."))
                valid = false
                continue
            }
            bounds[field] = seconds
        }
        guard valid, !bounds.isEmpty else { return nil }
        let contract = FreshnessContract(warnAfter: bounds["warn_after"], errorAfter: bounds["error_after"])
        if let warn = contract.warnAfter, let error = contract.errorAfter, warn > error {
            found.append(problem("freshness.warn_after", "is \(ProjectFile.excerpt(values["warn_after"] ?? "")), longer than error_after (\(ProjectFile.excerpt(values["error_after"] ?? ""))); warn_after must not be longer than error_after."))
            return nil
        }
        return contract
    }
}
