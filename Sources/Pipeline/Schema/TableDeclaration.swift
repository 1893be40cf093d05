import Domain
import Foundation

// A table, view or trigger declared once, by the module that owns it: its columns with their
// logical type, unit, meaning and constraints, its key, indexes and reference rows. Each store
// renders its own DDL from the declaration (Storage: SQLite, PostgresStorage: PostgreSQL), and
// `feedline describe` and the Datasette metadata read the meanings from it. Nothing here knows a
// dialect beyond the few places where the two genuinely differ (`DialectSQL`).

/// What a column holds, independent of any store. Each store maps it to one type of its own
/// (`Sources/PostgresStorage/README.md` has the table).
public enum ColumnType: String, Sendable, Hashable, CaseIterable {
    /// Text as delivered: labels, names, JSON, local times with their offsets.
    case text
    /// A 64-bit integer: ids, counts, ordinals, codes, years.
    case integer
    /// A small bounded integer — a grade, a level, an hour of the day, a 0/1 flag — that a CHECK
    /// bounds (PostgreSQL `integer`; still `INTEGER` on SQLite).
    case smallInteger
    /// An IEEE double.
    case real
    /// A UTC instant, written `YYYY-MM-DDTHH:MM:SSZ` (SQLite `TEXT`, PostgreSQL `timestamptz`).
    case instant
    /// A calendar day `YYYY-MM-DD` (SQLite `TEXT`, PostgreSQL `date`).
    case date
    /// A surrogate id the store assigns (SQLite's rowid, PostgreSQL's identity); the table's
    /// only key column.
    case rowID
}

/// A constraint on one column's values.
public enum ColumnCheck: Sendable, Hashable {
    /// An SQL predicate that follows the column's name and reads the same on every store:
    /// `"BETWEEN 1 AND 4"`, `">= 0"`, `"IN (0, 1)"`.
    case predicate(String)
    /// A whole-second UTC instant: SQLite checks the text's shape (`GLOB`), PostgreSQL's
    /// `timestamptz` is the shape and the check keeps whole seconds.
    case wholeSecondInstant
    /// A text pattern: SQLite's `GLOB` and the PostgreSQL regular expression meaning the same.
    case pattern(glob: String, regex: String)
}

/// A unit of measure: the symbol shown to people and the name Pint (Datasette's units) reads.
public struct ColumnUnit: Sendable, Hashable {
    public let symbol: String
    public let pint: String

    public init(symbol: String, pint: String) { self.symbol = symbol; self.pint = pint }

    public static let microgramsPerCubicMetre = ColumnUnit(symbol: "µg/m³", pint: "ug/m**3")
    public static let ppm = ColumnUnit(symbol: "ppm", pint: "ppm")
    public static let micrograms = ColumnUnit(symbol: "µg", pint: "ug")
    public static let cubicMetresPerHour = ColumnUnit(symbol: "m³/h", pint: "m**3/h")
    public static let kilometres = ColumnUnit(symbol: "km", pint: "km")
    public static let metres = ColumnUnit(symbol: "m", pint: "m")
    public static let degrees = ColumnUnit(symbol: "°", pint: "degree")
    public static let percent = ColumnUnit(symbol: "%", pint: "percent")
    public static let seconds = ColumnUnit(symbol: "s", pint: "s")
    public static let bytes = ColumnUnit(symbol: "bytes", pint: "byte")
    public static let metresPerSecond = ColumnUnit(symbol: "m/s", pint: "m/s")
    public static let hectopascals = ColumnUnit(symbol: "hPa", pint: "hPa")
    public static let kelvin = ColumnUnit(symbol: "K", pint: "K")
    public static let celsius = ColumnUnit(symbol: "°C", pint: "degC")
    public static let millimetres = ColumnUnit(symbol: "mm", pint: "mm")
}

