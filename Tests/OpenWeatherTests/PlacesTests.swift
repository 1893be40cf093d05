import App
import FeedCore
import Foundation
import OpenWeather
import Pipeline
import Storage
import Testing
import TestSupport

/// Place names resolved once: `geocode` asks `/geo/1.0/direct` for each `q`, stores the best
/// match in `place` under the `q` it answers, and bookmarks it, so no run asks for it again.
@Suite("OpenWeather geocoding requests")
struct PlaceRequestTests {
    let feed = OpenWeatherFeed()

    func spec(_ parameters: [(name: String, values: [String])], operation: String = "geocode") -> SourceSpec {
        SourceSpec(operation: operation, parameters: parameters, format: .json, pageSize: 1000, maxPages: 1)
    }

    @Test("one request per q, in order, with limit=1 and the key as a requirement only")
    func requestPerName() throws {
        let requests = try feed.requests(for: spec([("q", ["Jongno-gu,KR", " Gangnam-gu,KR ", "종로구,KR"])]))
        #expect(requests.map(\.displayURL) == [
            "https://api.openweathermap.org/geo/1.0/direct?appid=REDACTED&q=Jongno-gu%2CKR&limit=1",
            "https://api.openweathermap.org/geo/1.0/direct?appid=REDACTED&q=Gangnam-gu%2CKR&limit=1",
            "https://api.openweathermap.org/geo/1.0/direct?appid=REDACTED&q=%EC%A2%85%EB%A1%9C%EA%B5%AC%2CKR&limit=1",
        ])
        #expect(requests.map { $0.parameter("q") } == ["Jongno-gu,KR", "Gangnam-gu,KR", "종로구,KR"])
        #expect(requests.allSatisfy { $0.operation == "geocode" && $0.parameter("appid") == nil && $0.format == .json })
        #expect(requests.allSatisfy { $0.credential == CredentialRequirement(environmentVariable: "OPENWEATHER_API_KEY", placement: .query("appid")) })
        #expect(requests.allSatisfy { QuotaScope.api(of: $0) == "geocode" })
        #expect(feed.request(requests[0], page: 2) == nil)
        for alias in ["geocoding", "geo/1.0/direct", "GEOCODE"] {
            #expect(feed.canonicalOperation(alias) == "geocode")
        }
    }

    @Test("names already resolved are left out; all resolved makes no request and no error")
    func resumingDropsResolvedNames() throws {
        let names = spec([("q", ["Jongno-gu,KR", "Gangnam-gu,KR", "Jung-gu,KR"])])
        // Nothing resolved yet, or bookmarks of other things: unchanged.
        #expect(feed.resuming(names, bookmarks: [:]) == names)
        #expect(feed.resuming(names, bookmarks: ["newest_observed_at": "2024-03-06T06:00:00Z", "place_Mapo-gu,KR": "1709703000"]) == names)

        let some = feed.resuming(names, bookmarks: [OpenWeatherFeed.placeBookmark(query: "Gangnam-gu,KR"): "1709703000"])
        #expect(some.parameters.map(\.name) == ["q", "resolved"])
        #expect(some.parameters.map(\.values) == [["Jongno-gu,KR", "Jung-gu,KR"], ["Gangnam-gu,KR"]])
        #expect(try feed.requests(for: some).map { $0.parameter("q") } == ["Jongno-gu,KR", "Jung-gu,KR"])

        let bookmarks = Dictionary(uniqueKeysWithValues: ["Jongno-gu,KR", "Gangnam-gu,KR", "Jung-gu,KR"].map { ("place_\($0)", "1709703000") })
        let all = feed.resuming(names, bookmarks: bookmarks)
        #expect(all.parameters.first { $0.name == "q" }?.values == [])
        #expect(try feed.requests(for: all).isEmpty)

        // A bookmark that is no positive number does not count; other operations are left alone.
        #expect(feed.resuming(names, bookmarks: ["place_Jongno-gu,KR": "", "place_Gangnam-gu,KR": "0"]) == names)
        let pollution = spec([("coordinates", ["37.5665,126.9780"])], operation: "air-pollution")
        #expect(feed.resuming(pollution, bookmarks: bookmarks) == pollution)
    }

    @Test("q missing, empty, blank or repeated, locations, limit and other parameters are refused with a sentence")
    func refusals() {
        func message(_ parameters: [(name: String, values: [String])]) -> String? { invalidRequestMessage(feed, spec(parameters)) }
        #expect(message([])?.contains("geocode needs q") == true)
        #expect(message([("q", [])])?.contains("lists no place name") == true)
        #expect(message([("q", ["Seoul,KR", "  "])])?.contains("lists an empty place name") == true)
        #expect(message([("q", ["Seoul,KR", "seoul,kr"])])?.contains("“seoul,kr” is listed twice") == true)
        #expect(message([("q", ["Seoul,KR"]), ("lat", ["37.5"])])?.contains("give the names in q") == true)
        #expect(message([("q", ["Seoul,KR"]), ("coordinates", ["37.5,127"])])?.contains("not coordinates") == true)
        #expect(message([("q", ["Seoul,KR"]), ("limit", ["5"])])?.contains("always sends limit=1") == true)
        #expect(message([("q", ["Seoul,KR"]), ("units", ["metric"])])?.contains("not accepted by geocode") == true)
        #expect(message([("q", ["Seoul,KR"]), ("appid", ["abc"])])?.contains("comes from OPENWEATHER_API_KEY") == true)
        // q is geocode's: the other operations refuse it.
        #expect(invalidRequestMessage(feed, spec([("q", ["Seoul,KR"])], operation: "air-pollution"))?.contains("not accepted by air-pollution") == true)
    }

    @Test("the feed declares the place table beside its air pollution and weather tables")
    func schema() {
        #expect(feed.schema.declarations.tables.map(\.name) == ["openweather_air_pollution", "openweather_weather", "openweather_weather_condition", "place"])
        #expect(feed.schema.declarations.table("place")?.key == ["query"])
        #expect(feed.schema.migrations.isEmpty)
    }
}

