import Foundation
import Pipeline
import Storage

/// Turns a pipeline file's `checks:` and `snapshots:` entries into `DataCheck`s and
/// `SnapshotSpec`s, checking every name against feedline's schema (`StoreSchemaProbe`: an empty
/// in-memory database migrated with feedline's and the feeds' migrations) — unknown check kinds,
/// fields, tables, columns, and SQL that does not prepare or would write are problems found here,
/// by `feedline pipelines`, before anything runs. Each problem names its field
/// (`checks[2].columns`) and the check (`check 'unique(measurement.station_name)': …`).
struct CheckDefinitions {
    let probe: StoreSchemaProbe
    let pipeline: String
    let source: String?
    var problems: [(field: String, message: String)] = []

    init(probe: StoreSchemaProbe, pipeline: String, source: String?) {
        self.probe = probe; self.pipeline = pipeline; self.source = source
    }

    /// Fields every check may have.
    static let commonFields: Set<String> = ["check", "name", "severity", "on_failure", "message"]
    /// The fields of each kind besides the common ones, and which are required.
    static let kindFields: [String: (allowed: Set<String>, required: [String])] = [
        "not_null": (["table", "column", "columns", "where"], ["table"]),
        "unique": (["table", "column", "columns", "where"], ["table"]),
        "accepted_values": (["table", "column", "values", "where"], ["table", "column", "values"]),
        "accepted_range": (["table", "column", "min", "max", "min_inclusive", "max_inclusive", "where"], ["table", "column"]),
        "relationships": (["table", "column", "to", "to_column", "where"], ["table", "column", "to", "to_column"]),
        "row_count": (["table", "min", "max"], ["table"]),
        "freshness": (["table", "column", "max_age", "where"], ["table", "column", "max_age"]),
        "completeness": (["table", "entity", "time", "column", "hours", "min", "where"], ["table", "entity", "time", "min"]),
        "sql": (["sql"], ["sql"]),
    ]
    static let snapshotFields: Set<String> = ["table", "columns", "exclude", "key", "where", "format", "file"]

    // MARK: - Checks

    mutating func checks(_ entries: [PipelineFile.Entry]) -> [DataCheck] {
        var checks: [DataCheck] = []
        var names: [String: String] = [:]  // name → path of the entry that has it
        for entry in entries {
            guard var check = check(entry) else { continue }
            if let earlier = names[check.name] {
                note(entry, entry.fields["name"] == nil ? "check" : "name", check.name,
                     "the name is also the name of \(earlier); give one of them a `name:` of its own.")
                continue
            }
            names[check.name] = entry.path
            check.message = check.message?.trimmingCharacters(in: .whitespacesAndNewlines)
            checks.append(check)
        }
        return checks
    }

