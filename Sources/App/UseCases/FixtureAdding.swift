import FeedCore
import Foundation
import Pipeline

/// `feedline fixtures add`: an archived payload of a live run becomes one of a pipeline's
/// fixtures — copied (with its request metadata) into the fixtures directory, listed in the
/// pipeline file, and its snapshots written — so a pipeline of one's own gets the same fixture
/// tests as the bundled ones.
public struct FixtureAdding: Sendable {
    public let environment: AppEnvironment

    public init(environment: AppEnvironment) { self.environment = environment }

    /// What `add` did.
    public struct Outcome: Sendable {
        /// The fixture's path relative to the fixtures directory, as the pipeline file lists it.
        public var entry: String
        /// Where the payload went (shown).
        public var path: String
        /// False when the same bytes were already there under that name.
        public var copied: Bool
        /// How the pipeline file was changed: listed now, already listed, or not edited (the
        /// line to add by hand is in `manualLines`).
        public var listing: Listing
        /// The lines to add to the pipeline file by hand when editing it was not safe.
        public var manualLines: [String] = []
        /// Whether a `snapshots:` list was added to the pipeline file (it declared none).
        public var addedSnapshots = false
        /// What `feedline snapshot` did after (nil when it was not run: the file was not edited).
        public var snapshots: PipelineChecks.SnapshotOutcome?
        /// The variable of the key the bytes were searched for; nil when it is not set (then
        /// only the scrubbing done when the payload was archived stands between it and a key).
        public var keySearched: String?

        public enum Listing: Sendable { case added, alreadyListed, manual }
    }

