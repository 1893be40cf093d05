@testable import App
import Domain
import Foundation
import Pipeline
import Testing
import TestSupport

/// A day under the schedules against each daily quota: the bundled pipelines fit a development
/// key with room to spare, and `feedline pipelines` and the live dry run say when schedules do not.
@Suite struct ScheduledQuotaTests {
    @Test func theBundledPipelinesFitTheirDailyQuotasWithRoomToSpare() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let catalog = PipelineCatalog(directory: FixturePaths.repositoryRoot.appendingPathComponent("Pipelines"), feeds: env.environment.feeds)
        let (pipelines, problems) = catalog.loadAll()
        #expect(problems.isEmpty && pipelines.count > 10)
        let quota = env.feedline.scheduledQuota(of: pipelines, paths: env.paths())
        let limited = quota.uses.filter { $0.limit != nil }
        #expect(limited.contains { $0.scope.api == "ArpltnInforInqireSvc" })
        for use in limited {
            #expect(use.standing == .fits, "\(use.scope): \(use.callsPerDay) of \(use.limit!) calls on \(use.day): \(use.pipelines)")
        }
        // The measurement service, which most AirKorea pipelines share, keeps most of its 500 calls free.
        let measurements = try #require(quota.uses.first { $0.scope.api == "ArpltnInforInqireSvc" })
        #expect(measurements.callsPerDay <= 100, "\(measurements.pipelines)")
        #expect(quota.warnings.isEmpty)
        // {stations} has no database to read here: one location stands in, and it says so. Even at
        // 1,000 stations an hour, OpenWeather's air-pollution calls stay within 80% of its daily quota.
        #expect(quota.notes.contains { $0.hasPrefix("openweather-stations: {stations}") })
        let airPollution = try #require(quota.uses.first { $0.scope.api == "air-pollution" })
        let perStation = try #require(airPollution.pipelines.first { $0.pipeline == "openweather-stations" })
        #expect(Double(airPollution.callsPerDay + 999 * perStation.runsPerDay) <= QuotaPlanner.nearLimitShare * Double(airPollution.limit!))
    }

    /// Two pipelines over their quotas: every province each half hour (18 × 48 = 864 of 500 calls),
    /// and the station list every 3 minutes (480 of 500: 96%).
    func writeGreedyPipelines(_ env: TestEnvironment) throws -> URL {
        _ = try env.writePipeline("every-province", """
            source: airkorea
            operation: realtime-by-province
            parameters:
              sidoName: [서울, 부산, 대구, 인천, 광주, 대전, 울산, 경기, 강원, 충북, 충남, 전북, 전남, 경북, 경남, 제주, 세종, 전국]
              ver: "1.3"
            schedule: "*/30 * * * *"
            timezone: Asia/Seoul
            """)
        return try env.writePipeline("station-list", """
            source: airkorea
            operation: stations
            schedule: "*/3 * * * *"
            timezone: Asia/Seoul
            """)
    }

    @Test func pipelinesPrintsEachScopesCallsADayAndWarnsWhenTheSchedulesExceedIt() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try writeGreedyPipelines(env)
        #expect(env.feedline.listPipelines(paths: env.paths(pipelines: pipelines)) == .success, "warnings do not fail the listing: \(env.err.text)")
        let lines = env.out.text.split(separator: "\n").map(String.init)
        let header = try #require(lines.firstIndex { $0.hasPrefix("QUOTA (KEY ON API)") })
        let rows = lines[(header + 1)...].prefix(2).map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        // The test clock is 2024-03-06 (KST); every day of these schedules is alike, so the first is the busiest.
        #expect(rows[0].prefix(8) == ["AIRKOREA_SERVICE_KEY", "on", "ArpltnInforInqireSvc", "2024-03-06", "864", "500", "173%", "every-province"])
        #expect(rows[0].last == "18×48")
        #expect(rows[1].prefix(9) == ["AIRKOREA_SERVICE_KEY", "on", "MsrstnInfoInqireSvc", "2024-03-06", "480", "500", "96%", "station-list", "1×480"])
        let warnings = env.err.text.split(separator: "\n").filter { $0.hasPrefix("warning: the schedules") }
        #expect(warnings.count == 2, "\(env.err.text)")
        #expect(warnings[0].contains("at least 864 calls on 2024-03-06 (KST) with AIRKOREA_SERVICE_KEY on ArpltnInforInqireSvc, more than its daily quota of 500"))
        #expect(warnings[0].contains("FEEDLINE_QUOTA_AIRKOREA"))
        #expect(warnings[1].contains("480 calls") && warnings[1].contains("96% of its daily quota of 500 (more than 80%)"))

        // --json: the same figures, one object per scope.
        env.out.clear()
        #expect(env.feedline.listPipelines(paths: env.paths(pipelines: pipelines), json: true) == .success)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(env.out.text.utf8)) as? [String: Any])
        let uses = try #require(object["quota_per_day"] as? [[String: Any]])
        #expect(uses.map { $0["standing"] as? String } == ["exceeds", "nearLimit"])
        #expect(uses.map { $0["calls_per_day"] as? Int } == [864, 480] && uses.map { $0["limit"] as? Int } == [500, 500])
        let shares = try #require(uses[0]["pipelines"] as? [[String: Any]])
        #expect(shares.first?["calls_per_run"] as? Int == 18 && shares.first?["runs_per_day"] as? Int == 48)

        // An operating key's limit, from the environment, makes the same schedules fit.
        var roomy = env
        roomy.variables["FEEDLINE_QUOTA_AIRKOREA"] = "10000"
        roomy.err.clear()
        #expect(roomy.feedline.listPipelines(paths: roomy.paths(pipelines: pipelines)) == .success)
        #expect(!roomy.err.text.contains("warning: the schedules"), "\(roomy.err.text)")
    }

    @Test func theLiveDryRunShowsADayOfTheSchedulesAgainstEachQuota() async throws {
        var env = try TestEnvironment()
        defer { env.dir.remove() }
        env.variables["AIRKOREA_SERVICE_KEY"] = "dry-run-placeholder-key"
        let pipelines = try writeGreedyPipelines(env)
        let status = await env.feedline.run(names: ["every-province"], source: .live, paths: env.paths(pipelines: pipelines), dryRun: true)
        #expect(status == .success, "one run fits today's quota: \(env.err.text)")
        #expect(env.out.text.contains("quota a day AIRKOREA_SERVICE_KEY on ArpltnInforInqireSvc: these schedules make at least 864 calls on the busiest day (2024-03-06 KST), 173% of 500 — WOULD EXCEED"), "\(env.out.text)")
        #expect(env.err.text.contains("warning: the schedules make at least 864 calls"))
        #expect(!env.out.text.contains("MsrstnInfoInqireSvc"), "only the pipelines asked for")
    }
}
