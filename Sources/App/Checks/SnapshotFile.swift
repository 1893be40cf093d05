import Foundation
import Pipeline
import Storage

/// A snapshot's rows as a file (CSV or JSON) and back, and the row-level difference between two.
///
/// CSV: a header of column names, then one line per row (RFC 4180 quoting). NULL is an empty
/// field and the empty string is `""`, as PostgreSQL's CSV does, so the two stay apart.
/// JSON: `{"table", "key", "columns", "rows": [[…], …]}` with one row per line, numbers as JSON
/// numbers, NULL as null.
///
/// Files are compared by parsing both — the file and what the rows render to now — with the same
/// reader, so a value compares as its text (`41`, `12.5`, `종로구`) whichever format holds it.
enum SnapshotFile {
    /// One table of a snapshot as read back: column names and rows of cells (nil is NULL).
    struct Table: Equatable {
        var columns: [String]
        var rows: [[String?]]
    }

    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    // MARK: - Writing

    /// `rows` (in `spec.columns` order) as the text of `spec`'s file.
    static func render(_ spec: SnapshotSpec, rows: [[SQLValue]]) -> String {
        switch spec.format {
        case .csv:
            var lines = [spec.columns.map { csvField(.text($0)) }.joined(separator: ",")]
            for row in rows { lines.append(row.map(csvField).joined(separator: ",")) }
            return lines.joined(separator: "\n") + "\n"
        case .json:
            func list(_ names: [String]) -> String { "[" + names.map(JSONText.string).joined(separator: ", ") + "]" }
            var text = "{\n  \"table\": \(JSONText.string(spec.table)),\n  \"key\": \(list(spec.key)),\n  \"columns\": \(list(spec.columns)),\n  \"rows\": ["
            text += rows.isEmpty ? "]\n}\n" : "\n" + rows.map { "    [" + $0.map(QueryFormatting.json).joined(separator: ", ") + "]" }.joined(separator: ",\n") + "\n  ]\n}\n"
            return text
        }
    }

    static func csvField(_ value: SQLValue) -> String {
        switch value {
        case .null: return ""
        case .integer(let i): return String(i)
        case .real(let d): return number(d)
        case .blob(let data): return csvField(.text(data.base64EncodedString()))
        case .text(let s):
            let needsQuotes = s.isEmpty || s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
                || s.first?.isWhitespace == true || s.last?.isWhitespace == true
            return needsQuotes ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
        }
    }

    /// A REAL as its shortest round-trip text (`12.5`, `3.0`, `1e-05`).
    static func number(_ value: Double) -> String { String(value) }

    // MARK: - Reading

    /// The table a file's text holds.
    static func parse(_ text: String, format: SnapshotSpec.Format) throws -> Table {
        switch format {
        case .csv: return try parseCSV(text)
        case .json: return try parseJSON(text)
        }
    }

    static func parseCSV(_ text: String) throws -> Table {
        var records: [[String?]] = []
        var record: [String?] = []
        var field = ""
        var quoted = false, inQuotes = false, fieldStarted = false
        var line = 1
        var characters = Array(text).makeIterator()
        var pending: Character? = characters.next()
        func endField() {
            record.append(quoted || !field.isEmpty ? field : nil)
            field = ""; quoted = false; fieldStarted = false
        }
        while let c = pending {
            pending = characters.next()
            if inQuotes {
                if c == "\"" {
                    if pending == "\"" { field.append("\""); pending = characters.next() } else { inQuotes = false }
                } else {
                    if c == "\n" || c == "\r\n" { line += 1 }
                    field.append(c)
                }
                continue
            }
            switch c {
            case "\"" where !fieldStarted:
                inQuotes = true; quoted = true; fieldStarted = true
            case ",":
                endField()
            case "\n", "\r\n", "\r":
                endField()
                records.append(record)
                record = []
                line += 1
            default:
                if quoted { throw ParseError(description: "line \(line): text after a closing quote") }
                field.append(c); fieldStarted = true
            }
        }
        if inQuotes { throw ParseError(description: "line \(line): a quoted field is not closed") }
        if fieldStarted || !record.isEmpty { endField(); records.append(record) }
        guard let header = records.first else { throw ParseError(description: "the file is empty (no header line)") }
        let columns = header.map { $0 ?? "" }
        for (index, row) in records.dropFirst().enumerated() where row.count != columns.count {
            throw ParseError(description: "line \(index + 2) has \(row.count) fields; the header has \(columns.count)")
        }
        return Table(columns: columns, rows: Array(records.dropFirst()))
    }

