import Foundation

/// A pipeline file as written, decoded from YAML before any field is checked against the feeds.
///
/// Decoding is field by field, so one reading finds every field that is not of its shape (a
/// list where a single value belongs, a mapping of parameters that is not a mapping, an empty
/// parameter) and every field that is not known; each problem names its field by its coding
/// path (`parameters.stationName`). What the values mean is checked by `PipelineCatalog`.
struct PipelineFile: Decodable {
    enum Field: String, CodingKey, CaseIterable {
        case description, source, operation, parameters, format, target, schedule, timezone, fixtures, checks, snapshots, freshness
        case pageSize = "page_size", maxPages = "max_pages", catchUp = "catch_up", onDrift = "on_drift"
    }

    /// One entry of `checks:` or `snapshots:` as written: its fields by name, each a value or a
    /// list of values. What they mean is checked by `PipelineCatalog`.
    struct Entry: Sendable {
        enum Value: Sendable, Equatable {
            case text(String)
            case list([String])
        }
        /// `checks[2]`: how messages name the entry.
        var path: String
        var fields: [String: Value]
        /// Fields whose shape was wrong (already reported).
        var badFields: Set<String> = []
    }

    struct FieldProblem: Sendable {
        var field: String
        var message: String
    }

    var description, source, operation, format, pageSize, maxPages, target, schedule, timeZone, catchUp, onDrift: String?
    /// In file order is not kept by YAML mappings; sorted by name.
    var parameters: [(name: String, values: [String])] = []
    var parametersValid = true
    var fixtures: [String] = []
    /// The entries of `checks:` and `snapshots:` that are mappings (the others are problems).
    var checks: [Entry] = []
    var snapshots: [Entry] = []
    /// `freshness:` as written: `warn_after` and `error_after` as text (nil when absent or not a
    /// mapping). What they mean is checked by `PipelineCatalog`.
    var freshness: [String: String]?
    var problems: [FieldProblem] = []

    /// The fields `freshness:` takes.
    static let freshnessFields = ["error_after", "warn_after"]

    static var knownFields: [String] { Field.allCases.map(\.rawValue).sorted() }