/// One column of a table (or, with `type` nil, of a view).
public struct ColumnDeclaration: Sendable, Hashable {
    public var name: String
    /// Nil for a view's column (its type follows the query).
    public var type: ColumnType?
    public var notNull: Bool
    /// An SQL literal both stores accept (`0`, `'x'`), or nil.
    public var defaultValue: String?
    public var checks: [ColumnCheck]
    /// `table(column)` this column refers to, with what a delete of the referenced row does.
    public var references: ForeignKey?
    /// One line: what the value is.
    public var meaning: String
    public var unit: ColumnUnit?
    /// The values a grade or index takes and what they mean (`1 좋음 · 2 보통 · 3 나쁨 · 4 매우나쁨`).
    public var scale: String?
    /// Who decided the value — `AirKorea` (published) or `feedline` (computed) — for grades and
    /// indices that exist in both forms.
    public var whose: String?

    public init(_ name: String, _ type: ColumnType?, notNull: Bool = false, default defaultValue: String? = nil,
                check: [ColumnCheck] = [], references: ForeignKey? = nil,
                _ meaning: String, unit: ColumnUnit? = nil, scale: String? = nil, whose: String? = nil) {
        self.name = name; self.type = type; self.notNull = notNull; self.defaultValue = defaultValue
        self.checks = check; self.references = references
        self.meaning = meaning; self.unit = unit; self.scale = scale; self.whose = whose
    }

    /// A view's column: a name and a meaning.
    public static func view(_ name: String, _ meaning: String, unit: ColumnUnit? = nil, scale: String? = nil, whose: String? = nil) -> ColumnDeclaration {
        ColumnDeclaration(name, nil, meaning, unit: unit, scale: scale, whose: whose)
    }

    /// The same column as a view shows it (no type, no constraints).
    public var asViewColumn: ColumnDeclaration {
        ColumnDeclaration(name, nil, meaning, unit: unit, scale: scale, whose: whose)
    }

    /// The meaning with whose it is and the scale, as one line (Datasette's column descriptions).
    public var fullMeaning: String {
        var text = meaning
        if let whose { text += " [\(whose)]" }
        if let scale { text += " Scale: \(scale)." }
        return text
    }
}

/// A reference to another table's key.
public struct ForeignKey: Sendable, Hashable {
    public enum OnDelete: String, Sendable, Hashable { case noAction = "", cascade = "CASCADE" }
    public var table: String
    public var columns: [String]
    public var onDelete: OnDelete

    public init(_ table: String, _ columns: [String], onDelete: OnDelete = .noAction) {
        self.table = table; self.columns = columns; self.onDelete = onDelete
    }
}

/// An index on a table.
public struct IndexDeclaration: Sendable, Hashable {
    public var name: String
    public var columns: [String]
    public var unique: Bool

    public init(_ name: String, on columns: [String], unique: Bool = false) {
        self.name = name; self.columns = columns; self.unique = unique
    }
}

/// How a table's key is kept.
public enum KeyLayout: Sendable, Hashable {
    /// `PRIMARY KEY (…)` on every store.
    case primaryKey
    /// SQLite keeps the rows in rowid (arrival) order with the key as a `UNIQUE` constraint, so
    /// hourly loads append; PostgreSQL (whose heap does not cluster by key) makes it the primary
    /// key. The same columns, both NOT NULL, the same `ON CONFLICT` target.
    case uniqueInRowidOrder
    /// SQLite `WITHOUT ROWID` (rows clustered by key); a plain primary key elsewhere.
    case clusteredByKey
}

/// A table, declared once.
public struct TableDeclaration: Sendable, Hashable {
    public var name: String
    /// One line: what one row is.
    public var meaning: String
    /// Bookkeeping of feedline's own (the ledger, locks, bookmarks, quota counters), not data.
    public var isInternal: Bool
    public var columns: [ColumnDeclaration]
    /// The natural key (empty for a table whose key is a `rowID` column).
    public var key: [String]
    public var keyLayout: KeyLayout
    /// Further unique column sets.
    public var unique: [[String]]
    /// Table-wide constraints, SQL predicates that read the same on every store.
    public var checks: [String]
    /// Composite references (a single column's reference sits on the column).
    public var compositeForeignKeys: [CompositeForeignKey]
    public var indexes: [IndexDeclaration]
    /// Reference rows every new database starts with (values in `columns` order, SQL literals
    /// both stores accept).
    public var rows: [[String]]
    /// Columns of `rows`, when they are not all of the table's.
    public var rowColumns: [String]?
    /// The column holding the time the data itself carries (`status` shows its newest value),
    /// for tables that have one.
    public var dataTime: DataTimeColumn?

