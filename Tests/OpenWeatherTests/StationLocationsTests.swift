import App
import Foundation
import Testing
import TestSupport

/// "What does the model say next to each monitor?": `coordinates: ["{stations}"]` asks
/// OpenWeather at every AirKorea station of the station table.
@Suite(.serialized) struct StationLocationsTests {
    static let pipeline = """
        source: openweather
        operation: air-pollution
        format: json
        parameters:
          coordinates: ["{stations}"]
        """

    /// An environment whose OpenWeather calls go to `base`, with the key set.
    static func environment(against base: URL) throws -> FeedTestEnvironment {
        var env = try EndToEndTests.Environment()
        env.variables["OPENWEATHER_API_KEY"] = EndToEndTests.key
        env.base = base
        return env
    }

    @Test func everyStationIsAskedForOnceAtItsCoordinates() async throws {
        let server = try EndToEndTests.server()
        defer { server.stop() }
        let env = try Self.environment(against: server.baseURL)
        defer { env.dir.remove() }
        // The station list first, from its fixture.
        #expect(await env.feedline.run(names: ["airkorea-stations"], source: .fixtures, paths: env.paths()) == .success, "\(env.err.text)")
        let stations = try env.rows("SELECT printf('%.4f,%.4f', latitude, longitude) FROM station WHERE latitude IS NOT NULL AND longitude IS NOT NULL ORDER BY name").map { $0[0] }
        #expect(stations.count >= 2)

        let pipelines = try env.writePipeline("ow-stations", Self.pipeline)
        let status = await env.feedline.run(names: ["ow-stations"], source: .live, paths: env.paths(pipelines: pipelines))
        #expect(status == .success, "\(env.err.text)")
        let asked = server.requests.map { "\($0.query["lat"]!),\($0.query["lon"]!)" }
        #expect(asked == stations)
        #expect(try env.value("SELECT count(DISTINCT latitude || ',' || longitude) FROM openweather_air_pollution") == "\(stations.count)")
    }

    @Test func withoutAStationListTheRunSaysWhatToRunFirst() async throws {
        let server = try EndToEndTests.server()
        defer { server.stop() }
        let env = try Self.environment(against: server.baseURL)
        defer { env.dir.remove() }
        let pipelines = try env.writePipeline("ow-stations", Self.pipeline)
        let status = await env.feedline.run(names: ["ow-stations"], source: .live, paths: env.paths(pipelines: pipelines))
        #expect(status == .failure)
        #expect(server.requests.isEmpty)
        #expect(env.out.text.contains("run the airkorea-stations pipeline first"), "\(env.out.text)")
    }

    @Test func placesResolvedByGeocodingStandInForTheirCoordinates() async throws {
        let server = try EndToEndTests.server()
        defer { server.stop() }
        let env = try Self.environment(against: server.baseURL)
        defer { env.dir.remove() }
        #expect(await env.feedline.run(names: ["openweather-places"], source: .fixtures, paths: env.paths()) == .success, "\(env.err.text)")
        let places = try env.rows("SELECT printf('%.4f,%.4f', latitude, longitude) FROM place WHERE latitude IS NOT NULL ORDER BY query").map { $0[0] }
        #expect(places.count == 2)

        let pipelines = try env.writePipeline("ow-places", Self.pipeline.replacingOccurrences(of: "{stations}", with: "{places}"))
        #expect(await env.feedline.run(names: ["ow-places"], source: .live, paths: env.paths(pipelines: pipelines)) == .success, "\(env.err.text)")
        #expect(server.requests.map { "\($0.query["lat"]!),\($0.query["lon"]!)" } == places)
    }
}