    /// Copies `archived` into the fixtures of `name`, lists it and writes its snapshots.
    ///
    /// Refused (nothing written) unless the file is an archived payload: a regular file with its
    /// `<sha256>.meta.json` beside it, whose bytes still hash to that name, fetched by the
    /// pipeline's source and operation, in a shape its feed recognises, and free of the key
    /// (the secret scrubber looks for every form of the key in the environment).
    public func add(pipeline name: String, archived: String, paths: Paths) async throws(CommandRefusal) -> Outcome {
        let pipeline = try PipelineRuns(environment: environment).select(names: [name], paths: paths).pipelines[0]
        guard let feed = environment.feed(named: pipeline.source) else {
            throw CommandRefusal(.configuration, error: "no feed named '\(pipeline.source)'.")
        }
        let file = URL(fileURLWithPath: archived, relativeTo: environment.workingDirectory).standardizedFileURL
        let shown = environment.displayPath(file)
        func refuse(_ why: String) -> CommandRefusal { CommandRefusal(.usage, error: "\(OutputFile.oneLine(shown)) \(why)") }

        // What the archive says the file is.
        var st = stat()
        guard stat(file.path, &st) == 0 else { throw refuse("does not exist.") }
        guard st.st_mode & S_IFMT == S_IFREG else { throw refuse("is not a regular file.") }
        guard let meta = PayloadArchive.metadata(for: file) else {
            throw refuse("is not an archived payload: there is no \(file.deletingPathExtension().lastPathComponent).meta.json beside it (live runs archive each payload under \(environment.displayPath(paths.archive))/<source>/<operation>/<day>/).")
        }
        let operations = requestOperations(pipeline, feed: feed).union([pipeline.spec.operation])
        guard meta.source == pipeline.source && operations.contains(meta.operation) else {
            throw refuse("is a payload of \(meta.source)/\(meta.operation), not of \(pipeline.name)'s \(pipeline.source)/\(pipeline.spec.operation)"
                         + (operations.count > 1 ? " (\(operations.subtracting([pipeline.spec.operation]).sorted().joined(separator: ", ")))." : "."))
        }
        let bytes: Data
        do throws(ProjectFile.Problem) { bytes = try ProjectFile.read(file.resolvingSymlinksInPath(), what: "archived payload") } catch {
            throw CommandRefusal(.usage, error: "\(error)")
        }
        let sha = SHA256.hex(bytes)
        guard sha == meta.sha256 && file.deletingPathExtension().lastPathComponent == sha else {
            throw refuse("does not hold the bytes its metadata names (sha256 \(sha.prefix(12))…, archived as \(meta.sha256.prefix(12))…): it changed since it was archived.")
        }
        // The bytes and their shape, as a fixture run will read them.
        let head = bytes.prefix(4096)
        do { try PayloadEncoding.check(head, context: nil) } catch { throw refuse("cannot be a fixture: \(error)") }
        guard let format = PayloadArchive.sniffFormat(head) else { throw refuse("is neither XML nor JSON.") }
        switch feed.recognition(head: head, format: format) {
        case .shape(let operation) where operation != meta.operation:
            throw refuse("is shaped as \(pipeline.source)/\(operation), not \(meta.operation).")
        case .refused(let reason): throw refuse("is not a \(pipeline.source) payload: \(reason)")
        default: break
        }
        // Archived payloads were scrubbed when fetched; a fixture is committed, so look again.
        let sidecar = file.deletingPathExtension().appendingPathExtension("meta.json")
        let metaBytes: Data
        do throws(ProjectFile.Problem) { metaBytes = try ProjectFile.read(sidecar, limit: 1 << 20, what: "archive metadata") } catch {
            throw refuse("has metadata that cannot be read: \(error)")
        }
        var keySearched: String? = nil
        if let key = environment.variables[feed.credentialVariable]?.trimmingCharacters(in: .whitespacesAndNewlines), !key.isEmpty {
            let scrubber = SecretScrubber(secret: key)
            if scrubber.scrub(bytes) != bytes { throw refuse("holds the key in \(feed.credentialVariable); it is not copied.") }
            if scrubber.scrub(metaBytes) != metaBytes { throw refuse("has metadata that holds the key in \(feed.credentialVariable); it is not copied.") }
            keySearched = feed.credentialVariable
        }

        // The copy: <source>/<pipeline>-<fetched, UTC>-<sha256 prefix>.<ext>, with its metadata.
        let stamp = meta.fetchedAt.filter { $0.isNumber || $0 == "T" }.prefix(13)  // 20240306T0600
        let stem = "\(pipeline.name)-\(stamp)-\(sha.prefix(10))"
        let entry = "\(pipeline.source)/\(stem).\(format.fileExtension)"
        let target: URL, metaTarget: URL
        do throws(ProjectFile.Problem) {
            target = try Self.inside(entry, fixtures: paths.fixtures, what: "fixture file")
            metaTarget = try Self.inside("\(pipeline.source)/\(stem).meta.json", fixtures: paths.fixtures, what: "fixture metadata")
        } catch { throw CommandRefusal(.usage, error: "\(error)") }
        var copied = true
        if let existing = try? Data(contentsOf: target), existing == bytes { copied = false }
        do throws(OutputFile.Problem) {
            if copied {
                try OutputFile.prepare(target, kind: .projectFile("the fixture"), database: OutputFile.Database(paths.database),
                                       force: false, makeDirectories: true).write(bytes)
            }
            if (try? Data(contentsOf: metaTarget)) != metaBytes {
                try OutputFile.prepare(metaTarget, kind: .projectFile("the fixture's metadata"), database: OutputFile.Database(paths.database),
                                       force: !copied, makeDirectories: true).write(metaBytes)
            }
        } catch {
            throw CommandRefusal(error.refused ? .usage : .failure, error: "\(error)")
        }
        var outcome = Outcome(entry: entry, path: environment.displayPath(target), copied: copied, listing: .alreadyListed,
                              keySearched: keySearched)

        // The pipeline file: one line added to its fixtures (and a snapshots list if it has none).
        if !pipeline.fixtures.contains(entry) {
            outcome.listing = .manual
            outcome.manualLines = ["fixtures:", "  - \(entry)"]
            if let file = pipelineFile(pipeline.name, paths: paths), let text = try? String(contentsOf: file, encoding: .utf8),
               var edited = PipelineFileEdit.appendingFixture(entry, to: text) {
                let snapshotTable = pipeline.snapshots.isEmpty ? pipeline.target : nil
                if let table = snapshotTable, let withSnapshots = PipelineFileEdit.appendingSnapshot(table: table, to: edited) {
                    edited = withSnapshots
                    outcome.addedSnapshots = true
                }
                if verify(edited, name: pipeline.name, fixtures: pipeline.fixtures + [entry], paths: paths) {
                    do throws(OutputFile.Problem) {
                        try OutputFile.prepare(file, kind: .projectFile("the pipeline file"), database: OutputFile.Database(paths.database),
                                               force: true, makeDirectories: false).write(Data(edited.utf8))
                        outcome.listing = .added
                    } catch {
                        throw CommandRefusal(error.refused ? .usage : .failure, error: "\(error)")
                    }
                } else {
                    outcome.addedSnapshots = false
                }
            }
        }
        guard outcome.listing != .manual else { return outcome }
        let reread = try PipelineRuns(environment: environment).select(names: [name], paths: paths).pipelines[0]
        if !reread.snapshots.isEmpty {
            outcome.snapshots = try await PipelineChecks(environment: environment).snapshot(names: [name], paths: paths)
        }
        return outcome
    }

    /// The operations the pipeline's requests carry: the API's own names, which the archive
    /// records (`getCtprvnRltmMesureDnsty` for `realtime-by-province`). Placeholders a database
    /// would fill (`{stations}`) take any point: the operation does not depend on it.
    func requestOperations(_ pipeline: PipelineDefinition, feed: any Feed) -> Set<String> {
        var spec = Console.expandingPlaceholders(pipeline, now: environment.clock()).spec
        let tokens = Set(CoordinatePlaceholder.all.map(\.token))
        spec.parameters = spec.parameters.map { p in (p.name, p.values.map { tokens.contains($0) ? "37.5665,126.9780" : $0 }) }
        return Set((try? feed.requests(for: spec))?.map(\.operation) ?? [])
    }

