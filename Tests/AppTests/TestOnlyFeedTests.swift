import App
import Domain
import FeedCore
import Foundation
import GRDB
import Pipeline
import Storage
import Testing
import TestSupport

/// A feed defined only here — its record type, table, migration, writer and recognition — runs
/// end to end through the real composition root, runner and SQLite store: fixture → table → SQL.
/// Nothing in Pipeline, Storage, TestSupport or App knows it; registering it is one line (the
/// `feeds:` list of the environment).
@Suite struct TestOnlyFeedTests {
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

        var schema: FeedSchema {
            FeedSchema(
                migrations: [SchemaMigration("test-pollen-v1-counts", sqlite: """
                    CREATE TABLE pollen_count (
                        station TEXT NOT NULL, date TEXT NOT NULL, grains INTEGER NOT NULL CHECK (grains >= 0),
                        payload_sha256 TEXT, revision INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (station, date))
                    """)],
                writers: [RecordWriter(PollenCount.self) { count, payload, tables in
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

    @Test func aFeedDefinedOnlyInATestLoadsItsFixturesIntoItsOwnTable() async throws {
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
            """)
        var environment = env.environment
        environment.feeds.append(PollenFeed())  // the one line that registers a feed
        let paths = Paths(environment: environment, database: env.database.path, pipelines: pipelines.path,
                          fixtures: fixtures.path, archive: env.dir.path("archive").path)

        let status = await Console(environment: environment).run(names: ["pollen-daily"], source: .fixtures, paths: paths)
        #expect(status == .success, "\(env.err.text)")

        let queue = try DatabaseQueue(path: env.database.path)
        defer { try? queue.close() }
        try await queue.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT station, date, grains FROM pollen_count ORDER BY date")
            #expect(rows.map { "\($0[0] as String) \($0[1] as String) \($0[2] as Int)" } == ["종로구 2024-03-05 12", "종로구 2024-03-06 40"])
            #expect(try String.fetchAll(db, sql: "SELECT code FROM diagnostic") == ["unparsable-item"])
            #expect(try String.fetchOne(db, sql: "SELECT status FROM run WHERE pipeline = 'pollen-daily'") == "succeeded")
            #expect(try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM grdb_migrations WHERE identifier = 'test-pollen-v1-counts')") == true)
        }

        // A second run of the same fixture changes nothing.
        let again = await Console(environment: environment).run(names: ["pollen-daily"], source: .fixtures, paths: paths)
        #expect(again == .success)
        #expect(try await queue.read { db in try Int.fetchOne(db, sql: "SELECT sum(revision) FROM pollen_count") } == 0)
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
