import Foundation
import Yams

/// A feedline home: the directory a user works in, holding `feedline.yaml` (written by
/// `feedline init`) — or, in a checkout of feedline's own repository, `Pipelines/`.
///
/// Found from `--home`, else `FEEDLINE_HOME`, else by walking up from the working directory (as
/// git finds its repository). Its config names where the database, archive, pipelines, fixtures
/// and saved queries live, relative to the home; paths given on the command line or in
/// `FEEDLINE_DB`/`FEEDLINE_PIPELINES`/… still win, relative to the working directory.
public struct FeedlineHome: Sendable, Equatable {
    public static let configFileName = "feedline.yaml"

    /// The home directory.
    public var root: URL
    /// The settings from `feedline.yaml` (all nil in a home recognised by its `Pipelines/`).
    public var config: Config

    /// Paths a home may set, relative to the home.
    public struct Config: Sendable, Equatable {
        public var database: String?
        public var archive: String?
        public var pipelines: String?
        public var fixtures: String?
        public var queries: String?
        /// The metrics file `run`, `replay` and `schedule` rewrite after each run (none when nil).
        public var metricsFile: String?
        /// How logs are written (`log_format: json`); nil: human, unless the flag or
        /// `FEEDLINE_LOG_FORMAT` says otherwise.
        public var logFormat: LogFormat?

        public init(database: String? = nil, archive: String? = nil, pipelines: String? = nil, fixtures: String? = nil, queries: String? = nil,
                    metricsFile: String? = nil, logFormat: LogFormat? = nil) {
            self.database = database; self.archive = archive; self.pipelines = pipelines; self.fixtures = fixtures; self.queries = queries
            self.metricsFile = metricsFile; self.logFormat = logFormat
        }

        /// What `feedline init` writes.
        public static let standard = Config(database: "Data/feedline.sqlite", archive: "Data/archive", pipelines: "Pipelines",
                                            fixtures: "Data/fixtures", queries: "Data/queries")

        static let fields = ["database", "archive", "pipelines", "fixtures", "queries", "metrics_file", "log_format"]

        /// The config file's text.
        var yaml: String {
            """
            # feedline home: where feedline keeps its files, relative to this directory.
            # Command-line options (--db, --pipelines-dir, …) and FEEDLINE_DB, FEEDLINE_PIPELINES, …
            # override these.
            database: \(database ?? "Data/feedline.sqlite")
            archive: \(archive ?? "Data/archive")
            pipelines: \(pipelines ?? "Pipelines")
            fixtures: \(fixtures ?? "Data/fixtures")
            queries: \(queries ?? "Data/queries")
            \(metricsFile.map { "metrics_file: \($0)" } ?? "# metrics_file: Data/feedline.prom   # rewritten after every run, for node_exporter")
            \(logFormat.map { "log_format: \($0.rawValue)" } ?? "# log_format: json   # one JSON object a log line on stderr (default: human)")

            """
        }
    }

