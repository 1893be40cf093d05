import App
import Foundation
import Pipeline
import Testing
import TestSupport

/// `feedline run` on the bundled fixtures and `feedline replay`, into temporary databases,
/// asserted with SQL.
@Suite struct FixtureRunTests {
    /// One integer from `sql`, on either store.
    func query(_ db: TestDatabase, _ sql: String) throws -> Int? { try db.value(sql).flatMap { Int($0) } }

    @Test(arguments: TestStore.all) func everyPipelineRunsFromFixturesAndASecondRunChangesNothing(store: TestStore) async throws {
        let env = try TestEnvironment(store: store)
        defer { env.dir.remove() }
        let first = await env.feedline.run(names: [], source: .fixtures, paths: env.paths())
        #expect(first == .success, "\(env.out.text)\n\(env.err.text)")
        #expect(try query(env.db, "SELECT count(*) FROM run WHERE status <> 'succeeded'") == 0)
        #expect(try query(env.db, "SELECT count(*) FROM measurement")! > 0)
        #expect(try query(env.db, "SELECT count(*) FROM forecast")! > 0)
        #expect(try query(env.db, "SELECT count(*) FROM station")! > 0)
        let firstRuns = try query(env.db, "SELECT count(*) FROM run")!

        // Missing values are NULL, never 0.
        #expect(try query(env.db, "SELECT count(*) FROM measurement WHERE pm10 = 0 AND pm10_flag IS NOT NULL") == 0)

        let second = await env.feedline.run(names: [], source: .fixtures, paths: env.paths())
        #expect(second == .success)
        #expect(try query(env.db, "SELECT sum(rows_inserted + rows_updated) FROM run WHERE id > \(firstRuns)") == 0)
        #expect(try query(env.db, "SELECT count(*) FROM run WHERE id > \(firstRuns) AND status = 'succeeded'") == firstRuns)
    }

    @Test(arguments: TestStore.all) func replayingTheFixtureDirectoryLoadsTheGoodFilesAndNamesTheBadOnes(store: TestStore) async throws {
        let env = try TestEnvironment(store: store)
        defer { env.dir.remove() }
        let dir = env.dir.path("saved")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: FixturePaths.fixtures.appendingPathComponent("airkorea").path)
        where name.hasSuffix(".xml") || name.hasSuffix(".json") {
            try FileManager.default.copyItem(at: FixturePaths.fixtures.appendingPathComponent("airkorea/\(name)"), to: dir.appendingPathComponent(name))
        }
        try Data("<html><body>Service unavailable</body></html>".utf8).write(to: dir.appendingPathComponent("zz-garbage.xml"))
        try Data().write(to: dir.appendingPathComponent("zz-empty.json"))

        let status = await env.feedline.replay(inputs: ["saved"], sourceHint: nil, parameters: ["stationName": "종로구"],
                                         paths: env.paths(), force: false)
        #expect(status == .partial)
        let errors = env.err.text.split(separator: "\n")
        #expect(errors.contains { $0.contains("zz-garbage.xml") })
        #expect(errors.contains { $0.contains("zz-empty.json") })
        #expect(errors.allSatisfy { $0.hasPrefix("error: ") })
        #expect(try query(env.db, "SELECT count(*) FROM measurement")! > 0)
        #expect(try query(env.db, "SELECT count(*) FROM run WHERE mode = 'replay' AND status = 'succeeded'") == 1)
        let unreadable = try query(env.db, "SELECT count(*) FROM diagnostic WHERE code = 'unreadable-payload'")!
        #expect(unreadable >= 1)

