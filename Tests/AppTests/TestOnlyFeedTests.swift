import AirKorea
import App
import Domain
import FeedCore
import Foundation
import GRDB
import Pipeline
import Storage
import Testing
import TestSupport

/// A feed defined only here — its record type, its declared table and view, its writer and
/// recognition — runs end to end through the real composition root, runner and each store:
/// fixture → table → SQL, `describe` and the Datasette metadata, a declared check. Nothing in
/// Pipeline, Storage, PostgresStorage, TestSupport or App knows it; registering it is one line
/// (the `feeds:` list of the environment).
@Suite(.serialized) struct TestOnlyFeedTests {
    /// One day's pollen count at one station.
    struct PollenCount: LoadableRecord {
        var station: String
        var date: LocalDate
        var grains: Int
    }

    /// A small JSON API: `{"pollen": {"items": [{"station": …, "date": …, "grains": …}]}}`.
    struct PollenFeed: Feed {
        var source: String { "pollen" }
        var operations: [String] { ["daily"] }
        var credentialVariable: String { "POLLEN_KEY" }

        static let table = UpsertTable(table: "pollen_count", columns: ["station", "date", "grains", "payload_sha256"],
                                       key: ["station", "date"])

        static let grainsPerCubicMetre = ColumnUnit(symbol: "grains/m³", pint: "1/m**3")

        /// The feed's tables, declared once: each store renders its own DDL from them.
        static let declarations = SchemaDeclarations(
            tables: [TableDeclaration("pollen_count", "One station's pollen count on one day", columns: [
                ColumnDeclaration("station", .text, notNull: true, "Counting station"),
                ColumnDeclaration("date", .date, notNull: true, "Day counted, local"),
                ColumnDeclaration("grains", .integer, notNull: true, check: [.predicate(">= 0")], "Pollen grains counted", unit: grainsPerCubicMetre),
                .payloadSHA256, .revision,
            ], key: ["station", "date"], indexes: [IndexDeclaration("pollen_count_by_date", on: ["date"])])],
            views: [ViewDeclaration("pollen_station_total", "Each station's grains over every day loaded", columns: [
                .view("station", "Counting station"),
                .view("grains", "Grains over every day loaded", unit: grainsPerCubicMetre),
            ], query: DialectSQL("SELECT station, sum(grains) AS grains FROM pollen_count GROUP BY station"))])

        var schema: FeedSchema {
            FeedSchema(declarations: Self.declarations, writers: [RecordWriter(PollenCount.self) { count, payload, tables in
                try tables.upsert(Self.table, RowValues([.text(count.station), .text(count.date.description),
                                                         .integer(Int64(count.grains)), StoreValue(payload?.sha256)]))
            }])
        }

        func requests(for spec: SourceSpec) throws -> [FeedRequest] {
            guard spec.operation == "daily" else { throw FeedError(.invalidRequest, .terminal, "pollen has no operation '\(spec.operation)'") }
            return [FeedRequest(source: source, operation: "daily", baseURL: URL(string: "http://127.0.0.1:9/pollen")!, query: [],
                                format: .json, credential: CredentialRequirement(environmentVariable: credentialVariable, placement: .query("key")))]
        }

        func request(_ request: FeedRequest, page: Int) -> FeedRequest? { nil }
        func isLastPage(_ summary: PageSummary, of request: FeedRequest) -> Bool { true }

        func recognise(head: Data, format: PayloadFormat) -> String? {
            String(decoding: head, as: UTF8.self).contains("\"pollen\"") ? "daily" : nil
        }

        static let reader = JSONItemReader(schema: FieldSchema(["station", "date", "grains"]), itemPaths: ["pollen/items"])

        func decode(_ payload: RawPayload, context: DecodeContext, into sink: inout some RecordSink) throws -> PageSummary {
            var items = 0
            var records: [FeedRecord] = [], diagnostics: [Diagnostic] = []
            _ = try Self.reader.read(file: payload.file) { item in
                items += 1
                guard let station = item["station"], let date = item["date"].flatMap(LocalDate.init(iso:)),
                      let grains = item["grains"].flatMap(Int.init), grains >= 0 else {
                    diagnostics.append(Diagnostic(code: DiagnosticCode("unparsable-item"), message: "a pollen item without station, date or grains; skipped.",
                                                  location: "item \(item.position)"))
                    return
                }
                records.append(FeedRecord(PollenCount(station: station, date: date, grains: grains)))
            }
            for record in records { try sink.accept(record) }
            for diagnostic in diagnostics { sink.diagnose(diagnostic) }
            return PageSummary(itemCount: items)
        }
    }

