import AirKorea
@testable import App
import FeedCore
import Foundation
import GRDB
import Logging
import Pipeline
import Testing
import TestSupport

/// The statistics and alert pipelines through the real composition root, runner and SQLite
/// store: fixtures → tables → SQL; an alert's clear updating the row its issue made; replays;
/// live runs against a loopback server.
@Suite(.serialized) struct StatisticsEndToEndTests {
    /// 2024-03-06 05:30 UTC (14:30 KST): after every fixture's times.
    static let now = Date(timeIntervalSince1970: 1_709_703_000)

    /// The standard environment for end-to-end tests, with AirKorea pointed at `base`.
    typealias Environment = FeedTestEnvironment

    static let pipelines = ["airkorea-stats-daily", "airkorea-stats-monthly", "airkorea-alerts"]

    // MARK: - Fixtures

    @Test(arguments: TestStore.all) func theThreePipelinesLoadTheirFixturesAndASecondRunChangesNothing(store: TestStore) async throws {
        let env = try Environment(store: store)
        defer { env.dir.remove() }
        let status = await env.feedline.run(names: Self.pipelines, source: .fixtures, paths: env.paths())
        #expect(status == .success, "\(env.out.text)\n\(env.err.text)")
        #expect(try env.value("SELECT count(*) FROM run WHERE status = 'succeeded'") == "3")

        // Daily: 6 + 3 rows (the quirks file's two unusable items skipped), missing values NULL, never 0.
        #expect(try env.value("SELECT count(*) FROM station_daily_stats") == "9")
        #expect(try env.rows("SELECT station_name, kst_date, pm10_avg, pm25_avg, o3_avg, no2_avg, co_avg, so2_avg FROM station_daily_stats WHERE station_name = '종로구' ORDER BY kst_date") == [
            ["종로구", "2024-03-01", "41.0", "27.0", "0.0318", "0.0215", "0.4", "0.0029"],
            ["종로구", "2024-03-02", "52.0", "33.0", "0.0276", "0.0262", "0.5", "0.0031"],
        ])
        #expect(try env.rows("SELECT station_name, kst_date, pm25_avg FROM station_daily_stats WHERE pm25_avg IS NULL ORDER BY station_name, kst_date") == [
            ["서초구", "2024-03-01", "NULL"], ["송파구", "2024-03-01", "NULL"], ["중구", "2024-03-02", "NULL"],
        ])
        #expect(try env.value("SELECT count(*) FROM station_daily_stats WHERE 0 IN (pm10_avg, pm25_avg, o3_avg, no2_avg, co_avg, so2_avg)") == "0")
        #expect(try env.rows("SELECT pm10_avg, pm25_avg, o3_avg, no2_avg, co_avg, so2_avg FROM station_daily_stats WHERE station_name = '송파구'")
                == [["NULL", "NULL", "NULL", "NULL", "NULL", "NULL"]])

        // Monthly: one month of four stations; the range answer adds nothing but its diagnostic.
        #expect(try env.rows("SELECT kst_month, count(*), count(pm25_avg) FROM station_monthly_stats GROUP BY kst_month") == [["2024-02", "4", "3"]])

        // Alerts: the later payload cleared the two Seoul alerts the first one left in force.
        #expect(try env.value("SELECT count(*) FROM pm_alert") == "11")
        #expect(try env.rows("""
            SELECT district, area, pollutant, level, issued_kst, issued_at, issue_value, cleared_kst, cleared_at, clear_value, revision
            FROM pm_alert WHERE district = '서울' ORDER BY issued_at
            """) == [
                ["서울", "도심권", "PM10", "advisory", "2024-03-05 14:00", "2024-03-05T05:00:00Z", "168.0", "2024-03-06 07:00", "2024-03-05T22:00:00Z", "79.0", "1"],
                ["서울", "동북권", "PM10", "advisory", "2024-03-05 15:00", "2024-03-05T06:00:00Z", "155.0", "2024-03-06 09:00", "2024-03-06T00:00:00Z", "85.0", "1"],
                ["서울", "서북권", "PM10", "advisory", "2024-03-06 01:00", "2024-03-05T16:00:00Z", "151.0", "2024-03-06 08:00", "2024-03-05T23:00:00Z", "92.0", "0"],
            ])
        // The quirks: 24:00 is the next day's 00:00 in UTC; no 권역 is ''; a clear before the issue is not stored.
        #expect(try env.rows("SELECT area, issued_kst, issued_at FROM pm_alert WHERE district = '강원'") == [["", "2024-01-10 24:00", "2024-01-10T15:00:00Z"]])
        #expect(try env.rows("SELECT area, level, issue_value, cleared_at FROM pm_alert WHERE district = '전남' ORDER BY area") == [
            ["동부권", "warning", "NULL", "NULL"], ["서부권", "advisory", "79.0", "NULL"],
        ])
        #expect(try env.rows("SELECT level, count(*) FROM pm_alert GROUP BY level ORDER BY level") == [["advisory", "9"], ["warning", "2"]])
        #expect(try env.rows("SELECT rows_inserted, rows_updated, rows_unchanged FROM run WHERE pipeline = 'airkorea-alerts'") == [["11", "2", "5"]])

        #expect(try env.rows("SELECT r.pipeline, d.code, count(*) FROM diagnostic d JOIN run r ON r.id = d.run_id GROUP BY 1, 2 ORDER BY 1, 2") == [
            ["airkorea-alerts", "bad-alert-level", "1"], ["airkorea-alerts", "bad-alert-pollutant", "1"], ["airkorea-alerts", "bad-alert-time", "1"],
            ["airkorea-alerts", "clear-before-issue", "1"], ["airkorea-alerts", "clear-without-time", "2"], ["airkorea-alerts", "missing-value", "2"],
            ["airkorea-stats-daily", "bad-stats-date", "1"], ["airkorea-stats-daily", "implausible-value", "2"],
            ["airkorea-stats-daily", "missing-station", "1"], ["airkorea-stats-daily", "missing-value", "8"],
            ["airkorea-stats-daily", "unparsable-number", "1"],
            ["airkorea-stats-monthly", "items-missing", "1"], ["airkorea-stats-monthly", "missing-value", "1"],
        ])

        // Again: nothing changes.
        let again = await env.feedline.run(names: Self.pipelines, source: .fixtures, paths: env.paths())
        #expect(again == .success)
        #expect(try env.value("SELECT sum(rows_inserted + rows_updated) FROM run WHERE id > 3") == "0")
        #expect(try env.value("SELECT count(*) FROM run WHERE id > 3 AND status = 'succeeded'") == "3")
        #expect(try env.value("SELECT count(*) FROM pm_alert") == "11")
    }

    @Test(arguments: TestStore.all) func clearingAnAlertUpdatesTheRowItsIssueMadeAndAnOlderPageNeverUnclearsIt(store: TestStore) async throws {
        let env = try Environment(store: store)
        defer { env.dir.remove() }
        let fixtures = FixturePaths.fixtures.appendingPathComponent("airkorea")
        func replay(_ file: String, force: Bool = false) async -> App.ExitStatus {
            await env.feedline.replay(inputs: [fixtures.appendingPathComponent(file).path], sourceHint: nil, parameters: [:],
                                      paths: env.paths(), force: force)
        }
        #expect(await replay("pm-alerts-issued.xml") == .success, "\(env.err.text)")
        #expect(try env.rows("SELECT area, cleared_at FROM pm_alert WHERE district = '서울' ORDER BY area") == [["도심권", "NULL"], ["동북권", "NULL"]])
        // A row's identity: SQLite's rowid; PostgreSQL has no stable one (an update writes a new
        // tuple), so there the key it was inserted with, beside the counts of inserted rows.
        let identity = store == .sqlite ? "rowid" : "issued_at"
        let rowids = try env.rows("SELECT \(identity), area FROM pm_alert WHERE district = '서울' ORDER BY area")

        #expect(await replay("pm-alerts-cleared.xml") == .success, "\(env.err.text)")
        #expect(try env.rows("SELECT rows_inserted, rows_updated, rows_unchanged FROM run ORDER BY id DESC LIMIT 1") == [["1", "2", "5"]])
        // The same rows (same rowid), now cleared, each changed once.
        #expect(try env.rows("SELECT \(identity), area FROM pm_alert WHERE district = '서울' AND area IN ('도심권', '동북권') ORDER BY area") == rowids)
        #expect(try env.rows("SELECT area, cleared_kst, clear_value, revision FROM pm_alert WHERE district = '서울' ORDER BY area") == [
            ["도심권", "2024-03-06 07:00", "79.0", "1"], ["동북권", "2024-03-06 09:00", "85.0", "1"], ["서북권", "2024-03-06 08:00", "92.0", "0"],
        ])

        // Re-reading the older page (forced past the already-loaded check) changes nothing: a
        // missing clear never erases a known one.
        #expect(await replay("pm-alerts-issued.xml", force: true) == .success)
        #expect(try env.rows("SELECT rows_inserted, rows_updated, rows_unchanged FROM run ORDER BY id DESC LIMIT 1") == [["0", "0", "7"]])
        #expect(try env.value("SELECT count(*) FROM pm_alert WHERE district = '서울' AND cleared_at IS NULL") == "0")
        #expect(await replay("pm-alerts-cleared.xml", force: true) == .success)
        #expect(try env.rows("SELECT rows_inserted, rows_updated, rows_unchanged FROM run ORDER BY id DESC LIMIT 1") == [["0", "0", "8"]])
    }

    @Test(arguments: TestStore.all) func replayingAnUnsupportedServiceNamesItAndLoadsNothing(store: TestStore) async throws {
        let env = try Environment(store: store)
        defer { env.dir.remove() }
        let fixtures = FixturePaths.fixtures.appendingPathComponent("airkorea")
        let files = ["unsupported-cai.json", "unsupported-sido-average.xml", "stats-monthly.xml"].map { fixtures.appendingPathComponent($0).path }
        let status = await env.feedline.replay(inputs: files, sourceHint: nil, parameters: [:], paths: env.paths(), force: false)
        #expect(status == .partial)
        #expect(env.err.text.contains("unsupported-cai.json: Unsupported AirKorea service RltmKhaiInfoSvc/getMsrstnKhaiRltmDnsty"), "\(env.err.text)")
        #expect(env.err.text.contains("unsupported-sido-average.xml: Unsupported AirKorea service ArpltnStatsSvc/getCtprvnMesureLIst"), "\(env.err.text)")
        #expect(try env.value("SELECT count(*) FROM measurement") == "0")
        #expect(try env.value("SELECT count(*) FROM station_monthly_stats") == "4")
    }

    @Test func theCatalogAcceptsThePipelinesWithinTheDailyQuota() throws {
        let env = try Environment()
        defer { env.dir.remove() }
        let catalog = PipelineCatalog(directory: FixturePaths.repositoryRoot.appendingPathComponent("Pipelines"), feeds: env.environment.feeds)
        let (pipelines, problems) = catalog.loadAll()
        #expect(problems.isEmpty, "\(problems)")
        let feed = try #require(env.environment.feeds.first { $0.source == "airkorea" })
        for name in Self.pipelines {
            let pipeline = try #require(pipelines.first { $0.name == name })
            #expect(!pipeline.fixtures.isEmpty)
            let expanded = Console.expandingPlaceholders(pipeline, now: Self.now)
            let requests = try feed.requests(for: expanded.spec)
            #expect(requests.count == 1, "\(name)")
            // One request per run and at most 24 runs a day (the alerts, hourly; two requests on 1
            // January): far below the 500 calls a day each service allows a development key.
            let schedule = try CronSchedule(try #require(pipeline.schedule), timeZone: pipeline.timeZone)
            let runsPerDay = schedule.fireTimes(after: Self.now, through: Self.now.addingTimeInterval(86_400), newest: 1000).times.count
            #expect(runsPerDay <= 24, "\(name)")
            #expect(2 * runsPerDay <= 500, "\(name)")
        }
        let daily = try feed.requests(for: Console.expandingPlaceholders(try #require(pipelines.first { $0.name == "airkorea-stats-daily" }), now: Self.now).spec)
        #expect(daily[0].parameter("inqBginDt") == "20240305" && daily[0].parameter("inqEndDt") == "20240305")
        let monthly = try feed.requests(for: Console.expandingPlaceholders(try #require(pipelines.first { $0.name == "airkorea-stats-monthly" }), now: Self.now).spec)
        #expect(monthly[0].parameter("inqBginMm") == "202403")
        // On the 1st the month that just ended is asked.
        let first = Date(timeIntervalSince1970: 1_709_249_400)  // 2024-03-01 08:30 KST
        let onFirst = try feed.requests(for: Console.expandingPlaceholders(try #require(pipelines.first { $0.name == "airkorea-stats-monthly" }), now: first).spec)
        #expect(onFirst[0].parameter("inqBginMm") == "202402")
        // On 1 January the alerts of both years are asked.
        let newYear = Date(timeIntervalSince1970: 1_704_037_200)  // 2024-01-01 00:40 KST
        let alerts = try feed.requests(for: Console.expandingPlaceholders(try #require(pipelines.first { $0.name == "airkorea-alerts" }), now: newYear).spec)
        #expect(alerts.map { $0.parameter("year") } == ["2023", "2024"])
    }

    @Test func aPipelineAskingForAnUnsupportedServiceOrABadRangeIsNamedWithItsField() throws {
        let env = try Environment()
        defer { env.dir.remove() }
        _ = try env.dir.writePipeline("cai", "source: airkorea\noperation: getMsrstnKhaiRltmDnsty\nparameters:\n  stationName: 종로구\n")
        let directory = try env.dir.writePipeline("backwards", "source: airkorea\noperation: station-monthly-stats\nparameters:\n  inqBginMm: \"202403\"\n  inqEndMm: \"202401\"\n")
        let (pipelines, problems) = PipelineCatalog(directory: directory, feeds: env.environment.feeds).loadAll()
        #expect(pipelines.isEmpty)
        let cai = try #require(problems.first { $0.pipelineName == "cai" })
        #expect(cai.field == "operation" && cai.message.hasPrefix("Unsupported AirKorea service RltmKhaiInfoSvc/getMsrstnKhaiRltmDnsty"), "\(cai)")
        let backwards = try #require(problems.first { $0.pipelineName == "backwards" })
        #expect(backwards.field == "parameters" && backwards.message.contains("inqBginMm must not be after inqEndMm"), "\(backwards)")
    }

    // MARK: - Live

    static let key = "AKSTATSSENTINEL-0123456789"

    @Test(arguments: TestStore.all) func aLiveMonthlyRangeAsksMonthByMonthAndLoadsEachAnswer(store: TestStore) async throws {
        let body = try Data(contentsOf: FixturePaths.fixtures.appendingPathComponent("airkorea/stats-monthly.xml"))
        let server = try LoopbackServer { request in
            // Answer each month with the fixture's stations, dated as asked.
            let month = request.query["inqBginMm"] ?? ""
            let dated = String(decoding: body, as: UTF8.self)
                .replacingOccurrences(of: "<msurMm>2024-02</msurMm>", with: "<msurMm>\(month.prefix(4))-\(month.suffix(2))</msurMm>")
            return .respond(status: 200, contentType: "text/xml;charset=UTF-8", body: Data(dated.utf8))
        }
        defer { server.stop() }
        var env = try Environment(store: store)
        defer { env.dir.remove() }
        env.base = server.baseURL
        env.variables["AIRKOREA_SERVICE_KEY"] = Self.key
        let pipelines = try env.dir.writePipeline("monthly-range", """
            source: airkorea
            operation: station-monthly-stats
            parameters:
              inqBginMm: "2023-12"
              inqEndMm: "202402"
            format: xml
            page_size: 1000
            """)
        let status = await env.feedline.run(names: ["monthly-range"], source: .live, paths: env.paths(pipelines: pipelines))
        #expect(status == .success, "\(env.err.text)")
        #expect(server.requests.map(\.path) == Array(repeating: "/ArpltnStatsSvc/getMsrstnAcctoRMmrg", count: 3))
        #expect(server.requests.map { "\($0.query["inqBginMm"]!)…\($0.query["inqEndMm"]!)" } == ["202312…202312", "202401…202401", "202402…202402"])
        #expect(server.requests.allSatisfy { $0.query["serviceKey"] == Self.key })
        #expect(try env.rows("SELECT kst_month, count(*) FROM station_monthly_stats GROUP BY kst_month ORDER BY kst_month")
                == [["2023-12", "4"], ["2024-01", "4"], ["2024-02", "4"]])
        // The quota is counted against the statistics service, apart from the realtime one.
        #expect(try env.rows("SELECT api, sum(calls) FROM api_call GROUP BY api") == [["ArpltnStatsSvc", "3"]])
        #expect(try env.leftBehind().range(of: Data("AKSTATSSENTINEL".utf8)) == nil, "the key was written somewhere")
    }

    @Test(arguments: TestStore.all) func aLiveAnswerFromAnUnsupportedServiceFailsTheRunAndLoadsNothing(store: TestStore) async throws {
        let body = try Data(contentsOf: FixturePaths.fixtures.appendingPathComponent("airkorea/unsupported-cai.json"))
        let server = try LoopbackServer { _ in .respond(status: 200, contentType: "application/json", body: body) }
        defer { server.stop() }
        var env = try Environment(store: store)
        defer { env.dir.remove() }
        env.base = server.baseURL
        env.variables["AIRKOREA_SERVICE_KEY"] = Self.key
        let pipelines = try env.dir.writePipeline("alerts-live", "source: airkorea\noperation: pm-alerts\nparameters:\n  year: \"2024\"\nformat: json\n")
        let status = await env.feedline.run(names: ["alerts-live"], source: .live, paths: env.paths(pipelines: pipelines))
        #expect(status == .failure)
        #expect(server.requests.count == 1, "a terminal refusal is not retried")
        #expect(try env.value("SELECT status FROM run") == "failed")
        let error = try #require(try env.value("SELECT error FROM run"))
        #expect(error.contains("Unsupported AirKorea service RltmKhaiInfoSvc/getMsrstnKhaiRltmDnsty"), "\(error)")
        #expect(try env.value("SELECT count(*) FROM pm_alert") == "0")
    }
}

extension FeedTestEnvironment {
    /// A fresh environment for AirKorea's end-to-end tests, at the fixtures' clock.
    init(store: TestStore = .sqlite) throws {
        try self.init("airkorea-stats-e2e", baseURLVariable: "FEEDLINE_AIRKOREA_BASE_URL", now: StatisticsEndToEndTests.now, store: store)
    }
}
