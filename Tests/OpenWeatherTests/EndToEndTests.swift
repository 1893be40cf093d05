import App
import FeedCore
import Foundation
import GRDB
import Logging
import OpenWeather
import Pipeline
import Testing
import TestSupport

/// The OpenWeather pipelines through the real composition root, runner and SQLite store:
/// fixtures → tables → SQL; the published samples replayed; a live run against a loopback
/// server that must receive the key and must never see it come back.
@Suite(.serialized) struct EndToEndTests {
    /// The standard environment for end-to-end tests, with OpenWeather pointed at `base`.
    typealias Environment = FeedTestEnvironment

    // MARK: - Fixtures

    @Test(arguments: TestStore.all) func bothPipelinesLoadTheirFixturesAndASecondRunChangesNothing(store: TestStore) async throws {
        let env = try Environment(store: store)
        defer { env.dir.remove() }
        let names = ["openweather-air-pollution", "openweather-weather"]
        let status = await env.feedline.run(names: names, source: .fixtures, paths: env.paths())
        #expect(status == .success, "\(env.out.text)\n\(env.err.text)")
        #expect(try env.value("SELECT count(*) FROM run WHERE status = 'succeeded'") == "2")

        // Air pollution: every kind under its own key, components as delivered, missing ones NULL.
        #expect(try env.rows("SELECT kind, count(*) FROM openweather_air_pollution GROUP BY kind ORDER BY kind")
                == [["current", "1"], ["forecast", "10"], ["history", "5"]])
        #expect(try env.rows("""
            SELECT kind, aqi, co, no, no2, o3, so2, pm2_5, pm10, nh3 FROM openweather_air_pollution
            WHERE latitude = 37.5665 AND longitude = 126.978 AND observed_at = '2024-03-06T05:00:00Z' ORDER BY kind
            """) == [
                ["current", "3", "347.14", "0.54", "27.42", "66.52", "5.13", "31.2", "43.87", "3.8"],
                ["forecast", "3", "350.48", "0.5", "28.11", "65.8", "5.25", "32.96", "45.1", "3.93"],
                ["history", "3", "353.81", "0.72", "28.79", "64.37", "5.36", "31.2", "43.87", "3.8"],
            ])
        #expect(try env.rows("SELECT observed_at, pm10, nh3 FROM openweather_air_pollution WHERE kind = 'history' AND (pm10 IS NULL OR nh3 IS NULL) ORDER BY observed_at")
                == [["2024-03-06T03:00:00Z", "46.8", "NULL"], ["2024-03-06T04:00:00Z", "NULL", "4.12"]])
        // The hourly view keeps one row per place and hour, history first.
        #expect(try env.rows("SELECT kind, count(*) FROM openweather_air_pollution_hourly GROUP BY kind ORDER BY kind")
                == [["forecast", "9"], ["history", "5"]])
        // The quirks answer (Gangnam, coord as [lon, lat]): 4 of its 7 entries, bad values NULL.
        #expect(try env.rows("SELECT observed_at, aqi, co, no, pm10 FROM openweather_air_pollution WHERE latitude = 37.4979 ORDER BY observed_at") == [
            ["2024-03-06T08:00:00Z", "2", "201.94053649902344", "0.0", "0.540438711643219"],
            ["2024-03-06T09:00:00Z", "NULL", "301.75", "0.02", "29.3"],
            ["2024-03-06T10:00:00Z", "2", "295.41", "NULL", "NULL"],
            ["2024-03-06T11:00:00Z", "2", "290.37", "0.0", "25.06"],
        ])
        #expect(try env.rows("SELECT code, count(*) FROM diagnostic GROUP BY code ORDER BY code") == [
            ["duplicate-time", "1"], ["missing-value", "3"], ["out-of-range", "2"], ["type-mismatch", "1"], ["unparsable-number", "1"],
        ])
        // The newest measured hour (history 05:00 UTC) is the bookmark; forecasts never move it.
        #expect(try env.value("SELECT value FROM bookmark WHERE pipeline = 'openweather-air-pollution' AND name = 'newest_observed_at'")
                == "2024-03-06T06:00:00Z")

        // Weather: °C and m/s, rain only where the answer had it, every condition in order.
        #expect(try env.rows("""
            SELECT observed_at, city_id, city_name, country, units, temperature_c, feels_like_c, humidity_pct, wind_speed_ms, wind_gust_ms,
                   rain_1h_mm, condition_id, sunrise_at FROM openweather_weather ORDER BY observed_at
            """) == [
                ["2024-03-06T05:20:00Z", "1835848", "Seoul", "KR", "metric", "8.43", "5.92", "45.0", "4.12", "7.2", "NULL", "801", "2024-03-05T21:56:00Z"],
                ["2024-03-06T06:20:00Z", "1835848", "Seoul", "KR", "metric", "6.1", "3.87", "93.0", "3.09", "NULL", "0.87", "500", "2024-03-05T21:56:00Z"],
            ])
        #expect(try env.rows("SELECT observed_at, ordinal, condition_id, main FROM openweather_weather_condition ORDER BY observed_at, ordinal") == [
            ["2024-03-06T05:20:00Z", "1", "801", "Clouds"], ["2024-03-06T06:20:00Z", "1", "500", "Rain"], ["2024-03-06T06:20:00Z", "2", "701", "Mist"],
        ])

        // Again: nothing changes.
        let again = await env.feedline.run(names: names, source: .fixtures, paths: env.paths())
        #expect(again == .success)
        #expect(try env.value("SELECT sum(rows_inserted + rows_updated) FROM run WHERE id > 2") == "0")
        #expect(try env.value("SELECT sum(revision) FROM openweather_air_pollution") == "0")
        #expect(try env.value("SELECT count(*) FROM openweather_air_pollution") == "16")
    }

    @Test func theCatalogAcceptsThePipelinesAndEveryOtherFeedLeavesOpenWeatherAnswersAlone() throws {
        let env = try Environment()
        defer { env.dir.remove() }
        let catalog = PipelineCatalog(directory: FixturePaths.repositoryRoot.appendingPathComponent("Pipelines"), feeds: env.environment.feeds)
        let (pipelines, problems) = catalog.loadAll()
        #expect(problems.filter { $0.file.contains("openweather") }.isEmpty, "\(problems)")
        let ours = pipelines.filter { $0.source == "openweather" }
        #expect(ours.map(\.name).sorted() == ["openweather-air-pollution", "openweather-places", "openweather-stations", "openweather-weather"])
        // openweather-stations asks at "{stations}", which only a run with a station list expands.
        for pipeline in ours where pipeline.name != "openweather-stations" {
            let feed = try #require(env.environment.feeds.first { $0.source == "openweather" })
            #expect(try feed.requests(for: pipeline.spec).count == (pipeline.name == "openweather-weather" ? 1 : 2))  // places: two names
        }
        for file in OpenWeatherFixtures.files {
            let head = try Data(contentsOf: OpenWeatherFixtures.url(file)).prefix(4096)
            for feed in env.environment.feeds where feed.source != "openweather" {
                #expect(feed.recognise(head: head, format: .json) == nil, "\(feed.source) claims \(file)")
            }
        }
    }

    // MARK: - Published samples

    static let samples = ["openweather-air-pollution-current.json", "openweather-air-pollution-multi-hour.json", "openweather-error-401.json"]
        .map { FixturePaths.sharedFeeds.appendingPathComponent($0) }
    static var samplesPresent: Bool { samples.allSatisfy { FileManager.default.fileExists(atPath: $0.path) } }

    @Test("replaying the published samples loads their values as delivered and names the 401", .enabled(if: samplesPresent), arguments: TestStore.all)
    func replayPublishedSamples(store: TestStore) async throws {
        let env = try Environment(store: store)
        defer { env.dir.remove() }
        let status = await env.feedline.replay(inputs: Self.samples.map(\.path), sourceHint: nil, parameters: [:], paths: env.paths(), force: false)
        #expect(status == .partial, "\(env.out.text)\n\(env.err.text)")
        #expect(env.err.text.contains("openweather-error-401.json"))
        #expect(env.err.text.contains("OpenWeather answered with error 401"))
        #expect(try env.rows("SELECT latitude, longitude, observed_at, kind, aqi, co, no, no2, o3, so2, pm2_5, pm10, nh3 FROM openweather_air_pollution ORDER BY observed_at") == [
            ["51.5074", "-0.1278", "2021-01-25T18:00:00Z", "current", "1", "250.34", "0.19", "35.99", "30.76", "8.11", "3.15", "3.81", "0.74"],
            ["50.0", "50.0", "2021-02-18T00:00:00Z", "history", "1", "240.33", "0.0", "1.07", "79.39", "0.97", "1.84", "1.9", "1.25"],
            ["50.0", "50.0", "2021-02-18T01:00:00Z", "history", "1", "240.33", "0.0", "0.98", "79.39", "0.69", "1.92", "1.97", "1.36"],
        ])
        #expect(try env.value("SELECT count(*) FROM diagnostic WHERE code <> 'unreadable-payload'") == "0")
    }

    // MARK: - Live

    static let key = "OWSENTINEL-0123456789abcdef"

    /// Answers every air pollution call with a one-hour answer at the coordinates asked for.
    static func server(status: Int = 200, body: (@Sendable (LoopbackServer.Request) -> String)? = nil) throws -> LoopbackServer {
        try LoopbackServer { request in
            let lat = request.query["lat"] ?? "0", lon = request.query["lon"] ?? "0"
            let text = body?(request) ?? #"{"coord":{"lon":\#(lon),"lat":\#(lat)},"list":[{"main":{"aqi":2},"components":{"co":300.41,"no":0,"no2":18.85,"o3":78.68,"so2":4.23,"pm2_5":22.09,"pm10":30.16,"nh3":2.69},"dt":1709701200}]}"#
            return .respond(status: status, contentType: "application/json; charset=utf-8", body: Data(text.utf8))
        }
    }

    static let livePipeline = """
        source: openweather
        operation: air-pollution
        parameters:
          coordinates: ["37.5665,126.9780", "37.4979,127.0276"]
        format: json
        """

    /// Everything a run left behind: output, logs, archive, database.
    func leftBehind(_ env: Environment) throws -> Data { try env.leftBehind() }

    /// Runs the `ow-live` pipeline live against `base` in a new environment (with the test key
    /// unless `key` is false); the caller removes the environment's directory.
    static func runLive(against base: URL, key: Bool = true, variables: [String: String] = [:], store: TestStore = .sqlite) async throws -> (Environment, App.ExitStatus) {
        var env = try Environment(store: store)
        if key { env.variables["OPENWEATHER_API_KEY"] = Self.key }
        env.variables.merge(variables) { _, new in new }
        env.base = base
        let pipelines = try env.writePipeline("ow-live", Self.livePipeline)
        return (env, await env.feedline.run(names: ["ow-live"], source: .live, paths: env.paths(pipelines: pipelines)))
    }

    @Test(arguments: TestStore.all) func aLiveRunSendsTheKeyAsAppidAndKeepsItOutOfEverythingItWrites(store: TestStore) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let (env, status) = try await Self.runLive(against: server.baseURL, store: store)
        defer { env.dir.remove() }
        #expect(status == .success, "\(env.err.text)")
        #expect(server.requests.map(\.path) == ["/data/2.5/air_pollution", "/data/2.5/air_pollution"])
        #expect(server.requests.map { $0.query["appid"] } == [Self.key, Self.key])
        #expect(server.requests.map { "\($0.query["lat"]!),\($0.query["lon"]!)" } == ["37.5665,126.9780", "37.4979,127.0276"])
        #expect(try env.rows("SELECT latitude, longitude, kind FROM openweather_air_pollution ORDER BY latitude")
                == [["37.4979", "127.0276", "current"], ["37.5665", "126.978", "current"]])
        // The archive keeps the request, with the key redacted.
        let metas = FileManager.default.enumerator(at: env.dir.path("archive"), includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.lastPathComponent.hasSuffix(".meta.json") } ?? []
        #expect(metas.count == 2)
        for meta in metas {
            #expect(try String(contentsOf: meta, encoding: .utf8).contains("appid=REDACTED"))
        }
        #expect(try leftBehind(env).range(of: Data("OWSENTINEL".utf8)) == nil, "the key was written somewhere")
    }

    @Test(arguments: TestStore.all) func aRejectedKeyFailsTheRunLoadsNothingAndIsNotRetried(store: TestStore) async throws {
        let server = try Self.server(status: 401) { _ in #"{"cod":401, "message": "Invalid API key. Please see https://openweathermap.org/faq#error401 for more info."}"# }
        defer { server.stop() }
        let (env, status) = try await Self.runLive(against: server.baseURL, store: store)
        defer { env.dir.remove() }
        #expect(status == .failure)
        #expect(server.requests.count == 1, "a terminal error is not retried, and the second location is not fetched")
        #expect(try env.value("SELECT count(*) FROM openweather_air_pollution") == "0")
        #expect(try env.value("SELECT status FROM run") == "failed")
        // The HTTP 401's body is read as OpenWeather words it.
        let error = try #require(try env.value("SELECT error FROM run"))
        #expect(error.contains("OpenWeather answered with error 401") && error.contains("Invalid API key"), "\(error)")
        #expect(try leftBehind(env).range(of: Data("OWSENTINEL".utf8)) == nil)
    }

    @Test(arguments: TestStore.all) func aRateLimitAnswerIsTransientAndLoadsNothing(store: TestStore) async throws {
        // An error body behind HTTP 200 reaches the decoder: its typed error decides.
        let server = try Self.server { _ in #"{"cod":429, "message": "Your account is temporary blocked due to exceeding of requests limitation of your subscription type."}"# }
        defer { server.stop() }
        let (env, status) = try await Self.runLive(against: server.baseURL, variables: ["FEEDLINE_RETRY_ATTEMPTS": "2"], store: store)
        defer { env.dir.remove() }
        #expect(status == .temporaryFailure)
        #expect(server.requests.count == 2, "retried once, then stopped")
        #expect(try env.value("SELECT count(*) FROM openweather_air_pollution") == "0")
        let error = try #require(try env.value("SELECT error FROM run"))
        #expect(error.contains("OpenWeather answered with error 429") && error.contains("Gave up after 2 attempts"), "\(error)")
        #expect(error.contains("appid=REDACTED"))
    }

    @Test func aLiveRunWithoutTheKeyIsAConfigurationError() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let (env, status) = try await Self.runLive(against: server.baseURL, key: false)
        defer { env.dir.remove() }
        #expect(status == .configuration)
        #expect(server.requests.isEmpty)
        #expect((env.out.text + env.err.text).contains("OPENWEATHER_API_KEY"))
    }
}

extension FeedTestEnvironment {
    /// A fresh environment for OpenWeather's end-to-end tests, at the fixtures' clock.
    init(store: TestStore = .sqlite) throws {
        try self.init("openweather-e2e", baseURLVariable: "FEEDLINE_OPENWEATHER_BASE_URL", now: OpenWeatherFixtures.fetchedAt, store: store)
    }
}