    @Test("a feed defined only in a test loads into its declared table, is described and passes its declared checks", arguments: TestStore.all)
    func aFeedDefinedOnlyInATest(_ store: TestStore) async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let fixtures = env.dir.path("fixtures")
        try FileManager.default.createDirectory(at: fixtures.appendingPathComponent("pollen"), withIntermediateDirectories: true)
        try Data("""
            {"pollen": {"items": [
              {"station": "종로구", "date": "2024-03-05", "grains": 12},
              {"station": "종로구", "date": "2024-03-06", "grains": 40},
              {"station": "중구", "date": "2024-03-06", "grains": "many"}
            ]}}
            """.utf8).write(to: fixtures.appendingPathComponent("pollen/daily.json"))
        let pipelines = try env.writePipeline("pollen-daily", """
            description: Daily pollen counts (a feed known only to this test).
            source: pollen
            operation: daily
            format: json
            target: pollen_count
            schedule: "0 6 * * *"
            timezone: Asia/Seoul
            fixtures:
              - pollen/daily.json
            checks:
              - check: accepted_range
                table: pollen_count
                column: grains
                min: 0
                max: 100000
                severity: error
              - check: not_null
                table: pollen_count
                columns: [station, date]
            """)
        var environment = env.environment
        environment.feeds.append(PollenFeed())  // the one line that registers a feed
        let db = try TestDatabase(store, file: env.database, name: "pollen")
        var paths = Paths(environment: environment, database: env.database.path, pipelines: pipelines.path,
                          fixtures: fixtures.path, archive: env.dir.path("archive").path)
        paths.postgresURL = db.postgresURL

        let status = await Console(environment: environment).run(names: ["pollen-daily"], source: .fixtures, paths: paths)
        #expect(status == .success, "\(env.err.text)")
        #expect(try db.rows("SELECT station, date, grains FROM pollen_count ORDER BY date") == [["종로구", "2024-03-05", "12"], ["종로구", "2024-03-06", "40"]])
        #expect(try db.rows("SELECT station, grains FROM pollen_station_total") == [["종로구", "52"]])
        #expect(try db.strings("SELECT code FROM diagnostic") == ["unparsable-item"])
        #expect(try db.strings("SELECT status FROM run WHERE pipeline = 'pollen-daily'") == ["succeeded"])
        #expect(try db.strings("SELECT status FROM check_result ORDER BY ordinal") == ["passed", "passed"])
        // The check refuses what the declaration's CHECK would: a negative count never loads.
        #expect(try db.strings("SELECT count(*) FROM pollen_count WHERE grains < 0") == ["0"])

        // A second run of the same fixture changes nothing.
        let again = await Console(environment: environment).run(names: ["pollen-daily"], source: .fixtures, paths: paths)
        #expect(again == .success)
        #expect(try db.value("SELECT sum(revision) FROM pollen_count") == "0")

        // describe and the Datasette metadata read the declaration's meanings and units.
        env.out.clear()
        #expect(Console(environment: environment).describe(DescribeRequest(name: "pollen_count", output: .text(width: 120)), paths: paths) == .success)
        let described = env.out.text
        #expect(described.contains("One station's pollen count on one day") && described.contains("Pollen grains counted"), "\(described)")
        #expect(described.contains("grains/m³"))
        env.out.clear()
        #expect(Console(environment: environment).describe(DescribeRequest(output: .datasette), paths: paths) == .success)
        let metadata = env.out
        let json = try #require(try JSONSerialization.jsonObject(with: Data(metadata.text.utf8)) as? [String: Any])
        let databases = try #require(json["databases"] as? [String: Any])
        // Datasette keys a database by its file's stem; a PostgreSQL store by its database's name.
        let expectedName = db.postgresURL.map { String($0.split(separator: "/").last!.split(separator: "?")[0]) } ?? env.database.deletingPathExtension().lastPathComponent
        #expect(Array(databases.keys) == [expectedName])
        let tables = try #require(databases.values.first.flatMap { ($0 as? [String: Any])?["tables"] as? [String: Any] })
        let pollen = try #require(tables["pollen_count"] as? [String: Any])
        #expect(pollen["description"] as? String == "One station's pollen count on one day")
        #expect((pollen["units"] as? [String: String])?["grains"] == "1/m**3")
        #expect(tables["pollen_station_total"] != nil)
    }

    @Test func aRecordWithoutARegisteredWriterFailsTheLoadAndKeepsNothing() throws {
        let dir = try TemporaryDirectory("unregistered")
        defer { dir.remove() }
        let store = try SQLiteStore(path: dir.path("f.sqlite").path, schema: .feedline)
        let run = try store.beginRun(pipeline: "pollen-daily", mode: .fixtures, startedAt: Date(timeIntervalSince1970: 0))
        let error = #expect(throws: UnregisteredRecordError.self) {
            _ = try store.load(run: run, finishedAt: { Date(timeIntervalSince1970: 0) }) { session in
                var counts = LoadCounts()
                let slot = HourSlot(date: LocalDate(year: 2024, month: 3, day: 6)!, hour: 14)!
                counts.count(try session.write(FeedRecord(HourlyMeasurement(stationName: "종로구", slot: slot, dataTime: "2024-03-06 15:00")),
                                               payload: nil))
                counts.count(try session.write(FeedRecord(PollenCount(station: "종로구", date: LocalDate(year: 2024, month: 3, day: 6)!, grains: 1)),
                                               payload: nil))
                return counts
            }
        }
        #expect(error?.description.contains("PollenCount") == true)
        // The measurement written before it was rolled back with the load.
        #expect(try store.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement") } == 0)
    }
}
