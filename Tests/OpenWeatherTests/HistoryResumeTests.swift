import App
import OpenWeather
import Pipeline
import Foundation
import Testing
import TestSupport

/// A scheduled history pipeline (`end: "{now}"`) asks next time only from where every
/// location's history was loaded to.
@Suite(.serialized) struct HistoryResumeTests {
    static let start: Int64 = 1_709_683_200  // 2024-03-06 00:00 UTC

    static let pipeline = """
        source: openweather
        operation: air-pollution-history
        format: json
        parameters:
          coordinates: ["37.5665,126.9780", "37.4979,127.0276"]
          start: "\(start)"
          end: "{now}"
        """

    /// Five hours from `start` at the asked point.
    static func history(lat: String, lon: String) -> String {
        let hours = (0..<5).map { k in
            #"{"main":{"aqi":2},"components":{"co":300,"no":0,"no2":18,"o3":70,"so2":4,"pm2_5":20,"pm10":30,"nh3":2},"dt":\#(start + Int64(k) * 3600)}"#
        }
        return #"{"coord":{"lon":\#(lon),"lat":\#(lat)},"list":[\#(hours.joined(separator: ","))]}"#
    }

    @Test func theSecondRunStartsWhereEveryLocationsHistoryEnds() async throws {
        let server = try EndToEndTests.server { request in Self.history(lat: request.query["lat"] ?? "0", lon: request.query["lon"] ?? "0") }
        defer { server.stop() }
        var env = try EndToEndTests.Environment()
        defer { env.dir.remove() }
        env.variables["OPENWEATHER_API_KEY"] = EndToEndTests.key
        env.base = server.baseURL
        let pipelines = try env.writePipeline("ow-history", Self.pipeline)
        let now = String(Int64(env.now.timeIntervalSince1970))

        #expect(await env.feedline.run(names: ["ow-history"], source: .live, paths: env.paths(pipelines: pipelines)) == .success, "\(env.err.text)")
        #expect(server.requests.map { $0.query["start"] } == ["\(Self.start)", "\(Self.start)"])
        #expect(server.requests.map { $0.query["end"] } == [now, now])
        #expect(try env.value("SELECT count(*) FROM openweather_air_pollution WHERE kind = 'history'") == "10")

        // Loaded through 05:00 at both points: the next run asks from 04:00 (the last hour again).
        #expect(await env.feedline.run(names: ["ow-history"], source: .live, paths: env.paths(pipelines: pipelines)) == .success)
        #expect(server.requests.dropFirst(2).map { $0.query["start"] } == ["\(Self.start + 4 * 3600)", "\(Self.start + 4 * 3600)"])
        #expect(try env.value("SELECT count(*) FROM openweather_air_pollution WHERE kind = 'history'") == "10")
    }

    @Test func aLocationWithoutHistoryKeepsThePipelinesStartForAll() {
        let feed = OpenWeatherFixtures.feed
        let spec = SourceSpec(operation: "air-pollution-history", parameters: [
            ("coordinates", ["37.5665,126.9780", "37.4979,127.0276"]), ("start", ["\(Self.start)"]), ("end", ["\(Self.start + 86_400)"]),
        ], format: .json, pageSize: 1000, maxPages: 1)
        let one = [OpenWeatherFeed.historyBookmark(latitude: 37.5665, longitude: 126.9780): "\(Self.start + 7200)"]
        #expect(feed.resuming(spec, bookmarks: one).parameters.first { $0.name == "start" }?.values == ["\(Self.start)"])
        let both = one.merging([OpenWeatherFeed.historyBookmark(latitude: 37.4979, longitude: 127.0276): "\(Self.start + 3600 * 3)"]) { a, _ in a }
        #expect(feed.resuming(spec, bookmarks: both).parameters.first { $0.name == "start" }?.values == ["\(Self.start + 3600)"])
    }

    @Test func nonsenseStartsEndsAndBookmarksAreNotResumedFrom() {
        let feed = OpenWeatherFixtures.feed
        let key = OpenWeatherFeed.historyBookmark(latitude: 37.5665, longitude: 126.9780)
        for (start, end, bookmark) in [("0", "-9223372036854775808", "1709701200"), ("1709683200", "1709769600", "-9223372036854775808"),
                                       ("1709683200", "1709769600", "9223372036854775807")] {
            let spec = SourceSpec(operation: "air-pollution-history", parameters: [
                ("coordinates", ["37.5665,126.9780"]), ("start", [start]), ("end", [end]),
            ], format: .json, pageSize: 1000, maxPages: 1)
            #expect(feed.resuming(spec, bookmarks: [key: bookmark]).parameters.first { $0.name == "start" }?.values == [start])
        }
    }
}