@Suite("OpenWeather geocoding answers")
struct PlaceMappingTests {
    func decode(_ json: String, q: String? = "Jongno-gu,KR", fallback: [String: String] = [:], name: String = "payload.json") throws -> DecodeResult {
        let (url, dir) = try temporaryPayload(json, name: name)
        defer { dir.remove() }
        let request = try q.map { q in
            try #require(try OpenWeatherFeed().requests(for: SourceSpec(operation: "geocode", parameters: [("q", [q])], format: .json,
                                                                         pageSize: 1, maxPages: 1)).first)
        }
        return OpenWeatherFixtures.decode(url, request: request, fallback: fallback)
    }

    static let jongno = #"[{"name":"Jongno-gu","local_names":{"ko":"종로구","en":"Jongno-gu"},"lat":37.5735207,"lon":126.9788345,"country":"KR"}]"#

    @Test("the best match under the q asked: local_names.ko kept, a missing state missing, the fetch time as resolved_at")
    func place() throws {
        let result = try decode(Self.jongno)
        #expect(result.sink.diagnostics.isEmpty)
        #expect(result.summary == PageSummary(itemCount: 1))
        let place = try #require(result.sink.places.first)
        #expect(place == GeocodedPlace(query: "Jongno-gu,KR", name: "Jongno-gu", localNameKo: "종로구", country: "KR", state: nil,
                                       latitude: 37.5735207, longitude: 126.9788345, resolvedAt: OpenWeatherFixtures.fetchedAt))
    }

    @Test("no Korean name and a state: ko missing, state kept, numbers as strings read")
    func noKoreanName() throws {
        let result = try decode(#"[{"name":"Springfield","local_names":{"en":"Springfield"},"lat":"39.7990175","lon":"-89.6439575","country":"US","state":"Illinois"}]"#,
                                q: "Springfield,IL,US")
        #expect(result.sink.diagnostics.isEmpty)
        let place = try #require(result.sink.places.first)
        #expect(place.localNameKo == nil && place.state == "Illinois" && place.country == "US")
        #expect(place.latitude == 39.7990175 && place.longitude == -89.6439575)
        // No local_names at all reads the same.
        let bare = try decode(#"[{"name":"Springfield","lat":39.7990175,"lon":-89.6439575,"country":"US","state":"Illinois"}]"#, q: "Springfield,IL,US")
        #expect(bare.sink.places.first?.localNameKo == nil && bare.sink.diagnostics.isEmpty)
    }

    @Test("an empty answer is a diagnostic naming the q, not a row and not an error")
    func emptyAnswer() throws {
        let result = try decode(" [ ] ", q: "Atlantis")
        #expect(result.error == nil)
        #expect(result.sink.records.isEmpty)
        #expect(result.summary == PageSummary(itemCount: 0))
        let diagnostic = try #require(result.sink.diagnostics.first)
        #expect(result.sink.diagnostics.count == 1)
        #expect(diagnostic.code.rawValue == "place-not-found" && diagnostic.value == "Atlantis")
        #expect(diagnostic.message == "Nothing matched q “Atlantis”: the geocoding answer is an empty list, so no place is stored and a later run asks again; check the spelling, or add a country code (“Atlantis,KR”).")

        // Without its request: the fallback q is named as such; with none, the q is said to be unknown.
        let bare = try decode("[]", q: nil, fallback: ["q": "Atlantis,KR"])
        #expect(bare.sink.diagnostics.map(\.code.rawValue) == ["place-not-found"])
        #expect(bare.sink.diagnostics.first?.message.contains("the q given for it (the pipeline's first, or --param q) is “Atlantis,KR”") == true)
        let unknown = try decode("[]", q: nil)
        #expect(unknown.sink.diagnostics.first?.message.contains("which name found nothing is not known") == true)
    }

    @Test("without its request: the fallback q when the answer names that place, else the answer's own name and country")
    func queryWithoutRequest() throws {
        // The pipeline's (first) q names the place, in English or in Korean, whatever the case and hyphens.
        for q in ["Jongno-gu,KR", "jongno gu,KR", "종로구,KR", "Jongno-gu"] {
            let result = try decode(Self.jongno, q: nil, fallback: ["q": q])
            #expect(result.sink.places.map(\.query) == [q], "\(q)")
            #expect(result.sink.diagnostics.isEmpty, "\(q)")
        }
        // Another of the pipeline's names: stored under the answer's own, with a diagnostic.
        let other = try decode(Self.jongno, q: nil, fallback: ["q": "Gangnam-gu,KR"])
        #expect(other.sink.places.map(\.query) == ["Jongno-gu,KR"])
        #expect(other.sink.diagnostics.map(\.code.rawValue) == ["query-from-answer"])
        #expect(other.sink.diagnostics.first?.message == "The answer came without its request and names Jongno-gu, not the q “Gangnam-gu,KR” given for it; it is stored under “Jongno-gu,KR”, its own name and country.")
        let none = try decode(Self.jongno, q: nil)
        #expect(none.sink.places.map(\.query) == ["Jongno-gu,KR"] && none.sink.diagnostics.map(\.code.rawValue) == ["query-from-answer"])
        // Neither a q nor a name: nothing to store it under.
        let nameless = try decode(#"[{"lat":37.57,"lon":126.98,"country":"KR"}]"#, q: nil)
        #expect(nameless.sink.records.isEmpty && nameless.sink.diagnostics.map(\.code.rawValue) == ["missing-value"])
        // A request's q always wins, whatever the answer's name.
        let asked = try decode(Self.jongno, q: "Seoul Jongno", fallback: ["q": "Gangnam-gu,KR"])
        #expect(asked.sink.places.map(\.query) == ["Seoul Jongno"] && asked.sink.diagnostics.isEmpty)
    }

    @Test("a place without usable coordinates is not stored; a missing name or country is noted")
    func unusablePlaces() throws {
        for (body, code) in [
            (#"[{"name":"Jongno-gu","lat":37.57,"country":"KR"}]"#, "missing-value"),
            (#"[{"name":"Jongno-gu","lat":37.57,"lon":"east","country":"KR"}]"#, "unparsable-number"),
            (#"[{"name":"Jongno-gu","lat":97.57,"lon":126.98,"country":"KR"}]"#, "out-of-range"),
            (#"[{"name":"Jongno-gu","lat":37.57,"lon":-181,"country":"KR"}]"#, "out-of-range"),
        ] {
            let result = try decode(body)
            #expect(result.sink.records.isEmpty, "\(body)")
            #expect(result.sink.diagnostics.map(\.code.rawValue) == [code], "\(body)")
            #expect(result.sink.diagnostics.first?.message.contains("so it is not stored and a later run asks for “Jongno-gu,KR” again") == true)
        }
        let unnamed = try decode(#"[{"lat":37.57,"lon":126.98,"state":"Seoul"}]"#)
        #expect(unnamed.sink.places.map(\.query) == ["Jongno-gu,KR"])
        #expect(unnamed.sink.diagnostics.map { "\($0.code.rawValue) \($0.location)" } == ["missing-value place 0 (Jongno-gu,KR) name", "missing-value place 0 (Jongno-gu,KR) country"])
    }

    @Test("several places keep the first; elements that are not objects are skipped")
    func severalPlaces() throws {
        let result = try decode(#"[1, {"name":"Jung-gu","lat":37.56,"lon":126.99,"country":"KR","state":"Seoul"}, {"name":"Jung-gu","lat":35.1,"lon":129.03,"country":"KR","state":"Busan"}]"#,
                                q: "Jung-gu,KR")
        #expect(result.sink.places.map(\.state) == ["Seoul"])
        #expect(result.sink.diagnostics.map(\.code.rawValue) == ["type-mismatch", "extra-places"])
        #expect(result.summary == PageSummary(itemCount: 3))
    }

    @Test("error bodies are typed errors; other answers and broken JSON are malformed; nothing is delivered")
    func errors() throws {
        let nothing = try decode(#"{"cod":"400","message":"Nothing to geocode"}"#)
        #expect(nothing.feedError?.kind == .api(code: "400", name: "BAD_REQUEST") && nothing.feedError?.retryability == .terminal)
        #expect(nothing.feedError?.context == "https://api.openweathermap.org/geo/1.0/direct?appid=REDACTED&q=Jongno-gu%2CKR&limit=1")
        let key = try decode(#"{"cod":401, "message": "Invalid API key."}"#)
        #expect(key.feedError?.kind == .api(code: "401", name: "INVALID_API_KEY"))
        let limited = try decode(#"{"cod":429, "message": "Too many"}"#)
        #expect(limited.feedError?.retryability == .transient && limited.feedError?.isRateLimited == true)

        let pollution = try decode(#"{"coord":{"lon":126.978,"lat":37.5665},"list":[]}"#)
        #expect(pollution.feedError?.kind == .malformed)
        #expect(pollution.feedError?.message == "The request was for geocoding, which answers with a JSON array of places, but the answer holds an air pollution list.")
        #expect(try decode("42").feedError?.kind == .malformed)
        #expect(try decode(#"[{"name":"Jongno-gu","lat":37.57"#).feedError?.kind == .malformed)
        for result in [nothing, key, limited, pollution] { #expect(result.sink.entries.isEmpty) }

        // A geocoding answer to an air pollution request is no air pollution answer.
        let (url, dir) = try temporaryPayload(Self.jongno)
        defer { dir.remove() }
        let request = try #require(try OpenWeatherFeed().requests(for: SourceSpec(operation: "air-pollution", parameters: [("coordinates", ["37.5,127"])],
                                                                                    format: .json, pageSize: 1, maxPages: 1)).first)
        let crossed = OpenWeatherFixtures.decode(url, request: request)
        #expect(crossed.feedError?.kind == .malformed && crossed.sink.entries.isEmpty)
    }

    @Test("recognition: an empty array or an array of places is a geocoding answer; other arrays are not")
    func recognition() {
        let feed = OpenWeatherFeed()
        func recognised(_ text: String) -> String? { feed.recognise(head: Data(text.utf8), format: .json) }
        #expect(recognised("[]") == "geocode")
        #expect(recognised("\u{FEFF} [\n ]\n") == "geocode")
        #expect(recognised(Self.jongno) == "geocode")
        #expect(recognised(#"[{"stationName":"종로구","dmX":"37.57","dmY":"127.0"}]"#) == nil)
        #expect(recognised("[1, 2, 3]") == nil)
        #expect(recognised(#"{"cod":"400","message":"Nothing to geocode"}"#) == "air-pollution")  // an error body, typed whichever reads it
    }
}

/// The `openweather-places` pipeline and its live runs through the real composition root.
@Suite(.serialized) struct PlaceRunTests {
    typealias Environment = EndToEndTests.Environment

    @Test func theFixturesFillThePlaceTableAndBookmarkEachPlace() async throws {
        let env = try Environment()
        defer { env.dir.remove() }
        let status = await env.feedline.run(names: ["openweather-places"], source: .fixtures, paths: env.paths())
        #expect(status == .success, "\(env.out.text)\n\(env.err.text)")
        #expect(try env.rows("SELECT query, name, local_name_ko, country, state, latitude, longitude, resolved_at, revision FROM place ORDER BY query") == [
            ["Gangnam-gu,KR", "Gangnam-gu", "강남구", "KR", "Seoul", "37.4959854", "127.0664091", "2024-03-06T05:30:00Z", "0"],
            ["Jongno-gu,KR", "Jongno-gu", "종로구", "KR", "NULL", "37.5735207", "126.9788345", "2024-03-06T05:30:00Z", "0"],
        ])
        #expect(try env.rows("SELECT name, value FROM bookmark WHERE pipeline = 'openweather-places' ORDER BY name")
                == [["place_Gangnam-gu,KR", "1709703000"], ["place_Jongno-gu,KR", "1709703000"]])
        // The fixtures come without requests: Gangnam's answer is not the pipeline's first q, and the empty one names no place.
        #expect(try env.rows("SELECT code, value FROM diagnostic ORDER BY id") == [["query-from-answer", "Gangnam-gu,KR"], ["place-not-found", "NULL"]])
        #expect(try env.rows("SELECT status, payloads FROM run") == [["succeeded", "3"]])
        // {places} reads the table: every place with coordinates, by query.
        let store = try SQLiteStore(readingAt: env.database.path)
        #expect(try OpenWeatherQueries.placeCoordinates(store.reading()) == [NamedCoordinate(name: "Gangnam-gu,KR", latitude: 37.4959854, longitude: 127.0664091),
                                                                           NamedCoordinate(name: "Jongno-gu,KR", latitude: 37.5735207, longitude: 126.9788345)])

        // Again: nothing changes.
        #expect(await env.feedline.run(names: ["openweather-places"], source: .fixtures, paths: env.paths()) == .success)
        #expect(try env.value("SELECT rows_inserted + rows_updated FROM run WHERE id = 2") == "0")
        #expect(try env.value("SELECT sum(revision) FROM place") == "0")
    }

    // MARK: - Live

    /// Answers `/geo/1.0/direct` by `q`: Jongno-gu and Gangnam-gu are known, anything else is `[]`.
    static func server() throws -> LoopbackServer {
        try LoopbackServer { request in
            let body: String
            switch request.query["q"] {
            case "Jongno-gu,KR": body = #"[{"name":"Jongno-gu","local_names":{"ko":"종로구","en":"Jongno-gu"},"lat":37.5735207,"lon":126.9788345,"country":"KR"}]"#
            case "Gangnam-gu,KR": body = #"[{"name":"Gangnam-gu","local_names":{"ko":"강남구"},"lat":37.4959854,"lon":127.0664091,"country":"KR","state":"Seoul"}]"#
            default: body = "[]"
            }
            return .respond(status: 200, contentType: "application/json; charset=utf-8", body: Data(body.utf8))
        }
    }

    static func pipeline(_ names: [String]) -> String {
        """
        source: openweather
        operation: geocode
        parameters:
          q: [\(names.map { "\"\($0)\"" }.joined(separator: ", "))]
        format: json
        """
    }

    @Test func eachNameIsAskedOnceAndARunWithNothingToAskSucceedsWithoutACall() async throws {
        let server = try Self.server()
        defer { server.stop() }
        var configured = try Environment()
        configured.variables["OPENWEATHER_API_KEY"] = EndToEndTests.key
        configured.base = server.baseURL
        let env = configured
        defer { env.dir.remove() }
        let directory = try env.writePipeline("places", Self.pipeline(["Jongno-gu,KR", "Gangnam-gu,KR"]))
        func run() async -> App.ExitStatus { await env.feedline.run(names: ["places"], source: .live, paths: env.paths(pipelines: directory)) }

        // First run: both names are asked, with the key, and stored.
        #expect(await run() == .success, "\(env.out.text)\n\(env.err.text)")
        #expect(server.requests.map(\.path) == ["/geo/1.0/direct", "/geo/1.0/direct"])
        #expect(server.requests.map { $0.query["q"] } == ["Jongno-gu,KR", "Gangnam-gu,KR"])
        #expect(server.requests.allSatisfy { $0.query["limit"] == "1" && $0.query["appid"] == EndToEndTests.key })
        #expect(try env.rows("SELECT query, name, state, latitude, longitude, resolved_at FROM place ORDER BY query") == [
            ["Gangnam-gu,KR", "Gangnam-gu", "Seoul", "37.4959854", "127.0664091", "2024-03-06T05:30:00Z"],
            ["Jongno-gu,KR", "Jongno-gu", "NULL", "37.5735207", "126.9788345", "2024-03-06T05:30:00Z"],
        ])
        #expect(try env.value("SELECT count(*) FROM diagnostic") == "0")

        // Second run: every name is resolved, so nothing is asked, and the run still succeeds.
        #expect(await run() == .success, "\(env.out.text)\n\(env.err.text)")
        #expect(server.requests.count == 2)
        #expect(try env.rows("SELECT id, status, payloads, rows_inserted FROM run ORDER BY id") == [["1", "succeeded", "2", "2"], ["2", "succeeded", "0", "0"]])
        #expect(try env.value("SELECT count(*) FROM place") == "2")

        // The dry run plans no request either.
        #expect(await env.feedline.run(names: ["places"], source: .live, paths: env.paths(pipelines: directory), dryRun: true) == .success)
        #expect(env.out.text.contains("0 requests, 0 calls"), "\(env.out.text)")

        // A name added to the list is asked, alone; one nothing matches is said so, and asked again next time.
        _ = try env.writePipeline("places", Self.pipeline(["Jongno-gu,KR", "Gangnam-gu,KR", "Atlantis,KR"]))
        #expect(await run() == .success, "\(env.out.text)\n\(env.err.text)")
        #expect(server.requests.dropFirst(2).map { $0.query["q"] } == ["Atlantis,KR"])
        #expect(try env.rows("SELECT code, value FROM diagnostic") == [["place-not-found", "Atlantis,KR"]])
        #expect(try env.value("SELECT count(*) FROM place") == "2")
        #expect(await run() == .success)
        #expect(server.requests.dropFirst(3).map { $0.query["q"] } == ["Atlantis,KR"])
        #expect(try env.leftBehind().range(of: Data("OWSENTINEL".utf8)) == nil, "the key was written somewhere")
    }
}
