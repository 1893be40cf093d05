import App
import FeedCore
import Foundation
import GRDB
import Logging
import OpenAQ
import Pipeline
import Testing
import TestSupport

/// The OpenAQ pipelines through the real composition root, runner and SQLite store: fixtures →
/// tables → SQL; the published samples replayed; live runs against a loopback server that must
/// receive the key in the X-API-Key header and must never see it come back.
@Suite(.serialized) struct EndToEndTests {
    /// The standard environment for end-to-end tests, with OpenAQ pointed at `base`.
    typealias Environment = FeedTestEnvironment

    // MARK: - Fixtures

    static let pipelines = ["openaq-locations", "openaq-latest", "openaq-hours"]

    @Test(arguments: TestStore.all) func theThreePipelinesLoadTheirFixturesAndLoadingThemAgainChangesNothing(store: TestStore) async throws {
        let env = try Environment(store: store)
        defer { env.dir.remove() }
        let status = await env.feedline.run(names: Self.pipelines, source: .fixtures, paths: env.paths())
        #expect(status == .success, "\(env.out.text)\n\(env.err.text)")
        #expect(try env.value("SELECT count(*) FROM run WHERE status = 'succeeded'") == "3")

        // Locations and sensors: the three of locations-kr and three kept from the quirks.
        #expect(try env.rows("SELECT location_id, name, locality, country_code, provider_name, is_mobile, is_monitor, latitude, longitude, datetime_last_utc, datetime_last_local FROM openaq_location ORDER BY location_id") == [
            ["2623101", "종로구", "서울", "KR", "AirKorea", "0", "1", "37.572025", "127.005028", "2024-03-06T05:00:00Z", "2024-03-06T14:00:00+09:00"],
            ["2623102", "강남구", "서울", "KR", "AirKorea", "0", "1", "37.517558", "127.047313", "2024-03-06T05:00:00Z", "2024-03-06T14:00:00+09:00"],
            ["2623103", "연산동", "부산", "KR", "AirKorea", "0", "1", "35.183167", "129.08196", "2023-11-02T03:00:00Z", "2023-11-02T12:00:00+09:00"],
            ["2623104", "광화문 이동측정", "NULL", "KR", "AirKorea", "1", "0", "NULL", "NULL", "NULL", "NULL"],
            ["2623105", "외딴섬", "옹진군", "KR", "AirKorea", "0", "NULL", "NULL", "NULL", "NULL", "NULL"],
            ["2623106", "중복 센서", "서울", "KR", "AirKorea", "0", "1", "37.5636", "126.9752", "2024-03-06T05:00:00Z", "2024-03-06T14:00:00+09:00"],
        ])
        let parameters = store == .sqlite ? "group_concat(parameter_name || ' ' || coalesce(units, '?'), ', ')"
            : "string_agg(parameter_name || ' ' || coalesce(units, '?'), ', ' ORDER BY sensor_id)"
        #expect(try env.rows("SELECT location_id, count(*), \(parameters) FROM (SELECT * FROM openaq_sensor ORDER BY sensor_id) AS s GROUP BY location_id ORDER BY location_id") == [
            ["2623101", "6", "pm10 µg/m³, pm25 µg/m³, o3 ppm, no2 ppm, co ppm, so2 ppm"],
            ["2623102", "3", "pm10 µg/m³, pm25 µg/m³, o3 ppm"],
            ["2623103", "2", "pm25 µg/m³, no2 ppm"],
            ["2623104", "2", "pm25 µg/m³, pm10 ?"],
            ["2623106", "1", "o3 ppm"],
        ])

        // Latest values get their parameter and units from the sensors; values as delivered, null kept NULL.
        #expect(try env.rows("""
            SELECT location_name, sensor_id, parameter_name, units, value, datetime_utc, datetime_local, is_newest
            FROM openaq_latest_measurement ORDER BY location_id, sensor_id
            """) == [
                ["종로구", "7770101", "pm10", "µg/m³", "43.0", "2024-03-06T05:00:00Z", "2024-03-06T14:00:00+09:00", "1"],
                ["종로구", "7770102", "pm25", "µg/m³", "31.0", "2024-03-06T05:00:00Z", "2024-03-06T14:00:00+09:00", "1"],
                ["종로구", "7770103", "o3", "ppm", "0.032", "2024-03-06T05:00:00Z", "2024-03-06T14:00:00+09:00", "1"],
                ["종로구", "7770104", "no2", "ppm", "0.021", "2024-03-06T05:00:00Z", "2024-03-06T14:00:00+09:00", "1"],
                ["종로구", "7770105", "co", "ppm", "0.5", "2024-03-06T05:00:00Z", "2024-03-06T14:00:00+09:00", "1"],
                ["종로구", "7770106", "so2", "ppm", "NULL", "2024-03-06T05:00:00Z", "2024-03-06T14:00:00+09:00", "1"],
                ["강남구", "7770201", "pm10", "µg/m³", "52.0", "2024-03-06T05:00:00Z", "2024-03-06T14:00:00+09:00", "1"],
                ["강남구", "7770202", "pm25", "µg/m³", "NULL", "2024-03-06T05:00:00Z", "2024-03-06T14:00:00+09:00", "1"],
                ["강남구", "7770203", "o3", "ppm", "0.041", "2023-08-14T02:00:00Z", "2023-08-14T11:00:00+09:00", "1"],
            ])

        // Hours: dated by their end, values and units as delivered, coverage kept even above 100.
        #expect(try env.rows("SELECT sensor_id, count(*), min(datetime_to_utc), max(datetime_to_utc) FROM openaq_hourly GROUP BY sensor_id ORDER BY sensor_id") == [
            ["7770101", "3", "2024-03-06T03:00:00Z", "2024-03-06T05:00:00Z"],
            ["7770102", "6", "2024-03-06T01:00:00Z", "2024-03-06T06:00:00Z"],
            ["7770103", "2", "2024-03-06T02:00:00Z", "2024-03-06T05:00:00Z"],
        ])
        #expect(try env.rows("""
            SELECT sensor_id, datetime_to_utc, datetime_from_local, value, units, coverage_expected_count, coverage_observed_count,
                   coverage_percent_complete, summary_sd, has_flags
            FROM openaq_hourly WHERE value IS NULL OR coverage_percent_complete IS DISTINCT FROM 100 OR has_flags = 1 ORDER BY sensor_id, datetime_to_utc
            """) == [
                ["7770101", "2024-03-06T04:00:00Z", "2024-03-06T12:00:00+09:00", "44.0", "µg/m³", "1", "58447", "5844700.0", "NULL", "0"],
                ["7770102", "2024-03-06T03:00:00Z", "2024-03-06T11:00:00+09:00", "NULL", "µg/m³", "1", "0", "0.0", "NULL", "0"],
                ["7770102", "2024-03-06T04:00:00Z", "2024-03-06T12:00:00+09:00", "31.0", "µg/m³", "1", "3", "150.0", "1.2", "0"],
                ["7770102", "2024-03-06T06:00:00Z", "2024-03-06T14:00:00+09:00", "31.0", "µg/m³", "1", "1", "100.0", "NULL", "1"],
                ["7770103", "2024-03-06T05:00:00Z", "2024-03-06T13:00:00+09:00", "NULL", "ppm", "1", "1", "NULL", "NULL", "NULL"],
            ])
        #expect(try env.rows("SELECT code, count(*) FROM diagnostic GROUP BY code ORDER BY code") == [
            ["bad-boolean", "2"], ["bad-coordinate", "1"], ["bad-datetime", "2"], ["coverage-over-100", "2"], ["duplicate-row", "4"],
            ["missing-value", "7"], ["negative-count", "1"], ["not-hourly", "1"], ["type-mismatch", "3"], ["unparsable-number", "11"],
        ])

        // Each sensor's bookmark is the end of its newest hour (Unix seconds).
        #expect(try env.rows("SELECT name, value FROM bookmark WHERE pipeline = 'openaq-hours' AND name LIKE 'sensor_%' ORDER BY name") == [
            ["sensor_7770101_hours_through", "1709701200"],
            ["sensor_7770102_hours_through", "1709704800"],
            ["sensor_7770103_hours_through", "1709701200"],
        ])

        // Again, as fixtures (payloads already loaded) and as a forced replay of the same files (every row compared): nothing changes.
        let again = await env.feedline.run(names: Self.pipelines, source: .fixtures, paths: env.paths())
        #expect(again == .success)
        let files = ["locations-kr", "locations-quirks", "locations-empty", "latest-location-2623101", "latest-location-2623102",
                     "hours-sensor-7770101", "hours-sensor-7770102", "hours-quirks-sensor-7770103", "hours-empty"]
            .map { OpenAQFixtures.url($0 + ".json").path }
        let replayed = await env.feedline.replay(inputs: files, sourceHint: "openaq", parameters: [:], paths: env.paths(), force: true)
        #expect(replayed == .success, "\(env.err.text)")
        #expect(try env.value("SELECT count(*) FROM run") == "7")
        #expect(try env.value("SELECT sum(rows_inserted + rows_updated) FROM run WHERE id > 3") == "0")
        #expect(try env.value("SELECT sum(rows_unchanged) FROM run WHERE mode = 'replay'") == "40")
        #expect(try env.value("SELECT (SELECT sum(revision) FROM openaq_location) + (SELECT sum(revision) FROM openaq_sensor) + (SELECT sum(revision) FROM openaq_latest) + (SELECT sum(revision) FROM openaq_hourly)") == "0")
    }

    @Test func theCatalogAcceptsThePipelinesAndNoOtherFeedClaimsOpenAQAnswers() throws {
        let env = try Environment()
        defer { env.dir.remove() }
        let catalog = PipelineCatalog(directory: FixturePaths.repositoryRoot.appendingPathComponent("Pipelines"), feeds: env.environment.feeds)
        let (pipelines, problems) = catalog.loadAll()
        #expect(problems.filter { $0.file.contains("openaq") }.isEmpty, "\(problems)")
        let ours = pipelines.filter { $0.source == "openaq" }
        #expect(ours.map(\.name).sorted() == Self.pipelines.sorted())
        let feed = try #require(env.environment.feeds.first { $0.source == "openaq" })
        for pipeline in ours {
            let spec = SourceSpec(operation: pipeline.spec.operation, parameters: pipeline.spec.parameters.map { p in
                (p.name, p.values.map { $0.replacingOccurrences(of: "{yesterday}", with: "2024-03-05") })
            }, format: pipeline.spec.format, pageSize: pipeline.spec.pageSize, maxPages: pipeline.spec.maxPages)
            let requests = try feed.requests(for: spec)
            #expect(requests.count == ["openaq-locations": 1, "openaq-latest": 2, "openaq-hours": 3][pipeline.name], "\(pipeline.name)")
            // Within the limits: calls per scheduled run, and the schedules run at most hourly.
            #expect(requests.count * 24 <= OpenAQFeed.perHourCallLimit && requests.count <= OpenAQFeed.perMinuteCallLimit)
            #expect(pipeline.schedule.map { !$0.hasPrefix("*") } == true, "at most once an hour: \(pipeline.name)")
        }
        for file in OpenAQFixtures.files {
            let head = try Data(contentsOf: OpenAQFixtures.url(file)).prefix(4096)
            for other in env.environment.feeds where other.source != "openaq" {
                #expect(other.recognise(head: head, format: .json) == nil, "\(other.source) claims \(file)")
            }
        }
    }

    @Test func theDryRunShowsTheBundledSchedulesWellInsideOpenAQsLimits() async throws {
        var env = try Environment()
        defer { env.dir.remove() }
        env.variables["OPENAQ_API_KEY"] = Self.key
        let status = await env.feedline.run(names: Self.pipelines, source: .live, paths: env.paths(), dryRun: true)
        #expect(status == .success, "\(env.out.text)\n\(env.err.text)")
        #expect(env.out.text.contains("rate openaq: 6 calls a run; ≤ 6 a minute (paced; limit 60/minute); ≤ 6 a hour (paced; limit 2,000/hour); 121 a day (limit 48,000/day)"),
                "\(env.out.text)")
        #expect(env.out.text.contains("datetime_from=2024-03-04T15%3A00%3A00Z&datetime_to=2024-03-11T15%3A00%3A00Z"), "{yesterday} in KST, sent in UTC")
        #expect(!(env.out.text + env.err.text + env.logs.text).contains("OAQSENTINEL"))
    }

    // MARK: - Published samples

    static let locationsSample = FixturePaths.sharedFeeds.appendingPathComponent("openaq-v3-locations.json")
    static let measurementsSample = FixturePaths.sharedFeeds.appendingPathComponent("openaq-v3-measurements.json")
    static var samplesPresent: Bool { [locationsSample, measurementsSample].allSatisfy { FileManager.default.fileExists(atPath: $0.path) } }

    @Test("replaying the published samples loads their values as delivered", .enabled(if: samplesPresent), arguments: TestStore.all)
    func replayPublishedSamples(store: TestStore) async throws {
        let env = try Environment(store: store)
        defer { env.dir.remove() }
        // The measurements sample names no sensor: replay says which (its pm25 sensor at Del Norte).
        let status = await env.feedline.replay(inputs: [Self.locationsSample.path, Self.measurementsSample.path], sourceHint: nil,
                                               parameters: ["sensors_id": "3920"], paths: env.paths(), force: false)
        #expect(status == .success, "\(env.out.text)\n\(env.err.text)")
        #expect(try env.rows("SELECT location_id, name, locality, timezone, country_code, provider_name, is_monitor, instruments, latitude, longitude, datetime_first_utc, datetime_last_local FROM openaq_location") == [
            ["2178", "Del Norte", "Albuquerque", "America/Denver", "US", "AirNow", "1", "Government Monitor", "35.1353", "-106.584702",
             "2016-03-06T19:00:00Z", "2023-10-13T08:00:00-06:00"],
        ])
        #expect(try env.rows("SELECT sensor_id, parameter_name, units, display_name FROM openaq_sensor WHERE location_id = 2178 ORDER BY sensor_id") == [
            ["3916", "no2", "ppm", "NO₂"], ["3917", "o3", "ppm", "O₃"], ["3918", "so2", "ppm", "SO₂"], ["3919", "pm10", "µg/m³", "PM10"],
            ["3920", "pm25", "µg/m³", "PM2.5"], ["25227", "co", "ppm", "CO"], ["4272103", "nox", "ppm", "NOx"], ["4272226", "no", "ppm", "NO"],
        ])
        #expect(try env.rows("""
            SELECT sensor_id, datetime_from_utc, datetime_to_utc, datetime_to_local, value, parameter_name, units, display_name, summary_min, summary_sd,
                   coverage_expected_count, coverage_percent_complete, coverage_datetime_to_local
            FROM openaq_hourly ORDER BY datetime_to_utc
            """) == [
                ["3920", "2023-10-16T12:00:00Z", "2023-10-16T13:00:00Z", "2023-10-16T07:00:00-06:00", "6.0", "pm25", "µg/m³", "NULL", "6.0", "NULL", "1", "100.0", "2023-10-16T07:00:00-06:00"],
                ["3920", "2023-10-16T13:00:00Z", "2023-10-16T14:00:00Z", "2023-10-16T08:00:00-06:00", "7.5", "pm25", "µg/m³", "NULL", "7.5", "NULL", "1", "100.0", "2023-10-16T08:00:00-06:00"],
            ])
        #expect(try env.value("SELECT count(*) FROM diagnostic") == "0")

        // Without the sensor the hourly sample cannot be placed: the file is refused, the other still loads.
        let other = try Environment(store: store)
        defer { other.dir.remove() }
        let partial = await other.feedline.replay(inputs: [Self.locationsSample.path, Self.measurementsSample.path], sourceHint: nil,
                                                  parameters: [:], paths: other.paths(), force: false)
        #expect(partial == .partial)
        #expect(other.err.text.contains("openaq-v3-measurements.json") && other.err.text.contains("sensors_id"), "\(other.err.text)")
        #expect(try other.value("SELECT count(*) FROM openaq_hourly") == "0")
        #expect(try other.value("SELECT count(*) FROM openaq_location") == "1")
    }

    // MARK: - Live

    static let key = "OAQSENTINEL-0123456789abcdef0123456789abcdef"

    /// Everything a run left behind: output, logs, archive, database.
    func leftBehind(_ env: Environment) throws -> Data { try env.leftBehind() }

    /// A location result with id `id`.
    static func location(_ id: Int) -> String {
        #"{"id": \#(id), "name": "측정소 \#(id)", "locality": "서울", "timezone": "Asia/Seoul", "country": {"id": 112, "code": "KR", "name": "South Korea"}, "owner": {"id": 4, "name": "Unknown Governmental Organization"}, "provider": {"id": 223, "name": "AirKorea"}, "isMobile": false, "isMonitor": true, "instruments": [{"id": 2, "name": "Government Monitor"}], "sensors": [{"id": \#(id * 10), "name": "pm25 µg/m³", "parameter": {"id": 2, "name": "pm25", "units": "µg/m³", "displayName": "PM2.5"}}], "coordinates": {"latitude": 37.5, "longitude": 127.0}, "bounds": [127.0, 37.5, 127.0, 37.5], "distance": null, "datetimeFirst": null, "datetimeLast": null}"#
    }

    /// Pages of two locations: 1–2, 3–4, then 5 alone (a short page); `found` says `">2"` while pages are full.
    static func pagingServer(status: Int = 200, body: String? = nil) throws -> LoopbackServer {
        try LoopbackServer { request in
            let page = Int(request.query["page"] ?? "1") ?? 1
            let ids = page == 1 ? [1, 2] : page == 2 ? [3, 4] : page == 3 ? [5] : []
            let text = body ?? #"{"meta": {"name": "openaq-api", "website": "/", "page": \#(page), "limit": 2, "found": \#(ids.count == 2 ? "\">2\"" : "\((page - 1) * 2 + ids.count)")}, "results": [\#(ids.map(location).joined(separator: ", "))]}"#
            return .respond(status: status, contentType: "application/json", body: Data(text.utf8))
        }
    }

    static let locationsPipeline = """
        source: openaq
        operation: locations
        parameters:
          iso: KR
        format: json
        page_size: 2
        max_pages: 10
        """

    /// Runs `yaml` as pipeline `name` live against `base` in `env` (with the test key unless `key`
    /// is false).
    static func runLive(_ env: inout Environment, _ name: String, _ yaml: String, against base: URL, key: Bool = true,
                        variables: [String: String] = [:]) async throws -> App.ExitStatus {
        if key { env.variables["OPENAQ_API_KEY"] = Self.key }
        env.variables.merge(variables) { _, new in new }
        env.base = base
        let pipelines = try env.writePipeline(name, yaml)
        return await env.feedline.run(names: [name], source: .live, paths: env.paths(pipelines: pipelines))
    }

    @Test(arguments: TestStore.all) func aLiveRunPagesUntilAShortPageSendsTheKeyAsAHeaderAndKeepsItOutOfEverythingItWrites(store: TestStore) async throws {
        let server = try Self.pagingServer()
        defer { server.stop() }
        var env = try Environment(store: store)
        defer { env.dir.remove() }
        let status = try await Self.runLive(&env, "oaq-live", Self.locationsPipeline, against: server.baseURL)
        #expect(status == .success, "\(env.err.text)")
        #expect(server.requests.map(\.path) == ["/v3/locations", "/v3/locations", "/v3/locations"])
        #expect(server.requests.map { $0.query["page"] } == ["1", "2", "3"], "paged until the short page, found never trusted")
        #expect(server.requests.map { $0.headers["x-api-key"] } == [Self.key, Self.key, Self.key])
        #expect(server.requests.allSatisfy { !$0.target.contains("OAQSENTINEL") }, "the key is never in the URL")
        #expect(try env.rows("SELECT location_id FROM openaq_location ORDER BY location_id") == [["1"], ["2"], ["3"], ["4"], ["5"]])
        #expect(try env.value("SELECT count(*) FROM openaq_sensor") == "5")
        // The archive keeps each request without any key.
        let metas = FileManager.default.enumerator(at: env.dir.path("archive"), includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.lastPathComponent.hasSuffix(".meta.json") } ?? []
        #expect(metas.count == 3)
        for meta in metas {
            let text = try String(contentsOf: meta, encoding: .utf8)
            #expect(text.contains("X-API-Key") && text.contains("OPENAQ_API_KEY"), "the requirement is recorded, not the key")
        }
        #expect(try leftBehind(env).range(of: Data("OAQSENTINEL".utf8)) == nil, "the key was written somewhere")
    }

    /// Hours a test server has published: those ending 01:00 … `through`:00 UTC on 2024-03-06.
    final class Published: @unchecked Sendable {
        private let lock = NSLock()
        private var hour = 5
        var through: Int {
            get { lock.lock(); defer { lock.unlock() }; return hour }
            set { lock.lock(); hour = newValue; lock.unlock() }
        }
    }

    @Test(arguments: TestStore.all) func hoursResumePerSensorFromTheirBookmarks(store: TestStore) async throws {
        // Sensor 11 has the published hours, answered within the window asked; sensor 12 has none.
        let published = Published()
        let server = try LoopbackServer { request in
            let sensor = request.path.split(separator: "/")[2]
            let from = request.query["datetime_from"].flatMap(OpenAQTime.parse), to = request.query["datetime_to"].flatMap(OpenAQTime.parse)
            let hours = (1...published.through).filter { h in
                let end = Date(timeIntervalSince1970: 1_709_683_200 + TimeInterval(h * 3600))
                return sensor == "11" && from.map { end > $0 } ?? true && to.map { end <= $0 } ?? true
            }
            let rows = hours.map { h in
                #"{"value": \#(20 + h), "flagInfo": {"hasFlags": false}, "parameter": {"id": 2, "name": "pm25", "units": "µg/m³", "displayName": null}, "period": {"label": "1hour", "interval": "01:00:00", "datetimeFrom": {"utc": "2024-03-06T0\#(h - 1):00:00Z", "local": "2024-03-06T\#(h + 8 < 10 ? "0" : "")\#(h + 8):00:00+09:00"}, "datetimeTo": {"utc": "2024-03-06T0\#(h):00:00Z", "local": "2024-03-06T\#(h + 9 < 10 ? "0" : "")\#(h + 9):00:00+09:00"}}, "coordinates": null, "summary": null, "coverage": {"expectedCount": 1, "expectedInterval": "01:00:00", "observedCount": 1, "observedInterval": "01:00:00", "percentComplete": 100, "percentCoverage": 100}}"#
            }
            let text = #"{"meta": {"name": "openaq-api", "website": "/", "page": 1, "limit": 1000, "found": \#(rows.count)}, "results": [\#(rows.joined(separator: ", "))]}"#
            return .respond(status: 200, contentType: "application/json", body: Data(text.utf8))
        }
        defer { server.stop() }
        var env = try Environment(store: store)
        defer { env.dir.remove() }
        let yaml = """
            source: openaq
            operation: sensor-hours
            parameters:
              sensors_id: ["11", "12"]
              datetime_from: "2024-03-06T09:00:00+09:00"
              window_hours: "24"
              overlap_hours: "2"
            format: json
            """
        let first = try await Self.runLive(&env, "oaq-hours", yaml, against: server.baseURL)
        #expect(first == .success, "\(env.err.text)")
        #expect(try env.value("SELECT count(*) FROM openaq_hourly WHERE sensor_id = 11") == "5")
        // Both were read up to the fetch (05:30), before their window's end: sensor 12 moved on without any hour.
        #expect(try env.rows("SELECT name, value FROM bookmark WHERE name LIKE 'sensor_%' ORDER BY name") == [
            ["sensor_11_hours_through", "1709703000"], ["sensor_12_hours_through", "1709703000"],
        ])
        #expect(try env.rows("SELECT sensor_id, datetime_from_utc, datetime_to_utc, scanned_through_utc FROM openaq_hours_window ORDER BY sensor_id") == [
            ["11", "2024-03-06T00:00:00Z", "2024-03-07T00:00:00Z", "2024-03-06T05:30:00Z"],
            ["12", "2024-03-06T00:00:00Z", "2024-03-07T00:00:00Z", "2024-03-06T05:30:00Z"],
        ])

        // An hour later, with one more hour published: each sensor resumes two hours before its
        // bookmark; the hours read again load unchanged.
        env.now = OpenAQFixtures.fetchedAt.addingTimeInterval(3600)
        published.through = 6
        let second = await env.feedline.run(names: ["oaq-hours"], source: .live, paths: env.paths(pipelines: env.dir.path("Pipelines")))
        #expect(second == .success, "\(env.err.text)")
        let asked = server.requests.map { "\($0.path) \($0.query["datetime_from"] ?? "-") \($0.query["datetime_to"] ?? "-")" }
        #expect(asked == [
            "/v3/sensors/11/hours 2024-03-06T00:00:00Z 2024-03-07T00:00:00Z", "/v3/sensors/12/hours 2024-03-06T00:00:00Z 2024-03-07T00:00:00Z",
            "/v3/sensors/11/hours 2024-03-06T03:30:00Z 2024-03-07T03:30:00Z", "/v3/sensors/12/hours 2024-03-06T03:30:00Z 2024-03-07T03:30:00Z",
        ])
        #expect(server.requests.allSatisfy { $0.headers["x-api-key"] == Self.key })
        #expect(try env.value("SELECT rows_inserted || '/' || rows_updated || '/' || rows_unchanged FROM run ORDER BY id DESC LIMIT 1") == "2/0/2",
                "the 06:00 hour and the new window are new; 04:00 and 05:00 unchanged")
        // Sensor 12's answer is byte for byte the empty page already loaded, so it is not loaded
        // again and its bookmark stays; its next window still reaches the present.
        #expect(try env.rows("SELECT name, value FROM bookmark WHERE name LIKE 'sensor_%' ORDER BY name") == [
            ["sensor_11_hours_through", "1709706600"], ["sensor_12_hours_through", "1709703000"],
        ])
        #expect(try env.value("SELECT payloads_skipped FROM run ORDER BY id DESC LIMIT 1") == "1")
        #expect(try leftBehind(env).range(of: Data("OAQSENTINEL".utf8)) == nil)
    }

    @Test(arguments: TestStore.all) func aRejectedKeyFailsTheRunLoadsNothingAndIsNotRetried(store: TestStore) async throws {
        let server = try Self.pagingServer(status: 401, body: #"{"detail": "Invalid credentials"}"#)
        defer { server.stop() }
        var env = try Environment(store: store)
        defer { env.dir.remove() }
        let status = try await Self.runLive(&env, "oaq-live", Self.locationsPipeline, against: server.baseURL)
        #expect(status == .failure)
        #expect(server.requests.count == 1, "a terminal error is not retried")
        #expect(try env.value("SELECT count(*) FROM openaq_location") == "0")
        #expect(try env.value("SELECT status FROM run") == "failed")
        // The body is read as OpenAQ words it, not only its status.
        let error = try #require(try env.value("SELECT error FROM run"))
        #expect(error.contains("OpenAQ answered with error 401") && error.contains("Invalid credentials"), "\(error)")
        #expect(try leftBehind(env).range(of: Data("OAQSENTINEL".utf8)) == nil)
    }

    @Test(arguments: TestStore.all) func anErrorBodyBehindHTTP200IsTypedAndARateLimitIsWaitedOutOnce(store: TestStore) async throws {
        // A rate-limit body with status 200 reaches the decoder: a rate limit, waited out once, then the run stops.
        let limited = try Self.pagingServer(body: #"{"detail": "Too many requests"}"#)
        defer { limited.stop() }
        var env = try Environment(store: store)
        defer { env.dir.remove() }
        let status = try await Self.runLive(&env, "oaq-live", Self.locationsPipeline, against: limited.baseURL,
                                            variables: ["FEEDLINE_RATE_LIMIT_WAIT_MS": "10"])
        #expect(status == .temporaryFailure)
        #expect(limited.requests.count == 2, "waited out once, then stopped")
        let error = try #require(try env.value("SELECT error FROM run"))
        #expect(error.contains("OpenAQ answered with error 429") && error.contains("rate limit answered again after waiting"), "\(error)")
        #expect(try env.value("SELECT count(*) FROM openaq_location") == "0")

        // HTTP 429 itself: the same, classified by the fetch stage.
        let http = try Self.pagingServer(status: 429, body: #"{"detail": "Too many requests"}"#)
        defer { http.stop() }
        var other = try Environment(store: store)
        defer { other.dir.remove() }
        let again = try await Self.runLive(&other, "oaq-live", Self.locationsPipeline, against: http.baseURL,
                                           variables: ["FEEDLINE_RATE_LIMIT_WAIT_MS": "10"])
        #expect(again == .temporaryFailure && http.requests.count == 2)
        #expect(try leftBehind(env).range(of: Data("OAQSENTINEL".utf8)) == nil)
        #expect(try leftBehind(other).range(of: Data("OAQSENTINEL".utf8)) == nil)
    }

    @Test func aLiveRunWithoutTheKeyIsAConfigurationError() async throws {
        let server = try Self.pagingServer()
        defer { server.stop() }
        var env = try Environment()
        defer { env.dir.remove() }
        let status = try await Self.runLive(&env, "oaq-live", Self.locationsPipeline, against: server.baseURL, key: false)
        #expect(status == .configuration)
        #expect(server.requests.isEmpty)
        #expect((env.out.text + env.err.text).contains("OPENAQ_API_KEY"))
    }
}

extension FeedTestEnvironment {
    /// A fresh environment for OpenAQ's end-to-end tests, at the fixtures' clock.
    init(store: TestStore = .sqlite) throws {
        try self.init("openaq-e2e", baseURLVariable: "FEEDLINE_OPENAQ_BASE_URL", now: OpenAQFixtures.fetchedAt, store: store)
    }
}