        // Replaying again skips every payload already loaded; --force re-reads them and changes nothing.
        let again = await env.feedline.replay(inputs: ["saved"], sourceHint: nil, parameters: ["stationName": "종로구"],
                                        paths: env.paths(), force: false)
        #expect(again == .partial)
        #expect(try query(env.db, "SELECT payloads FROM run ORDER BY id DESC LIMIT 1") == 0)
        _ = await env.feedline.replay(inputs: ["saved"], sourceHint: nil, parameters: ["stationName": "종로구"], paths: env.paths(), force: true)
        #expect(try query(env.db, "SELECT rows_inserted + rows_updated FROM run ORDER BY id DESC LIMIT 1") == 0)
        #expect(try query(env.db, "SELECT rows_unchanged FROM run ORDER BY id DESC LIMIT 1")! > 0)
    }

    /// Replay parses ahead of the writer on another thread; what lands must be what loading the
    /// files one by one, in name order, gives: the truncated file named and nothing of it kept,
    /// the second copy of the same bytes counted as already loaded, the rest in file order.
    @Test(arguments: TestStore.all) func replayLoadsInFileOrderSkipsRepeatedBytesAndDropsTruncatedFiles(store: TestStore) async throws {
        let env = try TestEnvironment(store: store)
        defer { env.dir.remove() }
        let dir = env.dir.path("pages")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        // The same station-hours in page 1 and page 3 with different values: the later file wins.
        let page1 = AirKoreaPages.xml(AirKoreaPages.items(first: 0, count: 40), pageNo: 1, numOfRows: 40, totalCount: 80)
        var changed = AirKoreaPages.items(first: 0, count: 40)
        for i in changed.indices { changed[i].pm10 = "\(100 + i)" }
        let page3 = AirKoreaPages.xml(changed, pageNo: 1, numOfRows: 40, totalCount: 40)
        let page2 = AirKoreaPages.xml(AirKoreaPages.items(first: 40, count: 40), pageNo: 2, numOfRows: 40, totalCount: 80)
        try page1.write(to: dir.appendingPathComponent("p1.xml"))
        try page1.write(to: dir.appendingPathComponent("p1-copy.xml"))
        try page2.prefix(page2.count * 2 / 3).write(to: dir.appendingPathComponent("p2-cut.xml"))
        try page2.write(to: dir.appendingPathComponent("p2.xml"))
        try page3.write(to: dir.appendingPathComponent("p3.xml"))

        let status = await env.feedline.replay(inputs: ["pages"], sourceHint: nil, parameters: [:], paths: env.paths(), force: false)
        #expect(status == .partial, "\(env.err.text)")
        #expect(env.err.text.contains("p2-cut.xml"))
        #expect(try query(env.db, "SELECT payloads FROM run") == 3)
        #expect(try query(env.db, "SELECT payloads_skipped FROM run") == 1)
        #expect(try query(env.db, "SELECT count(*) FROM payload WHERE archive_path LIKE '%p2-cut.xml'") == 0)
        #expect(try query(env.db, "SELECT count(*) FROM diagnostic WHERE code = 'unreadable-payload' AND location = 'p2-cut.xml'") == 1)
        #expect(try query(env.db, "SELECT count(*) FROM measurement") == 80)
        #expect(try query(env.db, "SELECT rows_inserted FROM run") == 80)
        #expect(try query(env.db, "SELECT rows_updated FROM run") == 40)
        #expect(try query(env.db, "SELECT count(*) FROM measurement WHERE station_name LIKE 'S%' AND pm10 >= 100 AND revision = 1") == 40)
    }

    @Test func invalidPipelineFilesAreNamedWithTheirField() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        _ = try env.writePipeline("bad-format", "source: airkorea\noperation: forecast\nparameters:\n  searchDate: '2024-03-06'\nformat: csv\n")
        _ = try env.writePipeline("bad-source", "source: nowhere\noperation: x\n")
        _ = try env.writePipeline("typo", "source: airkorea\noperation: realtime-by-province\nparamters:\n  sidoName: 서울\n")
        let pipelines = try env.writePipeline("good", "source: airkorea\noperation: realtime-by-province\nparameters:\n  sidoName: 서울\n")
        let status = env.feedline.listPipelines(paths: env.paths(pipelines: pipelines))
        #expect(status == .configuration)
        // The problems table: file, field, message.
        let rows = env.out.text.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).prefix(2).joined(separator: " ") }
        #expect(rows.contains("Pipelines/bad-format.yaml format"))
        #expect(rows.contains("Pipelines/bad-source.yaml source"))
        #expect(rows.contains("Pipelines/typo.yaml paramters"))
        #expect(rows.contains("good airkorea/realtime-by-province"))
        #expect(env.err.text.contains("error: 3 pipeline files are invalid"))
    }

    @Test func unknownPipelineNameIsAConfigurationError() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let status = await env.feedline.run(names: ["no-such-pipeline"], source: .fixtures, paths: env.paths())
        #expect(status == .configuration)
        #expect(env.err.text.contains("no pipeline named 'no-such-pipeline'"))
    }
}
