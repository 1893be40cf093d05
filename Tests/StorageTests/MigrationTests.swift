import Foundation
import GRDB
@testable import Storage
import Testing
import TestSupport

/// Migrations carry existing databases forward without losing or changing anything.
@Suite struct MigrationTests {
    @Test func measurementLayoutMigrationKeepsRowsViewsAndTheKey() throws {
        let dir = try TemporaryDirectory("migration")
        defer { dir.remove() }
        let queue = try DatabaseQueue(path: dir.path("old.sqlite").path)
        let migrator = FeedlineMigrations.migrator
        try migrator.migrate(queue, upTo: "v6-quota-and-completeness")

        let rows = """
            INSERT INTO measurement (station_name, observed_at, kst_date, kst_hour, data_time, sido, pm10, pm25, pm10_grade, payload_sha256, revision, cai, aqi_pm25)
            VALUES ('종로구', '2024-03-06T06:00:00Z', '2024-03-06', 14, '2024-03-06 15:00', '서울', 35, 19, 2, 'aa', 1, 72, 66),
                   ('종로구', '2024-03-06T05:00:00Z', '2024-03-06', 13, '2024-03-06 14:00', '서울', NULL, 21, NULL, 'aa', 0, NULL, 70),
                   ('강남구', '2024-03-06T06:00:00Z', '2024-03-06', 14, '2024-03-06 15:00', '서울', 40, 25, 2, 'bb', 0, 80, 78)
            """
        let dumpSQL = "SELECT * FROM measurement ORDER BY station_name, observed_at"
        let (before, viewsBefore, columnsBefore) = try queue.write { db -> ([Row], [String], [String]) in
            try db.execute(sql: rows)
            // What a user may have added for their own queries.
            try db.execute(sql: """
                CREATE INDEX my_pm25 ON measurement (pm25);
                CREATE TABLE my_audit (station_name TEXT, observed_at TEXT);
                CREATE TRIGGER my_audit_insert AFTER INSERT ON measurement BEGIN
                    INSERT INTO my_audit VALUES (new.station_name, new.observed_at);
                END;
                CREATE VIEW my_view AS SELECT station_name, max(pm25) AS worst FROM measurement GROUP BY station_name;
                """)
            #expect(try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'measurement'")?.contains("WITHOUT ROWID") == true)
            return (try Row.fetchAll(db, sql: dumpSQL),
                    try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name"),
                    try db.columns(in: "measurement").map(\.name))
        }

        try migrator.migrate(queue)

        try queue.read { db in
            #expect(try Row.fetchAll(db, sql: dumpSQL) == before)
            #expect(try db.columns(in: "measurement").map(\.name) == columnsBefore)
            #expect(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name") == viewsBefore)
            #expect(try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'measurement'")?.contains("WITHOUT ROWID") == false)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'measurement_by_kst'") == 1)
            // Every view still reads (none was left pointing at a dropped table).
            for view in viewsBefore {
                _ = try Row.fetchAll(db, sql: "SELECT * FROM \(view.quotedDatabaseIdentifier) LIMIT 1")
            }
            #expect(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE tbl_name = 'measurement' AND name IN ('my_pm25', 'my_audit_insert') ORDER BY name")
                    == ["my_audit_insert", "my_pm25"])
            #expect(try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"])
        }
        try queue.write { db in
            // The natural key is still enforced, and still serves as the upsert target.
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO measurement (station_name, observed_at, kst_date, kst_hour, data_time) VALUES ('종로구', '2024-03-06T06:00:00Z', '2024-03-06', 14, 'x')")
            }
            try db.execute(sql: """
                INSERT INTO measurement (station_name, observed_at, kst_date, kst_hour, data_time) VALUES ('종로구', '2024-03-06T06:00:00Z', '2024-03-06', 14, 'x')
                ON CONFLICT (station_name, observed_at) DO NOTHING
                """)
            #expect(db.changesCount == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement") == 3)
            // The user's trigger works on the new table (the copy itself did not fire it).
            try db.execute(sql: "INSERT INTO measurement (station_name, observed_at, kst_date, kst_hour, data_time) VALUES ('중구', '2024-03-06T06:00:00Z', '2024-03-06', 14, 'x')")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM my_audit") == 1)
        }
    }
}
