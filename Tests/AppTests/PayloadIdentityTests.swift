import App
import Foundation
import Testing
import TestSupport

/// A payload is loaded only as what it is: a page of a call feedline does not read is refused
/// whole (positive recognition), and loading the same bytes again never changes their rows
/// (the context they were first loaded under is kept).
@Suite struct PayloadIdentityTests {
    /// An OpenAQ `/v3/parameters` page whose one result has the id of a real location.
    static let parametersPage = #"{"meta":{"name":"openaq-api","website":"/","page":1,"limit":100,"found":1},"results":[{"id":2623101,"name":"pm25","units":"µg/m³","displayName":"PM2.5","description":"Particulate matter less than 2.5 micrometers in diameter mass concentration"}]}"#

    @Test("replaying an OpenAQ parameters page is refused, exit non-zero, and the location it names is untouched")
    func parametersPageIsRefused() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        #expect(await env.feedline.run(names: ["openaq-locations"], source: .fixtures, paths: env.paths()) == .success, "\(env.err.text)")
        let before = try env.db.rows("SELECT location_id, name, latitude, country_code FROM openaq_location ORDER BY location_id")
        #expect(before.contains { $0.first == "2623101" })

        let file = env.dir.path("parameters.json")
        try Data(Self.parametersPage.utf8).write(to: file)
        let status = await env.feedline.replay(inputs: [file.path], sourceHint: nil, parameters: [:], paths: env.paths(), force: true)
        #expect(status != .success)
        #expect(env.err.text.contains("resemble") && env.err.text.contains("locations"), "\(env.err.text)")
        #expect(try env.db.rows("SELECT location_id, name, latitude, country_code FROM openaq_location ORDER BY location_id") == before)
        #expect(try env.db.value("SELECT count(*) FROM run WHERE mode = 'replay' AND rows_inserted + rows_updated > 0") == "0")

        // Named as OpenAQ's, it is refused the same way.
        let named = await env.feedline.replay(inputs: [file.path], sourceHint: "openaq", parameters: [:], paths: env.paths(), force: true)
        #expect(named != .success)
        #expect(try env.db.rows("SELECT location_id, name, latitude, country_code FROM openaq_location ORDER BY location_id") == before)
    }

    @Test("every fixture, replayed as a bare file, is its own feed's or refused; never another feed's")
    func fixturesAreRecognisedAsTheirOwnFeed() async throws {
        let root = FixturePaths.fixtures
        for feed in ["airkorea", "careernet", "openaq", "openweather", "saramin"] {
            for path in RecognitionSamples.fixtures(except: "-").filter({ $0.hasPrefix(feed + "/") }) {
                let env = try TestEnvironment()
                defer { env.dir.remove() }
                _ = await env.feedline.replay(inputs: [root.appendingPathComponent(path).path], sourceHint: nil, parameters: [:],
                                              paths: env.paths(), force: true)
                let loaded = try env.db.rows("SELECT source FROM payload")
                #expect(loaded.allSatisfy { $0.first == feed }, "\(path) was loaded as \(loaded)")
                #expect(!env.err.text.contains("several feeds"), "\(path): \(env.err.text)")
            }
        }
    }

    // MARK: - The same bytes, the same rows

    static let weatherRow = "SELECT units, temperature_c, feels_like_c, payload_sha256 FROM openweather_weather ORDER BY observed_at"

    @Test("replaying --force the bare file a fixture run loaded with units=metric keeps its rows; a contradicting --param is refused")
    func bareReplayKeepsTheFirstLoadsContext() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        #expect(await env.feedline.run(names: ["openweather-weather"], source: .fixtures, paths: env.paths()) == .success, "\(env.err.text)")
        let before = try env.db.rows(Self.weatherRow)
        #expect(before.first?.prefix(2) == ["metric", "8.43"])

        let file = FixturePaths.fixtures.appendingPathComponent("openweather/weather-seoul-metric.json").path
        let again = await env.feedline.replay(inputs: [file], sourceHint: nil, parameters: [:], paths: env.paths(), force: true)
        #expect(again == .success, "\(env.err.text)")
        #expect(try env.db.rows(Self.weatherRow) == before)
        #expect(try env.db.value("SELECT rows_updated FROM run WHERE mode = 'replay'") == "0")

        let contradicted = await env.feedline.replay(inputs: [file], sourceHint: nil, parameters: ["units": "standard"], paths: env.paths(), force: true)
        #expect(contradicted != .success)
        #expect(env.err.text.contains("units=metric") && env.err.text.contains("--param units=standard"), "\(env.err.text)")
        #expect(try env.db.rows(Self.weatherRow) == before)
    }

    @Test("a bare current-weather file never loaded with its units is refused naming --param units; given them, it loads")
    func bareWeatherWithoutUnitsIsRefused() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let file = FixturePaths.fixtures.appendingPathComponent("openweather/weather-seoul-metric.json").path
        let refused = await env.feedline.replay(inputs: [file], sourceHint: nil, parameters: [:], paths: env.paths(), force: false)
        #expect(refused != .success)
        #expect(env.err.text.contains("--param units="), "\(env.err.text)")
        #expect(try env.db.value("SELECT count(*) FROM openweather_weather") == "0")

        let given = await env.feedline.replay(inputs: [file], sourceHint: nil, parameters: ["units": "metric"], paths: env.paths(), force: false)
        #expect(given == .success, "\(env.err.text)")
        #expect(try env.db.rows(Self.weatherRow).first?.prefix(2) == ["metric", "8.43"])
    }

    @Test("a bare OpenAQ sensors page that names no location is refused naming --param locations_id; named, its sensors get the location")
    func sensorsPageWithoutLocationIsRefused() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let file = env.dir.path("sensors.json")
        try Data(contentsOf: FixturePaths.fixtures.appendingPathComponent("openaq/sensors-location-2623101.json")).write(to: file)
        let refused = await env.feedline.replay(inputs: [file.path], sourceHint: nil, parameters: [:], paths: env.paths(), force: false)
        #expect(refused != .success)
        #expect(env.err.text.contains("--param locations_id="), "\(env.err.text)")
        #expect(try env.db.value("SELECT count(*) FROM openaq_sensor") == "0")

        let named = await env.feedline.replay(inputs: [file.path], sourceHint: nil, parameters: ["locations_id": "2623101"], paths: env.paths(), force: false)
        #expect(named == .success, "\(env.err.text)")
        #expect(try env.db.value("SELECT count(*) FROM openaq_sensor WHERE location_id IS NULL OR location_id <> 2623101") == "0")
    }
}