    static func parseJSON(_ text: String) throws -> Table {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: Data(text.utf8)) } catch {
            throw ParseError(description: "not valid JSON (\(error.localizedDescription))")
        }
        guard let document = object as? [String: Any], let columns = document["columns"] as? [String], let rows = document["rows"] as? [Any] else {
            throw ParseError(description: "expected an object with \"columns\" (a list of names) and \"rows\" (a list of lists)")
        }
        var cells: [[String?]] = []
        for (index, row) in rows.enumerated() {
            guard let values = row as? [Any], values.count == columns.count else {
                throw ParseError(description: "row \(index + 1) is not a list of \(columns.count) values")
            }
            cells.append(values.map { value in
                switch value {
                case is NSNull: return nil
                case let s as String: return s
                case let n as NSNumber: return n.description
                default: return "\(value)"
                }
            })
        }
        return Table(columns: columns, rows: cells)
    }

    // MARK: - Comparing

    /// One difference between the expected rows (the snapshot file) and the actual ones.
    struct Difference: Equatable, Sendable {
        enum Kind: String, Sendable { case added, removed, changed }
        var kind: Kind
        /// The key columns and their values (`station_name=종로구`).
        var key: [(column: String, value: String?)]
        /// For `changed`: the column, and the value in the snapshot and now.
        var column: String?
        var expected: String?
        var actual: String?

        static func == (a: Difference, b: Difference) -> Bool {
            a.kind == b.kind && a.column == b.column && a.expected == b.expected && a.actual == b.actual
                && a.key.map(\.column) == b.key.map(\.column) && a.key.map(\.value) == b.key.map(\.value)
        }
    }

    /// What differs between `expected` (the file) and `actual` (the rows now), keyed by `key`:
    /// columns added or removed, rows removed and each changed cell of the rows both have (in
    /// the file's order), then rows added.
    static func diff(expected: Table, actual: Table, key: [String]) -> (columns: [String], differences: [Difference]) {
        var notes: [String] = []
        let added = actual.columns.filter { !expected.columns.contains($0) }
        let removed = expected.columns.filter { !actual.columns.contains($0) }
        /// Column names as the file gives them: each a short excerpt, at most 20 of them.
        func names(_ list: [String]) -> String {
            list.prefix(20).map { ProjectFile.excerpt($0) }.joined(separator: ", ") + (list.count > 20 ? " and \(list.count - 20) more" : "")
        }
        if !added.isEmpty { notes.append("columns added: \(names(added))") }
        if !removed.isEmpty { notes.append("columns removed: \(names(removed))") }
        let usableKey = key.filter { expected.columns.contains($0) && actual.columns.contains($0) }
        if usableKey.count < key.count { notes.append("key columns missing from one side: \(key.filter { !usableKey.contains($0) }.joined(separator: ", "))") }

        /// Rows by key (a repeated key gets its occurrence number, so nothing is lost).
        func index(_ table: Table) -> (order: [[String?]], rows: [[String?]: [String?]]) {
            let positions = usableKey.compactMap { table.columns.firstIndex(of: $0) }
            var order: [[String?]] = [], rows: [[String?]: [String?]] = [:], seen: [[String?]: Int] = [:]
            for row in table.rows {
                var k = positions.map { row[$0] }
                let n = seen[k, default: 0]
                seen[k] = n + 1
                if n > 0 { k.append("#\(n + 1)") }
                order.append(k); rows[k] = row
            }
            return (order, rows)
        }
        let (expectedOrder, expectedRows) = index(expected)
        let (actualOrder, actualRows) = index(actual)
        func keyPairs(_ k: [String?]) -> [(column: String, value: String?)] {
            var pairs = zip(usableKey, k).map { (column: $0, value: $1) }
            if k.count > usableKey.count { pairs.append((column: "occurrence", value: k.last ?? nil)) }
            return pairs
        }
        var differences: [Difference] = []
        let common = expected.columns.filter { actual.columns.contains($0) && !usableKey.contains($0) }
        for k in Self.merged(expectedOrder, actualOrder) {
            switch (expectedRows[k], actualRows[k]) {
            case (nil, _?): differences.append(Difference(kind: .added, key: keyPairs(k)))
            case (_?, nil): differences.append(Difference(kind: .removed, key: keyPairs(k)))
            case let (old?, new?):
                for column in common {
                    let before = old[expected.columns.firstIndex(of: column)!], after = new[actual.columns.firstIndex(of: column)!]
                    if before != after {
                        differences.append(Difference(kind: .changed, key: keyPairs(k), column: column, expected: before, actual: after))
                    }
                }
            case (nil, nil): break
            }
        }
        return (notes, differences)
    }

    /// The keys of both sides, each once: the expected side's in its order, then the keys only
    /// the actual side has, in its order.
    private static func merged(_ a: [[String?]], _ b: [[String?]]) -> [[String?]] {
        var known = Set(a)
        return a + b.filter { known.insert($0).inserted }
    }

    /// `added    measurement (station_name=종로구, observed_at=2024-03-06T06:00:00Z)` /
    /// `changed  measurement (…) pm10: 41 → 42`.
    static func line(_ difference: Difference, table: String) -> String {
        let key = difference.key.map { "\($0.column)=\(display($0.value))" }.joined(separator: ", ")
        switch difference.kind {
        case .added: return "added    \(table) (\(key)): a row the snapshot does not have"
        case .removed: return "removed  \(table) (\(key)): a row of the snapshot is no longer produced"
        case .changed:
            return "changed  \(table) (\(key)) \(difference.column ?? "?"): \(display(difference.expected)) → \(display(difference.actual))"
        }
    }

    /// A cell for messages: NULL, `""` for the empty string, else the text.
    static func display(_ value: String?) -> String {
        guard let value else { return "NULL" }
        return value.isEmpty ? "\"\"" : value
    }
}

