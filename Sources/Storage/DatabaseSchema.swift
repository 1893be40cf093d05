import Foundation
import Pipeline

extension DatabaseSchema {
    /// Reads every table and view of a SQLite database and their columns (`sqlite_master` and
    /// `PRAGMA table_info`), in creation order; SQLite's own (`sqlite_%`) are left out.
    public static func read(from database: some SQLReading) throws -> DatabaseSchema {
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
}
