import Foundation
import Pipeline

/// The database's tables and views as `feedline describe` shows them: the structure read from
/// the database (`DatabaseSchema`: names, kinds, column types) joined with what each one means
/// (the declared schema's `DeclaredRelation`s: meaning, unit, scale, whose), plus row counts.
struct SchemaDescription: Sendable, Equatable {
    struct Relation: Sendable, Equatable {
        var name: String
        var kind: DatabaseSchema.Kind
        var meaning: String?
        var isInternal: Bool
        /// nil when counting was stopped by its time limit (or not asked for).
        var rows: Int?
        var columns: [Column]
    }

    struct Column: Sendable, Equatable {
        var name: String
        var type: String
        var notNull: Bool
        var primaryKeyPosition: Int
        var meaning: String?
        var unit: ColumnUnit?
        var scale: String?
        var whose: String?
    }

    var relations: [Relation]

    /// Joins `schema` with `declared`: relations in the declaration's order, then the stores'
    /// own migration ledgers (`StoreBookkeeping`), then any neither knows (a user's own tables)
    /// in the database's order; columns in the database's order. `rows` gives the row counts by name.
    init(schema: DatabaseSchema, declared: SchemaDeclarations, rows: [String: Int] = [:]) {
        let entries = Self.entries(declared)
        let order = Dictionary(entries.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        let byName = Dictionary(entries.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let sorted = schema.relations.enumerated().sorted { a, b in
            (order[a.element.name] ?? Int.max, a.offset) < (order[b.element.name] ?? Int.max, b.offset)
        }.map(\.element)
        relations = sorted.map { relation in
            let entry = byName[relation.name]
            return Relation(
                name: relation.name, kind: relation.kind, meaning: entry?.meaning, isInternal: entry?.isInternal ?? false,
                rows: rows[relation.name],
                columns: relation.columns.map { column in
                    let documented = entry?.column(column.name)
                    return Column(name: column.name, type: column.type, notNull: column.notNull,
                                  primaryKeyPosition: column.primaryKeyPosition, meaning: documented?.meaning,
                                  unit: documented?.unit, scale: documented?.scale, whose: documented?.whose)
                })
        }
    }

    /// Every relation the dictionary describes: the declared ones (data first, bookkeeping
    /// last), then the stores' migration ledgers.
    static func entries(_ declared: SchemaDeclarations) -> [DeclaredRelation] {
        let relations = declared.relations
        let known = Set(relations.map(\.name))
        return relations + StoreBookkeeping.relations.filter { !known.contains($0.name) }
    }

    func relation(_ name: String) -> Relation? {
        relations.first { $0.name == name }
    }

    /// Up to `limit` names close to `name` (a typo, a prefix, a part), closest first.
    func names(closeTo name: String, limit: Int = 5) -> [String] {
        let wanted = name.lowercased()
        let scored = relations.compactMap { relation -> (Int, String)? in
            let candidate = relation.name.lowercased()
            if candidate.contains(wanted) || (wanted.count >= 4 && wanted.contains(candidate)) { return (0, relation.name) }
            let distance = Self.editDistance(wanted, candidate)
            return distance <= max(2, wanted.count / 3) ? (distance, relation.name) : nil
        }
        return scored.sorted { ($0.0, $0.1.count, $0.1) < ($1.0, $1.1.count, $1.1) }.prefix(limit).map(\.1)
    }

    /// Levenshtein distance between `a` and `b`, in characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

// MARK: - Text

extension SchemaDescription {
    /// What a row count shows: the number, or `?` when counting was stopped.
    static func rowsText(_ rows: Int?) -> String {
        guard let rows else { return "?" }
        var digits = String(rows.magnitude)
        var grouped = ""
        while digits.count > 3 {
            grouped = "," + digits.suffix(3) + grouped
            digits.removeLast(3)
        }
        return (rows < 0 ? "-" : "") + digits + grouped
    }

    /// The overview: one line per table and view (name, kind, rows, meaning), data first and
    /// feedline's internal tables after, the meaning wrapped to fit `width` columns.
    func overviewText(database: String, width: Int) -> String {
        let data = relations.filter { !$0.isInternal }, bookkeeping = relations.filter(\.isInternal)
        let tables = relations.filter { $0.kind == .table }.count
        var lines = ["\(database): \(tables) tables, \(relations.count - tables) views"]
        let header = ["NAME", "KIND", "ROWS", "MEANING"]
        let rows: ([Relation]) -> [[String]] = { relations in
            relations.map { [$0.name, $0.kind.rawValue, Self.rowsText($0.rows), $0.meaning ?? "(not described by this feedline: a table of your own, or a newer feedline's)"] }
        }
        let all = [header] + rows(data) + rows(bookkeeping)
        let widths = (0..<3).map { c in all.map { DisplayWidth.columns($0[c]) }.max() ?? 0 }
        let render: ([String]) -> [String] = { row in
            Self.layout(row, widths: widths, rightAligned: [2], width: width)
        }
        lines.append("")
        lines += render(header)
        for row in rows(data) { lines += render(row) }
        if !bookkeeping.isEmpty {
            lines.append("")
            lines.append("Internal (feedline's own bookkeeping, not data):")
            for row in rows(bookkeeping) { lines += render(row) }
        }
        if relations.contains(where: { $0.rows == nil }) {
            lines.append("")
            lines.append("? = counting took too long and was stopped; `feedline describe NAME` counts with more time.")
        }
        lines.append("")
        lines.append("`feedline describe NAME` lists a table's columns with their types, units and meaning.")
        return lines.joined(separator: "\n")
    }

    /// One table or view: a heading, its meaning, then one line per column (name, type, unit,
    /// whose, meaning with the scale), the meaning wrapped to fit `width` columns.
    func relationText(_ relation: Relation, width: Int) -> String {
        var lines = ["\(relation.name) (\(relation.kind.rawValue)\(relation.isInternal ? ", internal" : ""), \(Self.rowsText(relation.rows)) rows)"]
        lines += Self.wrap(relation.meaning ?? "Not described by this feedline: a table of your own, or a newer feedline's.", width: width)
        lines.append("")
        let header = ["COLUMN", "TYPE", "UNIT", "WHOSE", "MEANING"]
        let rows = relation.columns.map { column -> [String] in
            var type = column.type.isEmpty ? "-" : column.type
            if column.primaryKeyPosition > 0 { type += " key" }
            var meaning = column.meaning ?? "(not described)"
            if let scale = column.scale { meaning += ". Scale: \(scale)" }
            return [column.name, type, column.unit?.symbol ?? "", column.whose ?? "", meaning]
        }
        let all = [header] + rows
        let widths = (0..<4).map { c in all.map { DisplayWidth.columns($0[c]) }.max() ?? 0 }
        for row in all { lines += Self.layout(row, widths: widths, rightAligned: [], width: width) }
        return lines.joined(separator: "\n")
    }

    /// A row as one or more lines: the leading cells padded to `widths`, the last cell wrapped
    /// into what is left of `width` (at least 24 columns) and continued under itself.
    static func layout(_ row: [String], widths: [Int], rightAligned: Set<Int>, width: Int) -> [String] {
        let lead = row.dropLast().enumerated().map { c, cell in
            DisplayWidth.pad(cell, toColumns: widths[c], alignRight: rightAligned.contains(c))
        }.joined(separator: "  ")
        let indent = DisplayWidth.columns(lead) + 2
        let wrapped = wrap(row.last ?? "", width: max(24, width - indent))
        return wrapped.enumerated().map { i, part in
            (i == 0 ? lead + "  " : String(repeating: " ", count: indent)) + part
        }
    }

    /// `text` broken at spaces into lines of at most `width` terminal columns (a longer word
    /// stands on a line of its own).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if line.isEmpty {
                line = String(word)
            } else if DisplayWidth.columns(line) + 1 + DisplayWidth.columns(word) <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        lines.append(line)
        return lines
    }
}

// MARK: - JSON

extension SchemaDescription {
    /// `describe --json`: every relation, or one.
    struct JSONDocument: Encodable {
        var database: String
        var relations: [JSONRelation]
    }