    public init(_ name: String, _ meaning: String, internal isInternal: Bool = false,
                columns: [ColumnDeclaration], key: [String], keyLayout: KeyLayout = .primaryKey,
                unique: [[String]] = [], checks: [String] = [], foreignKeys: [CompositeForeignKey] = [],
                indexes: [IndexDeclaration] = [], rows: [[String]] = [], rowColumns: [String]? = nil, dataTime: DataTimeColumn? = nil) {
        self.name = name; self.meaning = meaning; self.isInternal = isInternal; self.columns = columns
        self.key = key; self.keyLayout = keyLayout; self.unique = unique; self.checks = checks
        self.compositeForeignKeys = foreignKeys; self.indexes = indexes; self.rows = rows; self.rowColumns = rowColumns
        self.dataTime = dataTime
    }

    public func column(_ name: String) -> ColumnDeclaration? { columns.first { $0.name == name } }
}

/// The column of a table whose newest value is how recent its data is.
public struct DataTimeColumn: Sendable, Hashable {
    /// How the column writes a time.
    public enum Format: Sendable, Hashable {
        /// A UTC instant, `YYYY-MM-DDTHH:MM:SSZ`.
        case utcInstant
        /// A KST hour label `YYYY-MM-DD HH:00`, standing for that hour's start.
        case kstHourLabel
    }

    public var column: String
    public var kind: DataTimeKind
    public var format: Format

    public init(_ column: String, _ kind: DataTimeKind, _ format: Format) {
        self.column = column; self.kind = kind; self.format = format
    }

    /// The instant a value of the column stands for, or nil when it is not one.
    public func instant(_ text: String) -> Date? {
        switch format {
        case .utcInstant:
            return try? Date(text, strategy: Date.ISO8601FormatStyle())
        case .kstHourLabel:
            guard let date = LocalDate(iso: text.prefix(10)), let hour = Int(text.dropFirst(11).prefix(2)),
                  let slot = HourSlot(date: date, hour: hour) else { return nil }
            return slot.start
        }
    }
}

/// A reference from several columns to another table's key.
public struct CompositeForeignKey: Sendable, Hashable {
    public var columns: [String]
    public var references: ForeignKey
    public init(_ columns: [String], references: ForeignKey) { self.columns = columns; self.references = references }
}

/// The few expressions the two dialects write differently, so a view's query is written once
/// (`DialectSQL { f in "… \(f.month(of: "kst_date")) …" }`); each store's `DDLDialect` supplies
/// its own form.
public protocol SQLFunctions: Sendable {
    /// `YYYY-MM` of a calendar day.
    func month(of day: String) -> String
    /// The calendar day `days` days before `day`.
    func day(_ day: String, minusDays days: Int) -> String
    /// The greater of two numbers (a scalar, not the aggregate).
    func greater(_ a: String, _ b: String) -> String
    /// A condition as 1 or 0 (NULL stays NULL), for sums and flag columns.
    func integer(_ condition: String) -> String
    /// Whole seconds from one instant to another.
    func seconds(from start: String, to end: String) -> String
    /// A number rounded half away from zero to `places` decimals, as a double.
    func round(_ number: String, _ places: Int) -> String
    /// A double as text with exactly `places` decimals (`37.5665`).
    func fixed(_ number: String, _ places: Int) -> String
    /// The start of the UTC hour an instant falls in (`…T05:42:10Z` → `…T05:00:00Z`), an instant.
    func hourStart(of instant: String) -> String
    /// An instant `hours` hours later (earlier when negative).
    func instant(_ instant: String, plusHours hours: Int) -> String
}

