import Foundation

// How declarations become DDL. The structure of a statement is the same on every store; what a
// store says its own way (type names, a check's form, how a key is kept) comes from its
// `DDLDialect`, which each store adapter implements next to its connection code.

/// What a store says in its own SQL dialect.
public protocol DDLDialect: SQLFunctions {
    /// The column type (`.rowID`: the whole `… PRIMARY KEY` clause the store assigns ids with).
    func typeName(_ type: ColumnType) -> String
    /// The predicate inside `CHECK (…)` for `check` on `column`, or nil when the store's type
    /// for the column already is the check.
    func predicate(_ check: ColumnCheck, column: ColumnDeclaration) -> String?
    /// The constraint keeping `table`'s natural key (`PRIMARY KEY (…)`, `UNIQUE (…)`).
    func keyConstraint(_ table: TableDeclaration) -> String
    /// What follows the closing parenthesis of `CREATE TABLE` (`WITHOUT ROWID`), or "".
    func tableOptions(_ table: TableDeclaration) -> String
    /// The store's text of a query written per dialect.
    func text(_ sql: DialectSQL) -> String
    /// `DROP VIEW` of a view, as the store writes it.
    func dropView(_ name: String) -> String
}

/// What a database holds now, read from its catalog by the store.
public struct SchemaCatalog: Sendable, Equatable {
    /// Every table with its columns, in order.
    public var tables: [String: [String]]
    public var views: Set<String>
    public var indexes: Set<String>
    public var triggers: Set<String>

    public init(tables: [String: [String]] = [:], views: Set<String> = [], indexes: Set<String> = [], triggers: Set<String> = []) {
        self.tables = tables; self.views = views; self.indexes = indexes; self.triggers = triggers
    }
}

public enum SchemaRenderer {
    /// `CREATE TABLE`, its indexes and its reference rows.
    public static func create(_ table: TableDeclaration, in dialect: some DDLDialect) -> [String] {
        var parts = table.columns.map { column($0, in: dialect) }
        if !table.key.isEmpty { parts.append(dialect.keyConstraint(table)) }
        parts += table.unique.map { "UNIQUE (\($0.joined(separator: ", ")))" }
        parts += table.compositeForeignKeys.map { "FOREIGN KEY (\($0.columns.joined(separator: ", "))) " + references($0.references) }
        parts += table.checks.map { "CHECK (\($0))" }
        var statements = ["CREATE TABLE \(table.name) (\n    " + parts.joined(separator: ",\n    ") + "\n)" + dialect.tableOptions(table)]
        statements += table.indexes.map { index($0, on: table.name) }
        if !table.rows.isEmpty {
            let columns = table.rowColumns ?? table.columns.map(\.name)
            statements.append("INSERT INTO \(table.name) (\(columns.joined(separator: ", "))) VALUES\n    "
                              + table.rows.map { "(" + $0.joined(separator: ", ") + ")" }.joined(separator: ",\n    "))
        }
        return statements
    }

    /// One column's definition, as in `CREATE TABLE` or `ALTER TABLE … ADD COLUMN`.
    public static func column(_ column: ColumnDeclaration, in dialect: some DDLDialect) -> String {
        var text = column.name + " " + dialect.typeName(column.type ?? .text)
        if column.notNull { text += " NOT NULL" }
        if let value = column.defaultValue { text += " DEFAULT \(value)" }
        for check in column.checks {
            if let predicate = dialect.predicate(check, column: column) { text += " CHECK (\(predicate))" }
        }
        if let target = column.references { text += " " + references(target) }
        return text
    }

    public static func index(_ index: IndexDeclaration, on table: String) -> String {
        "CREATE \(index.unique ? "UNIQUE " : "")INDEX \(index.name) ON \(table) (\(index.columns.joined(separator: ", ")))"
    }

    public static func view(_ view: ViewDeclaration, in dialect: some DDLDialect) -> String {
        "CREATE VIEW \(view.name) AS\n" + dialect.text(view.query)
    }

    static func references(_ key: ForeignKey) -> String {
        "REFERENCES \(key.table) (\(key.columns.joined(separator: ", ")))" + (key.onDelete == .cascade ? " ON DELETE CASCADE" : "")
    }

    /// Whether `catalog` lacks anything `declarations` declare.
    public static func isIncomplete(_ catalog: SchemaCatalog, for declarations: SchemaDeclarations) -> Bool {
        declarations.tables.contains { table in
            guard let columns = catalog.tables[table.name] else { return true }
            return table.columns.contains { !columns.contains($0.name) } || table.indexes.contains { !catalog.indexes.contains($0.name) }
        }
        || declarations.views.contains { !catalog.views.contains($0.name) }
        || declarations.triggers.contains { trigger in trigger.names.contains { !catalog.triggers.contains($0) } }
    }

    /// The statements that bring a database holding `catalog` to `declarations`, in order:
    /// missing tables are created (with their indexes and rows), missing columns added at the
    /// end of their table, missing indexes and triggers created, and every declared view
    /// dropped and created again from its declaration (views hold no rows). Nothing is ever
    /// dropped from a table; a change no `ALTER TABLE … ADD` can make comes as a migration of
    /// its own.
    public static func reconcile(_ catalog: SchemaCatalog, to declarations: SchemaDeclarations, in dialect: some DDLDialect) -> [String] {
        var statements = declarations.views.reversed().filter { catalog.views.contains($0.name) }.map { dialect.dropView($0.name) }
        for table in declarations.tables {
            guard let columns = catalog.tables[table.name] else {
                statements += create(table, in: dialect)
                continue
            }
            for column in table.columns where !columns.contains(column.name) {
                statements.append("ALTER TABLE \(table.name) ADD COLUMN " + Self.column(column, in: dialect))
            }
            for index in table.indexes where !catalog.indexes.contains(index.name) {
                statements.append(Self.index(index, on: table.name))
            }
        }
        statements += declarations.views.map { view($0, in: dialect) }
        for trigger in declarations.triggers where trigger.names.contains(where: { !catalog.triggers.contains($0) }) {
            statements.append(dialect.text(trigger.sql))
        }
        return statements
    }
}

extension SchemaDeclarations {
    /// Every table and view in the order `describe` lists them: data first, bookkeeping last.
    public var relations: [DeclaredRelation] {
        let all = tables.map { DeclaredRelation(name: $0.name, meaning: $0.meaning, isInternal: $0.isInternal, isView: false, columns: $0.columns) }
            + views.map { DeclaredRelation(name: $0.name, meaning: $0.meaning, isInternal: $0.isInternal, isView: true, columns: $0.columns) }
        return all.filter { !$0.isInternal } + all.filter(\.isInternal)
    }

    /// The table or view called `name`, for the dictionary.
    public func relation(_ name: String) -> DeclaredRelation? { relations.first { $0.name == name } }
}

/// A table or view as the data dictionary shows it.
public struct DeclaredRelation: Sendable, Hashable {
    public let name: String
    public let meaning: String
    public let isInternal: Bool
    public let isView: Bool
    public let columns: [ColumnDeclaration]

    public init(name: String, meaning: String, isInternal: Bool, isView: Bool, columns: [ColumnDeclaration]) {
        self.name = name; self.meaning = meaning; self.isInternal = isInternal; self.isView = isView; self.columns = columns
    }

    public func column(_ name: String) -> ColumnDeclaration? { columns.first { $0.name == name } }
}