    struct JSONRelation: Encodable {
        var relation: Relation

        enum Keys: String, CodingKey { case name, kind, meaning, `internal`, rows, columns }
        enum ColumnKeys: String, CodingKey { case name, type, notNull = "not_null", primaryKey = "primary_key", meaning, unit, pintUnit = "pint_unit", scale, whose }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(relation.name, forKey: .name)
            try container.encode(relation.kind.rawValue, forKey: .kind)
            try container.encode(relation.meaning, forKey: .meaning)
            try container.encode(relation.isInternal, forKey: .internal)
            try container.encode(relation.rows, forKey: .rows)
            var columns = container.nestedUnkeyedContainer(forKey: .columns)
            for column in relation.columns {
                var c = columns.nestedContainer(keyedBy: ColumnKeys.self)
                try c.encode(column.name, forKey: .name)
                try c.encode(column.type, forKey: .type)
                try c.encode(column.notNull, forKey: .notNull)
                try c.encode(column.primaryKeyPosition, forKey: .primaryKey)
                try c.encode(column.meaning, forKey: .meaning)
                try c.encode(column.unit?.symbol, forKey: .unit)
                try c.encode(column.unit?.pint, forKey: .pintUnit)
                try c.encode(column.scale, forKey: .scale)
                try c.encode(column.whose, forKey: .whose)
            }
        }
    }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return encoder
    }

    func json(database: String) throws -> String {
        let document = JSONDocument(database: database, relations: relations.map(JSONRelation.init))
        return String(decoding: try Self.encoder().encode(document), as: UTF8.self)
    }

    static func json(_ relation: Relation) throws -> String {
        String(decoding: try encoder().encode(JSONRelation(relation: relation)), as: UTF8.self)
    }
}