    private mutating func check(_ entry: PipelineFile.Entry) -> DataCheck? {
        let reader = EntryReader(entry: entry)
        let before = problems.count
        let kindName: String
        switch (entry.fields["check"], entry.fields["sql"]) {
        case (.text(let name)?, _): kindName = name
        case (nil, _?): kindName = "sql"
        case (.list?, _): note(entry, "check", nil, "must be one check name: \(DataCheck.Kind.names.joined(separator: ", "))."); return nil
        case (nil, nil):
            if !entry.badFields.contains("check") {
                note(entry, "check", nil, "is required: one of \(DataCheck.Kind.names.joined(separator: ", ")).")
            }
            return nil
        }
        let label = reader.text("name") ?? Self.defaultName(kindName, entry)
        guard let fields = Self.kindFields[kindName] else {
            let hint = Suggestions.didYouMean(kindName, among: DataCheck.Kind.names, quote: "'").map { " (\($0))" } ?? ""
            note(entry, "check", label, "'\(kindName)' is not a known check\(hint); known: \(DataCheck.Kind.names.joined(separator: ", ")).")
            return nil
        }
        let allowed = fields.allowed.union(Self.commonFields)
        for field in entry.fields.keys.sorted() where !allowed.contains(field) {
            let hint = Suggestions.didYouMean(field, among: allowed, quote: "'").map { " (\($0))" } ?? ""
            note(entry, field, label, "'\(field)' is not a field of a \(kindName) check\(hint); it takes \(allowed.sorted().joined(separator: ", ")).")
        }
        let listFields: Set<String> = kindName == "not_null" || kindName == "unique" ? ["column", "columns"] : ["values"]
        for (field, value) in entry.fields.sorted(by: { $0.key < $1.key }) where field != "check" && allowed.contains(field) && !listFields.contains(field) {
            if case .list = value { note(entry, field, label, "must be one value, not a list.") }
        }
        for field in fields.required where entry.fields[field] == nil && !entry.badFields.contains(field) {
            note(entry, field, label, "is required for a \(kindName) check.")
        }
        if kindName == "sql" && entry.fields["name"] == nil {
            note(entry, "name", label, "is required for a sql check (it names the check in results and JUnit reports).")
        }
        if (kindName == "not_null" || kindName == "unique") && entry.fields["column"] == nil && entry.fields["columns"] == nil {
            note(entry, "columns", label, "is required for a \(kindName) check (one column or a list).")
        }

        var severity = CheckSeverity.error
        if let text = reader.text("severity") {
            if let value = CheckSeverity(rawValue: text) { severity = value } else { note(entry, "severity", label, "must be warn or error, not '\(text)'.") }
        }
        var onFailure = CheckFailureAction.rollback
        if let text = reader.text("on_failure") {
            if let value = CheckFailureAction(rawValue: text) { onFailure = value } else { note(entry, "on_failure", label, "must be rollback or keep, not '\(text)'.") }
            if severity == .warn { note(entry, "on_failure", label, "applies to error checks only; a warn check never fails its run (remove on_failure, or make severity error).") }
        }
        let message = reader.text("message")

        // The table and its columns, against the schema.
        var table: String?, columns: [String] = []
        if kindName != "sql", let name = reader.text("table") {
            if let known = probe.columns(of: name) {
                table = name; columns = known
            } else {
                note(entry, "table", label, unknownRelation(name))
            }
        }
        func column(_ field: String, in known: [String]? = nil, of relation: String? = nil) -> String? {
            guard let name = reader.text(field) else { return nil }
            let known = known ?? columns, relation = relation ?? table
            guard let relation else { return name }  // the table is already a problem
            if known.contains(name) { return name }
            note(entry, field, label, unknownColumn(name, of: relation, columns: known))
            return nil
        }
        func columnList(_ fields: [String]) -> [String] {
            var names: [String] = []
            for field in fields { names += reader.list(field) ?? [] }
            guard let relation = table else { return names }
            for name in names where !columns.contains(name) {
                note(entry, fields.first { reader.list($0)?.contains(name) ?? false } ?? fields[0], label, unknownColumn(name, of: relation, columns: columns))
            }
            return names.filter(columns.contains)
        }
        let filter = reader.text("where")
        if let filter, let table, let problem = probe.problem(withFilter: filter, on: table) {
            note(entry, "where", label, "is not a condition on the rows of \(table): \(problem)")
        }

        var kind: DataCheck.Kind?
        switch kindName {
        case "not_null":
            let list = columnList(["column", "columns"])
            if !list.isEmpty { kind = .notNull(columns: list) }
        case "unique":
            let list = columnList(["column", "columns"])
            if !list.isEmpty { kind = .unique(columns: list) }
        case "accepted_values":
            let values = reader.list("values")
            if let c = column("column"), let values { kind = .acceptedValues(column: c, values: values) }
        case "accepted_range":
            let min = number("min", reader, entry, label), max = number("max", reader, entry, label)
            let minInclusive = flag("min_inclusive", reader, entry, label) ?? true
            let maxInclusive = flag("max_inclusive", reader, entry, label) ?? true
            if entry.fields["min"] == nil && entry.fields["max"] == nil { note(entry, "min", label, "an accepted_range check needs min, max or both.") }
            if let min, let max, min > max { note(entry, "max", label, "must not be below min (\(min)).") }
            if let c = column("column"), min != nil || max != nil {
                kind = .acceptedRange(column: c, min: min, max: max, minInclusive: minInclusive, maxInclusive: maxInclusive)
            }
        case "relationships":
            let c = column("column")
            var target: String?, targetColumns: [String] = []
            if let to = reader.text("to") {
                if let known = probe.columns(of: to) { target = to; targetColumns = known } else { note(entry, "to", label, unknownRelation(to)) }
            }
            let toColumn = target.flatMap { column("to_column", in: targetColumns, of: $0) }
            if let c, let target, let toColumn { kind = .relationships(column: c, to: target, toColumn: toColumn) }
        case "row_count":
            let min = whole("min", reader, entry, label, range: 0...Int.max), max = whole("max", reader, entry, label, range: 0...Int.max)
            if entry.fields["min"] == nil && entry.fields["max"] == nil { note(entry, "min", label, "a row_count check needs min, max or both.") }
            if let min, let max, min > max { note(entry, "max", label, "must not be below min (\(min)).") }
            if min != nil || max != nil { kind = .rowCount(min: min, max: max) }
        case "freshness":
            let c = column("column")
            var maxAge: TimeInterval?
            if let text = reader.text("max_age") {
                maxAge = Self.duration(text)
                if maxAge == nil { note(entry, "max_age", label, "must be a duration such as 90m, 3h, 2d or 1h30m, not '\(text)'.") }
            }
            if let c, let maxAge { kind = .freshness(column: c, maxAge: maxAge) }
        case "completeness":
            let entity = column("entity"), time = column("time")
            let present = entry.fields["column"] == nil ? nil : column("column")
            let hours = entry.fields["hours"] == nil ? 24 : whole("hours", reader, entry, label, range: 1...8784)
            var share: Double?
            if let text = reader.text("min") {
                share = Self.share(text)
                if share == nil { note(entry, "min", label, "must be a share of the expected station-hours: 0…1 or 0%…100%, not '\(text)'.") }
            }
            if let entity, let time, let hours, let share, entry.fields["column"] == nil || present != nil {
                kind = .completeness(entity: entity, time: time, column: present, hours: hours, min: share)
            }
        case "sql":
            if let sql = reader.text("sql") {
                if let problem = probe.problem(withCheckSQL: sql) { note(entry, "sql", label, problem) } else { kind = .sql(sql) }
            }
        default:
            break
        }
        guard problems.count == before, let kind else { return nil }
        let check = DataCheck(name: label, kind: kind, table: table, filter: filter, severity: severity, onFailure: onFailure, message: message)
        // The statements the check will run, prepared against the schema: whatever passed above prepares at run time too.
        if let problem = probe.problem(with: check) {
            note(entry, "check", label, "does not prepare against feedline's schema: \(problem)")
            return nil
        }
        return check
    }

