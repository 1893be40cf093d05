@testable import App
import Foundation
import Pipeline
import Testing

/// `ReplayContext` at its own level: a bare file whose bytes a live run loaded is read under
/// that run's recorded request (its redacted URL), never under a weaker or contradicting one.
@Suite struct ReplayContextTests {
    static let feed = AppEnvironment.standardFeeds(variables: [:]).first { $0.source == "openweather" }!

    static func bare(sha256: String) -> StagedPayload {
        let payload = RawPayload(file: URL(fileURLWithPath: "/tmp/weather.json"), request: nil, source: "openweather",
                                 operation: "current-weather", format: .json, fetchedAt: Date(timeIntervalSince1970: 0),
                                 sha256: sha256, byteCount: 1)
        return StagedPayload(payload: payload, feed: feed, context: DecodeContext(request: nil), archivePath: nil)
    }

    static let live = FirstLoad(requestURL: "https://api.openweathermap.org/data/2.5/weather?appid=REDACTED&lat=37.5665&lon=126.9780&units=imperial",
                                operation: "current-weather", fetchedAt: Date(timeIntervalSince1970: 1_709_700_000),
                                pipeline: "openweather-weather", mode: "live", run: 3)

    @Test("a live run's recorded request becomes the context, without the key's placeholder")
    func recordedRequestIsTheContext() throws {
        let rule = ReplayContext(firstLoads: ["a": Self.live], pipelines: { [:] })
        let staged = try rule.apply(to: Self.bare(sha256: "a"), explicit: [:])
        #expect(staged.context.request?.parameter("units") == "imperial")
        #expect(staged.context.request?.parameter("lat") == "37.5665")
        #expect(staged.context.request?.parameter("appid") == nil)
        #expect(staged.context.request?.baseURL.absoluteString == "https://api.openweathermap.org/data/2.5/weather")
        #expect(staged.payload.fetchedAt == Date(timeIntervalSince1970: 1_709_700_000))
        // The same value given again is no contradiction.
        #expect(try rule.apply(to: Self.bare(sha256: "a"), explicit: ["units": "imperial"]).context.request?.parameter("units") == "imperial")
    }

    @Test("a --param contradicting the recorded request refuses the file, naming both values")
    func contradictionIsRefused() {
        let rule = ReplayContext(firstLoads: ["a": Self.live], pipelines: { [:] })
        #expect {
            _ = try rule.apply(to: Self.bare(sha256: "a"), explicit: ["units": "metric"])
        } throws: { error in
            "\(error)".contains("units=imperial") && "\(error)".contains("--param units=metric") && "\(error)".contains("run #3")
        }
    }

    @Test("bytes first loaded by a bare replay (no context recorded) must be given the parameters the feed needs")
    func unknownContextNeedsTheParameters() throws {
        let replayed = FirstLoad(requestURL: nil, operation: "current-weather", fetchedAt: nil, pipeline: "replay", mode: "replay", run: 2)
        let rule = ReplayContext(firstLoads: ["a": replayed], pipelines: { [:] })
        #expect(throws: FeedError.self) { _ = try rule.apply(to: Self.bare(sha256: "a"), explicit: [:]) }
        let timed = ReplayContext(firstLoads: ["a": FirstLoad(requestURL: nil, operation: "air-pollution", fetchedAt: Date(timeIntervalSince1970: 1_709_700_000),
                                                              pipeline: "replay", mode: "replay", run: 2)], pipelines: { [:] })
        var pollution = Self.bare(sha256: "a")
        pollution.payload.operation = "air-pollution"
        #expect(try timed.apply(to: pollution, explicit: [:]).payload.fetchedAt == Date(timeIntervalSince1970: 1_709_700_000))
        #expect(throws: Never.self) { _ = try rule.apply(to: Self.bare(sha256: "a"), explicit: ["units": "metric"]) }
    }
}