extension OutputFile.Kind {
    /// A snapshot file of `spec`: recognised by what `SnapshotFile.render` starts it with — for
    /// CSV a header line of column names, one of them `spec`'s; for JSON the opening `"table"`
    /// line naming `spec`'s table.
    static func snapshot(_ spec: SnapshotSpec) -> OutputFile.Kind {
        let table = spec.table, columns = Set(spec.columns), format = spec.format
        return OutputFile.Kind(noun: "the snapshot", recognisedAs: "a snapshot file feedline wrote", exampleName: "\(spec.table).\(spec.format.rawValue)",
                               option: "snapshot file:", window: 4096, recognises: { head in
            guard !head.contains(0), let text = String(data: head, encoding: .utf8) ?? String(data: head.dropLast(3), encoding: .utf8) else {
                return false
            }
            switch format {
            case .json:
                return text.hasPrefix("{\n  \"table\": \(JSONText.string(table)),\n")
            case .csv:
                guard let end = text.firstIndex(where: { $0 == "\n" || $0 == "\r\n" }) else { return false }
                let names = text[..<end].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                return names.allSatisfy { name in
                    name.first.map { $0 == "_" || $0.isLetter } == true && name.allSatisfy { $0 == "_" || $0.isLetter || $0.isNumber }
                } && names.contains(where: columns.contains)
            }
        })
    }
}