    /// `not_null(measurement.station_name)`, `unique(measurement.station_name,observed_at)`,
    /// `relationships(measurement.station_name→station.name)`, `row_count(measurement)`.
    static func defaultName(_ kind: String, _ entry: PipelineFile.Entry) -> String {
        func values(_ field: String) -> [String] {
            switch entry.fields[field] {
            case .text(let v)?: [v]
            case .list(let v)?: v
            case nil: []
            }
        }
        let table = values("table").first ?? "?"
        switch kind {
        case "not_null", "unique":
            return "\(kind)(\(table).\((values("column") + values("columns")).joined(separator: ",")))"
        case "relationships":
            return "\(kind)(\(table).\(values("column").first ?? "?")→\(values("to").first ?? "?").\(values("to_column").first ?? "?"))"
        case "row_count":
            return "\(kind)(\(table))"
        case "completeness":
            return "\(kind)(\(table).\(values("entity").first ?? "?"))"
        case "sql":
            return "sql(\(entry.path))"
        default:
            let columns = values("column") + values("columns")
            return "\(kind)(\(table).\(columns.isEmpty ? "?" : columns.joined(separator: ",")))"
        }
    }

    // MARK: - Snapshots

    mutating func snapshots(_ entries: [PipelineFile.Entry]) -> [SnapshotSpec] {
        var specs: [SnapshotSpec] = []
        var files: [String: String] = [:]
        for entry in entries {
            let reader = EntryReader(entry: entry)
            let before = problems.count
            for field in entry.fields.keys.sorted() where !Self.snapshotFields.contains(field) {
                let hint = Suggestions.didYouMean(field, among: Self.snapshotFields, quote: "'").map { " (\($0))" } ?? ""
                noteSnapshot(entry, field, "'\(field)' is not a field of a snapshot\(hint); it takes \(Self.snapshotFields.sorted().joined(separator: ", ")).")
            }
            for (field, value) in entry.fields.sorted(by: { $0.key < $1.key }) where ["table", "where", "format", "file"].contains(field) {
                if case .list = value { noteSnapshot(entry, field, "must be one value, not a list.") }
            }
            guard let table = reader.text("table") else {
                if entry.fields["table"] == nil && !entry.badFields.contains("table") { noteSnapshot(entry, "table", "is required: the table (or view) whose rows the fixtures must produce.") }
                continue
            }
            guard let known = probe.columns(of: table) else {
                noteSnapshot(entry, "table", unknownRelation(table))
                continue
            }
            func listed(_ field: String) -> [String]? {
                guard let names = reader.list(field) else { return nil }
                for name in names where !known.contains(name) { noteSnapshot(entry, field, unknownColumn(name, of: table, columns: known)) }
                return names.filter(known.contains)
            }
            let excluded = listed("exclude") ?? []
            let chosen = (listed("columns") ?? known).filter { !excluded.contains($0) }
            let key = listed("key") ?? probe.key(of: table)
            for name in key where excluded.contains(name) {
                noteSnapshot(entry, "exclude", "\(name) is a key column (it identifies the rows in a diff); it cannot be left out.")
            }
            if key.isEmpty && entry.fields["key"] == nil {
                noteSnapshot(entry, "key", "is required: \(table) has no primary key or unique index, so give the columns that identify a row.")
            }
            var seen = Set<String>()
            let columns = (key + chosen).filter { seen.insert($0).inserted }
            let filter = reader.text("where")
            if let filter, let problem = probe.problem(withFilter: filter, on: table) {
                noteSnapshot(entry, "where", "is not a condition on the rows of \(table): \(problem)")
            }
            var format = SnapshotSpec.Format.csv
            if let text = reader.text("format") {
                if let value = SnapshotSpec.Format(rawValue: text.lowercased()) { format = value } else { noteSnapshot(entry, "format", "must be csv or json, not '\(text)'.") }
            }
            let file = reader.text("file") ?? "\(source ?? "snapshots")/snapshots/\(pipeline).\(table).\(format.rawValue)"
            let components = file.split(separator: "/", omittingEmptySubsequences: false)
            if file.hasPrefix("/") || components.contains("..") || components.contains("") || file.hasPrefix("~") {
                noteSnapshot(entry, "file", "must be a path inside the fixtures directory (relative, no '..'), not '\(file)'.")
            }
            if let earlier = files[file] {
                noteSnapshot(entry, "file", "\(file) is also the file of \(earlier); give one of them a `file:` of its own.")
            }
            files[file] = entry.path
            guard problems.count == before else { continue }
            specs.append(SnapshotSpec(table: table, columns: columns, key: key, filter: filter, format: format, file: file))
        }
        return specs
    }