    init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: YAMLKey.self)
        for unknown in keys.allKeys.map(\.stringValue).filter({ Field(rawValue: $0) == nil }).sorted() {
            problems.append(FieldProblem(field: unknown, message: "is not a known field; known fields: \(Self.knownFields.joined(separator: ", "))."))
        }
        let fields = try decoder.container(keyedBy: Field.self)
        var problems: [FieldProblem] = []
        func text(_ field: Field) -> String? {
            do { return try fields.decodeIfPresent(YAMLText.self, forKey: field)?.text } catch {
                problems.append(FieldProblem(field: field.rawValue, message: "must be a single value."))
                return nil
            }
        }
        description = text(.description); source = text(.source); operation = text(.operation); format = text(.format)
        pageSize = text(.pageSize); maxPages = text(.maxPages); target = text(.target); schedule = text(.schedule)
        timeZone = text(.timezone); catchUp = text(.catchUp); onDrift = text(.onDrift)

        if fields.contains(.parameters), !((try? fields.decodeNil(forKey: .parameters)) ?? false) {
            if let mapping = try? fields.nestedContainer(keyedBy: YAMLKey.self, forKey: .parameters) {
                for key in mapping.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                    let values = try? mapping.decode(YAMLTextList.self, forKey: key).values
                    if let values, !values.isEmpty {
                        parameters.append((key.stringValue, values))
                    } else {
                        problems.append(FieldProblem(field: "parameters.\(key.stringValue)", message: "must be a value or a non-empty list of values."))
                        parametersValid = false
                    }
                }
            } else {
                problems.append(FieldProblem(field: "parameters", message: "must be a mapping of name: value (or name: [values])."))
                parametersValid = false
            }
        }
        if fields.contains(.fixtures) {
            do { fixtures = try fields.decodeIfPresent(YAMLTextList.self, forKey: .fixtures)?.values ?? [] } catch {
                problems.append(FieldProblem(field: "fixtures", message: "must be a list of file paths."))
            }
        }
        checks = Self.entries(.checks, in: fields, problems: &problems)
        snapshots = Self.entries(.snapshots, in: fields, problems: &problems)
        freshness = Self.freshness(in: fields, problems: &problems)
        self.problems += problems
    }

    /// `freshness:`: a mapping of `warn_after` and/or `error_after` to single values. Another
    /// shape, an unknown key or a value that is a list is a problem naming it
    /// (`freshness.warn_after`).
    private static func freshness(in fields: KeyedDecodingContainer<Field>, problems: inout [FieldProblem]) -> [String: String]? {
        guard fields.contains(.freshness) else { return nil }
        let shape = "a mapping such as { warn_after: 3h, error_after: 12h }"
        guard !((try? fields.decodeNil(forKey: .freshness)) ?? false),
              let mapping = try? fields.nestedContainer(keyedBy: YAMLKey.self, forKey: .freshness) else {
            problems.append(FieldProblem(field: "freshness", message: "must be \(shape)."))
            return nil
        }
        var values: [String: String] = [:]
        for key in mapping.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            let name = key.stringValue
            guard freshnessFields.contains(name) else {
                problems.append(FieldProblem(field: "freshness.\(name)", message: "is not a known field; known fields: \(freshnessFields.joined(separator: ", "))."))
                continue
            }
            guard let text = try? mapping.decode(YAMLText.self, forKey: key) else {
                problems.append(FieldProblem(field: "freshness.\(name)", message: "must be a single duration such as 90m, 3h, 2d or 1h30m."))
                continue
            }
            values[name] = text.text
        }
        if mapping.allKeys.isEmpty { problems.append(FieldProblem(field: "freshness", message: "must be \(shape), with at least one of them.")) }
        return values
    }

    /// The entries of the list `field`: each a mapping of name: value (or name: [values]).
    /// An entry or a field of another shape is a problem naming it (`checks[2].values`).
    private static func entries(_ field: Field, in fields: KeyedDecodingContainer<Field>, problems: inout [FieldProblem]) -> [Entry] {
        guard fields.contains(field), !((try? fields.decodeNil(forKey: field)) ?? false) else { return [] }
        let shape = field == .checks ? "check: not_null, table: …, columns: […]" : "table: …, key: […]"
        guard var list = try? fields.nestedUnkeyedContainer(forKey: field) else {
            problems.append(FieldProblem(field: field.rawValue, message: "must be a list of mappings (- \(shape))."))
            return []
        }
        var entries: [Entry] = []
        var index = 0
        while !list.isAtEnd {
            let path = "\(field.rawValue)[\(index)]"
            index += 1
            guard let mapping = try? list.nestedContainer(keyedBy: YAMLKey.self) else {
                problems.append(FieldProblem(field: path, message: "must be a mapping (\(shape))."))
                _ = try? list.decode(Skipped.self)
                continue
            }
            var entry = Entry(path: path, fields: [:])
            for key in mapping.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                if let text = try? mapping.decode(YAMLText.self, forKey: key) {
                    entry.fields[key.stringValue] = .text(text.text)
                } else if let values = try? mapping.decode([YAMLText].self, forKey: key), !values.isEmpty {
                    entry.fields[key.stringValue] = .list(values.map(\.text))
                } else {
                    problems.append(FieldProblem(field: "\(path).\(key.stringValue)", message: "must be a value or a non-empty list of values."))
                    entry.badFields.insert(key.stringValue)
                }
            }
            entries.append(entry)
        }
        return entries
    }

    /// Any node, read only to step over it.
    private struct Skipped: Decodable {
        init(from decoder: any Decoder) throws {}
    }
}

/// The rule for pipeline names: a name is an identifier, because it reaches command lines
/// (`feedline run NAME`), crontab lines, systemd unit names and log file names.
///
/// A name is ASCII letters, digits, `_`, `-` and `.`, starts with a letter, digit or `_` (never
/// `-`, which would read as an option, nor `.`), and is at most 100 characters. Control
/// characters, whitespace, quotes, shell metacharacters (`$`, `` ` ``, `;`, `|`, `&`, `%`, …)
/// and non-ASCII letters are refused when the file is read.
public enum PipelineName {
    public static let maximumLength = 100
    private static let first = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_".unicodeScalars)
    private static let rest = first.union("-.".unicodeScalars)

    /// Why `name` is not a pipeline name, or nil when it is one.
    public static func problem(_ name: String) -> String? {
        let scalars = name.unicodeScalars
        guard let head = scalars.first else { return "has no pipeline name (the file name before .yaml is empty)." }
        let allowed = "ASCII letters, digits, '_', '-' and '.', starting with a letter, digit or '_'"
        if scalars.count > maximumLength {
            return "has a pipeline name of \(scalars.count) characters; names are at most \(maximumLength)."
        }
        if head == "-" { return "has a pipeline name starting with '-' (\(ShellText.shown(name))), which would read as an option; names are \(allowed)." }
        guard first.contains(head), scalars.allSatisfy(rest.contains) else {
            return "has a pipeline name (\(ShellText.shown(name))) with characters a name cannot hold (control characters, spaces, quotes or shell characters); names are \(allowed)."
        }
        return nil
    }
}
