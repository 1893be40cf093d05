import Foundation
import GRDB
@testable import Storage
import Testing
import TestSupport

/// `SchemaDictionary` describes exactly the schema the migrations build: every table, view and
/// column has an entry, and no entry names something the database does not have.
@Suite struct SchemaDictionaryTests {
    /// A freshly migrated database — feedline's own migrations and those the bundled feeds
    /// bring (OpenWeather's tables) — read back through the read-only connection.
    static func freshSchema() throws -> DatabaseSchema {
        let dir = try TemporaryDirectory("dictionary")
        defer { dir.remove() }
        let path = dir.path("fresh.sqlite").path
        do { _ = try SQLiteStore(path: path, schema: .feedline) }
        return try DatabaseSchema.read(from: ReadOnlyDatabase(path: path))
    }

    @Test func everyTableViewAndColumnOfAFreshDatabaseIsDescribed() throws {
        let schema = try Self.freshSchema()
        #expect(schema.relations.count > 30)
        for relation in schema.relations {
            guard let entry = SchemaDictionary.entry(relation.name) else {
                Issue.record("\(relation.kind.rawValue) \(relation.name) has no SchemaDictionary entry")
                continue
            }
            #expect(!entry.meaning.isEmpty, "\(relation.name) has no meaning")
            let inDatabase = relation.columns.map(\.name)
            let described = entry.columns.map(\.name)
            let undocumented = inDatabase.filter { !described.contains($0) }
            let missing = described.filter { !inDatabase.contains($0) }
            #expect(undocumented.isEmpty, "\(relation.name): columns without an entry: \(undocumented)")
            #expect(missing.isEmpty, "\(relation.name): entries for columns the database does not have: \(missing)")
            #expect(Set(described).count == described.count, "\(relation.name): a column is described twice")
            for column in entry.columns {
                #expect(!column.meaning.isEmpty, "\(relation.name).\(column.name) has no meaning")
            }
        }
        let inDatabase = Set(schema.relations.map(\.name))
        for entry in SchemaDictionary.relations {
            #expect(inDatabase.contains(entry.name), "SchemaDictionary describes \(entry.name), which the migrations do not create")
        }
        #expect(Set(SchemaDictionary.relations.map(\.name)).count == SchemaDictionary.relations.count)
    }

    @Test func migrationsLocksBookmarksQuotaCountersAndSlotsAreMarkedInternal() {
        let internalNames = SchemaDictionary.relations.filter(\.isInternal).map(\.name)
        #expect(Set(internalNames) == ["grdb_migrations", "run_lock", "bookmark", "api_call", "schedule_slot"])
    }

    /// Grades and indices say their scale and whose they are; AirKorea's and feedline's are
    /// told apart, and `grade_agreement` names the two columns it compares.
    @Test func gradeColumnsNameTheirScaleAndWhoseGradeTheyAre() throws {
        let measurement = try #require(SchemaDictionary.entry("measurement"))
        let graded = measurement.columns.filter { $0.name.contains("grade") || ["khai", "cai", "aqi_pm10", "aqi_pm25"].contains($0.name) }
        #expect(graded.count == 18)
        for column in graded {
            #expect(column.scale != nil, "measurement.\(column.name) names no scale")
            #expect(column.whose != nil, "measurement.\(column.name) names no owner")
        }
        #expect(measurement.column("pm10_grade")?.scale == "1 좋음 · 2 보통 · 3 나쁨 · 4 매우나쁨")
        #expect(measurement.column("khai")?.whose == "AirKorea")
        #expect(measurement.column("cai")?.whose == "feedline")
        #expect(measurement.column("our_pm25_grade")?.whose == "feedline")
        #expect(measurement.column("pm10")?.unit?.symbol == "µg/m³")
        #expect(measurement.column("o3")?.unit?.symbol == "ppm")

        let dir = try TemporaryDirectory("agreement")
        defer { dir.remove() }
        let queue = try DatabaseQueue(path: dir.path("fresh.sqlite").path)
        try FeedlineMigrations.migrator.migrate(queue)
        let pairs = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT field, airkorea_column, feedline_column FROM grade_agreement")
                .map { ($0[0] as String, $0[1] as String, $0[2] as String) }
        }
        #expect(pairs.map(\.0) == ["pm10Grade", "pm25Grade", "pm10Grade1h", "pm25Grade1h", "khaiGrade"])
        for (field, airKorea, ours) in pairs {
            #expect(measurement.column(airKorea)?.whose == "AirKorea", "\(field): \(airKorea)")
            #expect(measurement.column(ours)?.whose == "feedline", "\(field): \(ours)")
        }
    }

    @Test func unitsHaveAPintName() {
        for relation in SchemaDictionary.relations {
            for column in relation.columns {
                guard let unit = column.unit else { continue }
                #expect(!unit.pint.isEmpty && unit.pint.allSatisfy(\.isASCII), "\(relation.name).\(column.name)")
            }
        }
    }
}