    // MARK: - Values

    /// `90s`, `30m`, `3h`, `2d`, `1h30m` → seconds; nil when not a positive duration of at most 100 years.
    static func duration(_ text: String) -> TimeInterval? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604_800]
        var total = 0.0, digits = ""
        for c in text.trimmingCharacters(in: .whitespaces) {
            if c.isASCII && c.isNumber { digits.append(c); continue }
            guard let unit = units[c], let n = Double(digits) else { return nil }
            total += n * unit
            digits = ""
        }
        // Up to a hundred years: anything longer is a typo, and would not fit the arithmetic.
        return digits.isEmpty && total > 0 && total <= 100 * 365 * 86400 ? total : nil
    }

    /// `0.75` or `75%` → 0.75; nil outside 0…1.
    static func share(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let value = trimmed.hasSuffix("%") ? Double(trimmed.dropLast()).map { $0 / 100 } : Double(trimmed)
        guard let value, value.isFinite, (0...1).contains(value) else { return nil }
        return value
    }

    private mutating func number(_ field: String, _ reader: EntryReader, _ entry: PipelineFile.Entry, _ label: String) -> Double? {
        guard let text = reader.text(field) else { return nil }
        guard let value = Double(text), value.isFinite else { note(entry, field, label, "must be a number, not '\(text)'."); return nil }
        return value
    }

    private mutating func whole(_ field: String, _ reader: EntryReader, _ entry: PipelineFile.Entry, _ label: String, range: ClosedRange<Int>) -> Int? {
        guard let text = reader.text(field) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            note(entry, field, label, "must be a whole number\(range.upperBound == Int.max ? " ≥ \(range.lowerBound)" : " in \(range.lowerBound)…\(range.upperBound)"), not '\(text)'.")
            return nil
        }
        return value
    }

    private mutating func flag(_ field: String, _ reader: EntryReader, _ entry: PipelineFile.Entry, _ label: String) -> Bool? {
        guard let text = reader.text(field) else { return nil }
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default: note(entry, field, label, "must be true or false, not '\(text)'."); return nil
        }
    }

    // MARK: - Problems

    private func unknownRelation(_ name: String) -> String {
        let hint = Suggestions.didYouMean(name, among: probe.relations, quote: "'").map { "; \($0)" } ?? ""
        return "there is no table or view '\(name)' in feedline's schema\(hint) (`feedline describe` lists them)."
    }

    private func unknownColumn(_ name: String, of relation: String, columns: [String]) -> String {
        let hint = Suggestions.didYouMean(name, among: columns, quote: "'").map { "; \($0)" } ?? ""
        return "\(relation) has no column '\(name)'\(hint) (`feedline describe \(relation)` lists them)."
    }

    private mutating func note(_ entry: PipelineFile.Entry, _ field: String, _ check: String?, _ message: String) {
        problems.append(("\(entry.path).\(field)", (check.map { "check '\($0)': " } ?? "") + message))
    }

    private mutating func noteSnapshot(_ entry: PipelineFile.Entry, _ field: String, _ message: String) {
        problems.append(("\(entry.path).\(field)", message))
    }
}

/// Reads an entry's fields as one value or as a list, noting a list where one value belongs.
private struct EntryReader {
    let entry: PipelineFile.Entry

    /// The field as one value; nil when absent or a list (`list(_:)` reads those).
    func text(_ field: String) -> String? {
        if case .text(let value)? = entry.fields[field] { return value }
        return nil
    }

    /// The field as a list (one value is a list of one); nil when absent.
    func list(_ field: String) -> [String]? {
        switch entry.fields[field] {
        case .text(let value)?: [value]
        case .list(let values)?: values
        case nil: nil
        }
    }
}