/// SQL text written once, with `SQLFunctions` where the dialects differ, or — for what cannot
/// be one text, such as PL/pgSQL trigger functions — once per dialect. Each store takes its own.
public struct DialectSQL: Sendable {
    let build: @Sendable (any SQLFunctions) -> String
    let perDialect: (sqlite: String, postgres: String)?

    /// The same text on every store.
    public init(_ text: String) { build = { _ in text }; perDialect = nil }
    /// One text, with the dialects' own forms of a few expressions.
    public init(_ build: @escaping @Sendable (any SQLFunctions) -> String) { self.build = build; perDialect = nil }
    /// Two texts, for statements the dialects cannot share.
    public init(sqlite: String, postgres: String) { build = { _ in sqlite }; perDialect = (sqlite, postgres) }

    /// The text for a store: `functions` give its expressions, `pick` chooses its own of two texts.
    public func text(with functions: any SQLFunctions, pick: ((sqlite: String, postgres: String)) -> String) -> String {
        perDialect.map(pick) ?? build(functions)
    }
}

/// A view, declared once: its meaning and columns for the dictionary, and its query.
public struct ViewDeclaration: Sendable {
    public var name: String
    public var meaning: String
    public var isInternal: Bool
    public var columns: [ColumnDeclaration]
    /// The `SELECT` (without `CREATE VIEW … AS`).
    public var query: DialectSQL

    public init(_ name: String, _ meaning: String, internal isInternal: Bool = false, columns: [ColumnDeclaration], query: DialectSQL) {
        self.name = name; self.meaning = meaning; self.isInternal = isInternal
        self.columns = columns.map(\.asViewColumn); self.query = query
    }
}

/// A trigger (with, on PostgreSQL, the function it runs): the whole statement(s) per dialect.
public struct TriggerDeclaration: Sendable {
    /// The trigger's name (PostgreSQL: the triggers' names, one statement may create several).
    public var names: [String]
    public var table: String
    public var sql: DialectSQL

    public init(_ names: [String], on table: String, _ sql: DialectSQL) {
        self.names = names; self.table = table; self.sql = sql
    }
}

/// Everything one module declares: tables, views (in dependency order) and triggers.
public struct SchemaDeclarations: Sendable {
    public var tables: [TableDeclaration]
    public var views: [ViewDeclaration]
    public var triggers: [TriggerDeclaration]

    public init(tables: [TableDeclaration] = [], views: [ViewDeclaration] = [], triggers: [TriggerDeclaration] = []) {
        self.tables = tables; self.views = views; self.triggers = triggers
    }

    public static func + (a: SchemaDeclarations, b: SchemaDeclarations) -> SchemaDeclarations {
        SchemaDeclarations(tables: a.tables + b.tables, views: a.views + b.views, triggers: a.triggers + b.triggers)
    }

    public func table(_ name: String) -> TableDeclaration? { tables.first { $0.name == name } }
    public func view(_ name: String) -> ViewDeclaration? { views.first { $0.name == name } }
}

/// Scales and meanings several declarations share.
public enum DeclaredScale {
    public static let koreanGrade = "1 좋음 · 2 보통 · 3 나쁨 · 4 매우나쁨"
    public static let cai = "0–500: 0–50 좋음, 51–100 보통, 101–250 나쁨, 251–500 매우나쁨"
    public static let aqi = "0–500: 0–50 Good, 51–100 Moderate, 101–150 Unhealthy for Sensitive Groups, 151–200 Unhealthy, 201–300 Very Unhealthy, 301–500 Hazardous"
}

extension ColumnDeclaration {
    /// `payload_sha256`: the payload that last changed the row.
    public static let payloadSHA256 = ColumnDeclaration("payload_sha256", .text, "SHA-256 of the payload that last changed the row (payload.sha256)")
    /// `revision`: times the row changed after insert.
    public static let revision = ColumnDeclaration("revision", .integer, notNull: true, default: "0", "Times the row changed after it was inserted (0: never)")
}
