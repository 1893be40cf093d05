import Foundation

/// The tables and views a feedline database holds, with their columns as SQLite declares them.
/// Read through a `ReadOnlyDatabase` (nothing is created or written); consumed by
/// `feedline describe`, which joins it with `SchemaDictionary`, and by the test that keeps the
/// dictionary complete.
public struct DatabaseSchema: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        case table
        case view
    }

    /// One table or view.
    public struct Relation: Sendable, Equatable {
        public let name: String
        public let kind: Kind
        public let columns: [Column]

        public init(name: String, kind: Kind, columns: [Column]) {
            self.name = name
            self.kind = kind
            self.columns = columns
        }
    }

    /// One column, as `PRAGMA table_info` gives it.
    public struct Column: Sendable, Equatable {
        public let name: String
        /// The declared type (`TEXT`, `REAL`, `INTEGER`); for a view's computed column often "".
        public let type: String
        public let notNull: Bool
        /// Position in the primary key, from 1; 0 when not part of it.
        public let primaryKeyPosition: Int

        public init(name: String, type: String, notNull: Bool = false, primaryKeyPosition: Int = 0) {
            self.name = name
            self.type = type
            self.notNull = notNull
            self.primaryKeyPosition = primaryKeyPosition
        }
    }

    /// Tables and views in creation order; SQLite's own (`sqlite_%`) are left out.
    public let relations: [Relation]

    public init(relations: [Relation]) {
        self.relations = relations
    }

    public func relation(_ name: String) -> Relation? {
        relations.first { $0.name == name }
    }

    /// Reads every table and view of `database` and their columns.
    public static func read(from database: ReadOnlyDatabase) throws -> DatabaseSchema {
        let objects = try database.fetchAll(sql: """
            SELECT name, type FROM sqlite_master
            WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
            ORDER BY rowid
            """).rows
        var relations: [Relation] = []
        for object in objects {
            guard let name = object[0].text, let kind = object[1].text.flatMap(Kind.init(rawValue:)) else { continue }
            let columns = try database.fetchAll(sql: """
                SELECT name, type, "notnull", pk FROM pragma_table_info(:name)
                """, parameters: ["name": .text(name)]).rows.map { row in
                Column(name: row[0].text ?? "", type: row[1].text ?? "", notNull: row[2].integer == 1,
                       primaryKeyPosition: row[3].integer ?? 0)
            }
            relations.append(Relation(name: name, kind: kind, columns: columns))
        }
        return DatabaseSchema(relations: relations)
    }

    /// Rows in table or view `name`, or nil when counting took longer than `timeout` seconds
    /// (a view over a large table can take long to count).
    public static func rowCount(of name: String, in database: ReadOnlyDatabase, timeout: TimeInterval) throws -> Int? {
        var count: Int?
        do {
            try database.run(sql: "SELECT count(*) FROM \(quoted(name))", timeout: timeout,
                             columns: { _ in }, row: { count = $0.first?.integer })
        } catch let error as ReadOnlyQueryError where error.kind == .timedOut {
            return nil
        }
        return count
    }

    /// `name` as an SQL identifier in double quotes.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