    /// Why no usable home could be read.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    public init(root: URL, config: Config) {
        self.root = root
        self.config = config
    }

    /// A path the config sets (or `fallback`), resolved against the home.
    public func resolve(_ setting: String?, default fallback: String) -> URL {
        let path = setting ?? fallback
        return path.hasPrefix("/") ? URL(fileURLWithPath: path) : root.appendingPathComponent(path)
    }

    /// Finds the home: `explicit` (from `--home`), else `FEEDLINE_HOME`, else the nearest of
    /// `directory` and its parents that holds `feedline.yaml` or a `Pipelines/` directory; nil
    /// when there is none. Throws when a named home is not a directory or its config is invalid.
    public static func locate(explicit: String?, variables: [String: String], from directory: URL) throws -> FeedlineHome? {
        if let named = explicit ?? variables["FEEDLINE_HOME"].flatMap({ $0.isEmpty ? nil : $0 }) {
            let source = explicit != nil ? "--home" : "FEEDLINE_HOME"
            let url = named.hasPrefix("/") ? URL(fileURLWithPath: named) : directory.appendingPathComponent(named)
            guard isDirectory(url) else {
                throw Problem(description: "\(source) \(named) is not a directory. Create a home with `feedline init \(named)`.")
            }
            return try FeedlineHome(at: url.standardizedFileURL)
        }
        var candidate = directory.standardizedFileURL
        while true {
            if isRegularFile(candidate.appendingPathComponent(configFileName)) || isDirectory(candidate.appendingPathComponent("Pipelines")) {
                return try FeedlineHome(at: candidate)
            }
            let parent = candidate.deletingLastPathComponent()
            if parent.path == candidate.path { return nil }
            candidate = parent
        }
    }

    /// Reads the home at `root` (its `feedline.yaml`, if any).
    public init(at root: URL) throws {
        self.root = root
        let file = root.appendingPathComponent(Self.configFileName)
        guard Self.isRegularFile(file) else {
            self.config = Config()
            return
        }
        let label = file.path
        guard let bytes = try? Data(contentsOf: file) else { throw Problem(description: "\(label): cannot be read.") }
        if let violation = PipelineFileBounds.check(bytes) { throw Problem(description: "\(label) \(violation.message)") }
        guard let text = String(data: bytes, encoding: .utf8) else { throw Problem(description: "\(label): is not UTF-8 text.") }
        let node: Node?
        do { node = try YAMLDocument.compose(text) } catch {
            throw Problem(description: "\(label): is not valid YAML (\(String(describing: error).split(separator: "\n").first ?? "")).")
        }
        guard let node else { self.config = Config(); return }
        let settings: ConfigFile
        do { settings = try YAMLDocument.decode(ConfigFile.self, from: node) } catch {
            if let field = YAMLDocument.field(of: error) {
                throw Problem(description: "\(label): field '\(field)' must be \(field == "log_format" ? LogFormat.choices : "a path").")
            }
            throw Problem(description: "\(label): must be a mapping of settings (\(Config.fields.joined(separator: ", "))).")
        }
        if let unknown = settings.unknownFields.first {
            throw Problem(description: "\(label): field '\(unknown)' is not known; known fields: \(Config.fields.joined(separator: ", ")).")
        }
        for (field, value) in [("database", settings.database), ("archive", settings.archive), ("pipelines", settings.pipelines),
                               ("fixtures", settings.fixtures), ("queries", settings.queries), ("metrics_file", settings.metricsFile)] where value?.isEmpty == true {
            throw Problem(description: "\(label): field '\(field)' must be a path.")
        }
        var logFormat: LogFormat?
        if let text = settings.logFormat {
            guard let format = LogFormat(rawValue: text) else {
                throw Problem(description: "\(label): field 'log_format' must be \(LogFormat.choices), not '\(text)'.")
            }
            logFormat = format
        }
        self.config = Config(database: settings.database, archive: settings.archive, pipelines: settings.pipelines,
                             fixtures: settings.fixtures, queries: settings.queries, metricsFile: settings.metricsFile, logFormat: logFormat)
    }

    static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    static func isRegularFile(_ url: URL) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path)[.type] as? FileAttributeType) == .typeRegular
    }

    /// How to get a home, for messages shown when none was found.
    public static let hint = "run `feedline init DIR` to create a feedline home with example pipelines and fixtures (then `cd DIR`), or pass --home DIR or set FEEDLINE_HOME"
}

/// `feedline.yaml` as written: each setting a path (text), and the names of fields it does not know.
private struct ConfigFile: Decodable {
    enum Field: String, CodingKey { case database, archive, pipelines, fixtures, queries, metricsFile = "metrics_file", logFormat = "log_format" }
    var database, archive, pipelines, fixtures, queries, metricsFile, logFormat: String?
    var unknownFields: [String]

    init(from decoder: any Decoder) throws {
        unknownFields = try decoder.container(keyedBy: YAMLKey.self).allKeys.map(\.stringValue)
            .filter { Field(rawValue: $0) == nil }.sorted()
        let fields = try decoder.container(keyedBy: Field.self)
        func path(_ field: Field) throws -> String? {
            // An empty value is not a path.
            if fields.contains(field), try fields.decodeNil(forKey: field) {
                throw DecodingError.valueNotFound(String.self, .init(codingPath: [field], debugDescription: "empty"))
            }
            return try fields.decodeIfPresent(YAMLText.self, forKey: field)?.text
        }
        database = try path(.database); archive = try path(.archive); pipelines = try path(.pipelines)
        fixtures = try path(.fixtures); queries = try path(.queries); metricsFile = try path(.metricsFile)
        logFormat = try path(.logFormat)
    }
}