// MARK: - Datasette

/// The dictionary as Datasette metadata (`datasette FILE.sqlite -m metadata.json`): a
/// description per table and view, column descriptions, Pint units, and internal tables hidden.
/// Datasette names a database by its file's stem, so `databaseName` is that stem.
struct DatasetteMetadata: Encodable {
    struct Database: Encodable {
        var tables: [String: Table]
    }

    struct Table: Encodable {
        var description: String
        var columns: [String: String]
        var units: [String: String]?
        var hidden: Bool?
    }

    var title: String
    var description: String
    var databases: [String: Database]

    init(databaseName: String, declared: SchemaDeclarations) {
        title = "feedline"
        description = "Air quality from AirKorea and careers from CareerNet and Saramin, loaded by feedline. "
            + "Times are UTC ISO-8601 unless a column says KST; NULL means missing, never 0. "
            + "Region columns join province_alias.name (then province) whatever spelling they use."
        var tables: [String: Table] = [:]
        for relation in SchemaDescription.entries(declared) {
            let units = Dictionary(relation.columns.compactMap { c in c.unit.map { (c.name, $0.pint) } }, uniquingKeysWith: { a, _ in a })
            tables[relation.name] = Table(
                description: relation.isInternal ? "Internal (feedline's own bookkeeping): " + relation.meaning : relation.meaning,
                columns: Dictionary(relation.columns.map { ($0.name, $0.fullMeaning) }, uniquingKeysWith: { a, _ in a }),
                units: units.isEmpty ? nil : units,
                hidden: relation.isInternal ? true : nil)
        }
        databases = [databaseName: Database(tables: tables)]
    }

    func json() throws -> String {
        String(decoding: try SchemaDescription.encoder().encode(self), as: UTF8.self)
    }
}

// MARK: - The stores' own tables

/// The tables a store keeps for itself, outside every declaration: each store's ledger of the
/// schema steps applied to its database. `describe` lists them as internal.
enum StoreBookkeeping {
    static let relations: [DeclaredRelation] = [
        DeclaredRelation(name: "grdb_migrations", meaning: "The schema migrations applied to this file", isInternal: true, isView: false,
                         columns: [ColumnDeclaration.view("identifier", "Migration name, e.g. v9-province-reference")]),
        DeclaredRelation(name: "feedline_migration", meaning: "The schema migrations applied to this database", isInternal: true, isView: false,
                         columns: [ColumnDeclaration.view("identifier", "Migration name, e.g. declared-v3"),
                                   ColumnDeclaration.view("applied_at", "When the migration was applied (UTC)")]),
    ]
}