    /// `relative` in the fixtures directory, refused when it or its nearest existing directory
    /// resolves outside it (a link leading out), as snapshot files are.
    static func inside(_ relative: String, fixtures: URL, what: String) throws(ProjectFile.Problem) -> URL {
        let url = try ProjectFile.path(relative, in: fixtures, what: what)
        var existing = url
        var st = stat()
        while existing.path != "/" && lstat(existing.path, &st) != 0 { existing = existing.deletingLastPathComponent() }
        _ = try ProjectFile.contained(existing, in: fixtures, what: what)
        return url
    }

    /// The pipeline file of `name` in the pipelines directory (`.yaml`, else `.yml`).
    func pipelineFile(_ name: String, paths: Paths) -> URL? {
        ["yaml", "yml"].map { paths.pipelines.appendingPathComponent("\(name).\($0)") }
            .first { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// Whether `text` reads as the same pipeline with exactly `fixtures` listed (checked in a
    /// temporary directory before the pipeline file is replaced).
    func verify(_ text: String, name: String, fixtures: [String], paths: Paths) -> Bool {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("feedline-fixtures-add-\(UUID().uuidString)")
        guard (try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)) != nil else { return false }
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("\(name).yaml")
        guard (try? Data(text.utf8).write(to: file)) != nil else { return false }
        let catalog = PipelineCatalog(directory: dir, feeds: environment.feeds, workingDirectory: environment.workingDirectory)
        guard let parsed = try? catalog.load(file) else { return false }
        return parsed.fixtures == fixtures
    }
}

/// Minimal edits of a pipeline file's text: a line appended to a block list, never a rewrite of
/// the YAML (comments, order and quoting stay as written). nil when the file writes the list in
/// a way one line cannot safely extend (a flow list `[a, b]`, an anchor, a block scalar, the key
/// twice); the caller then prints the line to add.
enum PipelineFileEdit {
    /// An entry that needs no quoting in YAML and in a shell.
    static func isPlain(_ entry: String) -> Bool {
        !entry.isEmpty && entry.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._/-".contains($0)) } && !entry.hasPrefix("-")
    }

    /// `text` with `- entry` added at the end of its top-level `fixtures:` block list (or a new
    /// `fixtures:` list at the end of the file when there is none).
    static func appendingFixture(_ entry: String, to text: String) -> String? {
        appending(entry, toList: "fixtures", in: text)
    }

    /// `text` with `snapshots:` and `- table: TABLE` at its end; nil when it has a `snapshots` key.
    static func appendingSnapshot(table: String, to text: String) -> String? {
        guard isPlain(table), !lines(text).contains(where: { isKey("snapshots", $0) }) else { return nil }
        return (text.hasSuffix("\n") || text.isEmpty ? text : text + "\n") + "snapshots:\n  - table: \(table)\n"
    }

    static func lines(_ text: String) -> [String] { text.components(separatedBy: "\n") }

    /// Whether `line` is the top-level key `key` (with or without a value).
    static func isKey(_ key: String, _ line: String) -> Bool {
        line.hasPrefix(key) && line.dropFirst(key.count).drop { $0 == " " }.first == ":"
    }

    static func appending(_ entry: String, toList key: String, in text: String) -> String? {
        guard isPlain(entry), !text.contains("\r") else { return nil }
        var all = lines(text)
        let keys = all.indices.filter { isKey(key, all[$0]) }
        if keys.isEmpty {
            return (text.hasSuffix("\n") || text.isEmpty ? text : text + "\n") + "\(key):\n  - \(entry)\n"
        }
        guard keys.count == 1, let at = keys.first else { return nil }
        // Only `key:` with nothing after it but a comment starts a block list.
        let rest = all[at].drop { $0 != ":" }.dropFirst().trimmingCharacters(in: .whitespaces)
        guard rest.isEmpty || rest.hasPrefix("#") else { return nil }
        var lastItem: Int? = nil
        var indent = "  "
        var index = at + 1
        while index < all.count {
            let line = all[index]
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || (trimmed.hasPrefix("#") && line.first == " ") { index += 1; continue }
            let lead = String(line.prefix { $0 == " " })
            guard trimmed.hasPrefix("- ") || trimmed == "-" else {
                if lead.isEmpty { break }  // the next top-level key
                return nil  // an item continued over lines, or a mapping: not a plain list
            }
            if lastItem == nil { indent = lead } else if lead != indent { return nil }
            let value = trimmed.dropFirst(2).trimmingCharacters(in: .whitespaces)
            guard let first = value.first, !"[{|>&*!%@`".contains(first) else { return nil }
            lastItem = index
            index += 1
        }
        all.insert("\(indent)- \(entry)", at: (lastItem ?? at) + 1)
        return all.joined(separator: "\n")
    }
}
