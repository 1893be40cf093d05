import Foundation
import Pipeline
import Storage
#if canImport(Glibc)
import Glibc
#endif

/// A query kept in a `.sql` file (`Data/queries/NAME.sql`), with its description and parameter
/// defaults read from the leading comment:
///
/// ```sql
/// -- Stations whose newest measurement is older than :hours hours.
/// -- param hours = 3        age in hours
/// -- param now = null       reference instant (UTC, ISO-8601); null: the current time
/// SELECT …
/// ```
///
/// A `-- param NAME = DEFAULT  description` line gives `:NAME` a default (read like `--param`:
/// `null`, a number, or text); other leading comment lines are the description.
public struct SavedQuery: Sendable, Equatable {
    /// The file name without `.sql`.
    public var name: String
    public var file: URL
    public var sql: String
    /// The leading comment lines that are not parameter lines, joined with spaces.
    public var description: String
    public var parameters: [Parameter]

    public struct Parameter: Sendable, Equatable {
        public var name: String
        public var defaultValue: SQLValue
        /// The default as written in the file.
        public var defaultText: String
        public var help: String
    }

    /// The bound on a saved query file's size.
    static let maximumBytes = 1 << 20

    /// Reads and parses `file` (a regular file of at most `maximumBytes`, see `ProjectFile`).
    public init(file: URL) throws {
        let real = ProjectFile.realPath(file.path).map { URL(fileURLWithPath: $0) } ?? file
        guard let sql = String(data: try ProjectFile.read(real, limit: Self.maximumBytes, what: "saved query"), encoding: .utf8) else {
            throw ProjectFile.Problem(kind: .unreadable, message: "the saved query \(file.path) is not UTF-8 text.")
        }
        self.init(name: file.deletingPathExtension().lastPathComponent, file: file, sql: sql)
    }

    /// The saved queries built into feedline (the `Data/queries/*.sql` a new home gets, see
    /// `Scaffold`), used when the saved-queries directory is missing or holds none, so a hint such
    /// as `feedline query diagnostics` works outside a home too.
    public static var builtIn: [SavedQuery] {
        Scaffold.files.compactMap { file in
            let prefix = "Data/queries/"
            guard file.path.hasPrefix(prefix), file.path.hasSuffix(".sql"), let sql = String(data: file.contents, encoding: .utf8) else { return nil }
            let name = String(file.path.dropFirst(prefix.count).dropLast(".sql".count))
            return SavedQuery(name: name, file: URL(fileURLWithPath: "/feedline-built-in/\(file.path)"), sql: sql)
        }.sorted { $0.name < $1.name }
    }

    /// True when `directory` holds no saved query files (or is not there): the built-in ones
    /// stand in.
    static func usesBuiltIn(_ directory: URL) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return !names.contains { $0.hasSuffix(".sql") && !$0.hasPrefix(".") }
    }

    public init(name: String, file: URL, sql: String) {
        self.name = name
        self.file = file
        self.sql = sql
        var description: [String] = []
        var parameters: [Parameter] = []
        for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            guard trimmed.hasPrefix("--") else { break }
            let text = trimmed.dropFirst(2).trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("param "), let parameter = Self.parameter(text.dropFirst("param ".count)) {
                parameters.append(parameter)
            } else if !text.isEmpty {
                description.append(text)
            }
        }
        self.description = description.joined(separator: " ")
        self.parameters = parameters
    }

    /// `NAME = DEFAULT  help…` → a parameter; nil when there is no `=`.
    static func parameter(_ text: Substring) -> Parameter? {
        guard let equals = text.firstIndex(of: "=") else { return nil }
        let name = text[..<equals].trimmingCharacters(in: .whitespaces)
        let rest = text[text.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
        let value: String
        let help: String
        if rest.hasPrefix("'"), let close = rest.dropFirst().firstIndex(of: "'") {
            value = String(rest[rest.index(after: rest.startIndex)..<close])
            help = rest[rest.index(after: close)...].trimmingCharacters(in: .whitespaces)
            return Parameter(name: name, defaultValue: .text(value), defaultText: "'\(value)'", help: help)
        }
        let parts = rest.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        value = parts.first.map(String.init) ?? ""
        help = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        return Parameter(name: name, defaultValue: SQLValue(parameter: value), defaultText: value, help: help)
    }

    /// The defaults, by parameter name.
    public var defaults: [String: SQLValue] {
        Dictionary(parameters.map { ($0.name, $0.defaultValue) }, uniquingKeysWith: { _, b in b })
    }

    /// Every `*.sql` file in `directory`, by name (leaving out names that are not plain names
    /// and files whose symbolic links lead outside the directory); the built-in queries when it
    /// holds none.
    public static func all(in directory: URL) -> [SavedQuery] {
        if usesBuiltIn(directory) { return builtIn }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".sql") && !$0.hasPrefix(".") }.sorted().compactMap {
            if case .found(let query) = named($0, in: directory) { query } else { nil }
        }
    }

    /// What looking a saved query up by name found.
    public enum Lookup: Sendable, Equatable {
        case found(SavedQuery)
        /// The name is not a plain name (letters, digits, `-`, `_`, optionally ending in `.sql`).
        case invalidName
        /// No readable `NAME.sql` in the directory.
        case notFound
        /// `NAME.sql` is a symbolic link to a file outside the directory (its resolved path).
        case outside(URL)
    }

    /// The saved query `name` (or `name.sql`) in `directory`. Only a plain name is looked up, so
    /// `../x` or `a/b` never leave the directory, and the file must still be inside it once
    /// symbolic links are resolved.
    public static func named(_ name: String, in directory: URL) -> Lookup {
        let bare = name.hasSuffix(".sql") ? String(name.dropLast(".sql".count)) : name
        guard looksLikeName(bare) else { return .invalidName }
        if usesBuiltIn(directory) { return builtIn.first { $0.name == bare }.map(Lookup.found) ?? .notFound }
        let file = directory.appendingPathComponent("\(bare).sql")
        guard let resolvedFile = realPath(file.path), let resolvedDirectory = realPath(directory.path) else { return .notFound }
        guard (resolvedFile as NSString).deletingLastPathComponent == resolvedDirectory else {
            return .outside(URL(fileURLWithPath: resolvedFile))
        }
        guard let query = try? SavedQuery(file: file) else { return .notFound }
        return .found(query)
    }

    /// `path` with every symbolic link resolved; nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The SQL statements that are one bare word (what a saved query's name could be mistaken
    /// for): a word that is not one of these is no SQL statement.
    static let statementKeywords: Set<String> = ["ANALYZE", "BEGIN", "COMMIT", "END", "REINDEX", "ROLLBACK", "VACUUM"]

    /// True when `word` is by itself a SQL statement (`VACUUM`, `BEGIN`, …).
    static func isStatementKeyword(_ word: String) -> Bool { statementKeywords.contains(word.uppercased()) }

    /// True when `text` could be a saved query's name (letters, digits, `-`, `_`), as opposed to SQL.
    static func looksLikeName(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
    }
}
