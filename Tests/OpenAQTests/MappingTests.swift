import Foundation
import OpenAQ
import Pipeline
import Testing
import TestSupport

/// Given an answer, what the feed makes of it: typed errors for every error body, malformed
/// documents refused whole, rows placed by the request (or the file name), found as a hint only,
/// and the window a live hours page records.
@Suite("OpenAQ mapping")
struct MappingTests {
    func decode(_ json: String, name: String = "payload.json", request: FeedRequest? = nil, fallback: [String: String] = [:],
                fetchedAt: Date = OpenAQFixtures.fetchedAt, httpStatus: Int? = nil) throws -> DecodeResult {
        let (url, dir) = try temporaryPayload(json, name: name)
        defer { dir.remove() }
        return OpenAQFixtures.decode(url, request: request, fallback: fallback, fetchedAt: fetchedAt, httpStatus: httpStatus)
    }

    func request(_ operation: String, _ parameters: [(name: String, values: [String])], page: Int = 1) throws -> FeedRequest {
        let first = try #require(try OpenAQFeed().requests(for: OpenAQFixtures.spec(operation, parameters)).first)
        return try #require(OpenAQFeed().request(first, page: page))
    }

    static let hourRow = #"{"value": 24, "parameter": {"id": 2, "name": "pm25", "units": "µg/m³"}, "period": {"label": "1hour", "interval": "01:00:00", "datetimeFrom": {"utc": "2024-03-06T00:00:00Z", "local": "2024-03-06T09:00:00+09:00"}, "datetimeTo": {"utc": "2024-03-06T01:00:00Z", "local": "2024-03-06T10:00:00+09:00"}}}"#

    // MARK: - Errors

    @Test("every error body gives its typed error, with or without a request", arguments: [
        (#"{"message": "Unauthorized. A valid API key must be provided in the X-API-Key header."}"#, "401", "MISSING_API_KEY", Retryability.terminal),
        (#"{"detail": "Invalid credentials"}"#, "401", "INVALID_API_KEY", .terminal),
        (#"{"message": "invalid credentials"}"#, "401", "INVALID_API_KEY", .terminal),
        (#"{"detail": "Forbidden"}"#, "403", "FORBIDDEN", .terminal),
        (#"{"detail": "Location not found"}"#, "404", "NOT_FOUND", .terminal),
        (#"{"detail": "Connection timed out: Try to provide more specific query parameters or a smaller time frame."}"#, "408", "TIMEOUT", .transient),
        (#"{"detail": "Gone"}"#, "410", "GONE", .terminal),
        (#"{"detail": [{"loc": ["query", "radius"], "msg": "Input should be less than or equal to 25000", "type": "less_than_equal"}]}"#, "422", "VALIDATION_ERROR", .terminal),
        (#"{"detail": "Too many requests"}"#, "429", "RATE_LIMITED", .transient),
        (#"{"message": "Too many requests"}"#, "429", "RATE_LIMITED", .transient),
        (#"{"detail": "Internal Server Error"}"#, "500", "SERVER_ERROR", .transient),
        (#"{"detail": "something nobody documented"}"#, "", "API_ERROR", .terminal),
    ])
    func errorBodies(body: String, code: String, name: String, retry: Retryability) throws {
        for req in [nil, try request("locations", [("iso", ["KR"])]), try request("hours", [("sensors_id", ["1"]), ("datetime_from", ["2024-03-06T00:00:00Z"])])] {
            let result = try decode(body, request: req)
            #expect(result.feedError?.kind == .api(code: code, name: name), "\(body)")
            #expect(result.feedError?.retryability == retry, "\(body)")
            #expect(result.feedError?.isRateLimited == (code == "429"), "\(body)")
            #expect(result.sink.entries.isEmpty)
        }
    }

    @Test("a recorded HTTP status decides over the sentence; a bare JSON string is a 422 when it reads like one")
    func statusAndStringBodies() throws {
        let unavailable = try decode(#"{"detail": "upstream connect error"}"#, httpStatus: 503)
        #expect(unavailable.feedError?.kind == .api(code: "503", name: "SERVER_ERROR") && unavailable.feedError?.retryability == .transient)
        let notFound = try decode(#"{"detail": "Not here"}"#, request: try request("latest", [("locations_id", ["9"])]), httpStatus: 404)
        #expect(notFound.feedError?.kind == .api(code: "404", name: "NOT_FOUND"))
        let string = try decode(#""[{'type': 'int_parsing', 'loc': ('query', 'limit'), 'msg': 'Input should be a valid integer'}]""#,
                                request: try request("locations", [("iso", ["KR"])]))
        #expect(string.feedError?.kind == .api(code: "422", name: "VALIDATION_ERROR"))
        #expect(string.feedError?.message.contains("Input should be a valid integer") == true)
        #expect(string.feedError?.context?.contains("api.openaq.org/v3/locations") == true)
    }

    @Test("documents that are no OpenAQ page are refused whole")
    func malformedDocuments() throws {
        let locations = try request("locations", [("iso", ["KR"])])
        for (body, says) in [
            (#"[1, 2, 3]"#, "not an object"),
            (#"{"meta": {"found": 1}, "results": {"id": 1}}"#, "results is not an array"),
            (#"{"meta": {"found": 1}, "results": 7}"#, "results is not an array"),
            (#"{"meta": {"found": 1}}"#, "has no results"),
        ] {
            let result = try decode(body, request: locations)
            #expect(result.feedError?.kind == .malformed && result.feedError?.message.contains(says) == true, "\(body): \(String(describing: result.error))")
            #expect(result.sink.entries.isEmpty)
        }
        let sensorsAnswer = try decode(#"{"meta": {"found": 1}, "results": [\#(Self.hourRow)]}"#, request: locations)
        #expect(sensorsAnswer.feedError?.message.contains("request was for locations, but the answer holds sensor-hours") == true)
        let bare = try decode(#"{"rows": []}"#)
        #expect(bare.feedError?.kind == .unrecognised)
    }

    // MARK: - Placing rows

    @Test("hourly rows are placed by the request's path, else the file name, else sensors_id; with none they are refused")
    func placingHours() throws {
        let page = #"{"meta": {"found": 1}, "results": [\#(Self.hourRow)]}"#
        let fetched = try decode(page, request: try request("hours", [("sensors_id", ["3920"]), ("datetime_from", ["2024-03-05T00:00:00Z"])]))
        #expect(fetched.sink.hours.map(\.sensorID) == [3920])
        #expect(try decode(page, name: "saved-sensors_3921.json").sink.hours.map(\.sensorID) == [3921])
        #expect(try decode(page, name: "saved.json", fallback: ["sensors_id": "3922"]).sink.hours.map(\.sensorID) == [3922])
        let nowhere = try decode(page, name: "saved.json")
        #expect(nowhere.feedError?.kind == .malformed && nowhere.feedError?.message.contains("replay --param sensors_id=<id>") == true)
        #expect(nowhere.sink.entries.isEmpty)
        // A page with no rows needs no sensor.
        #expect(try decode(#"{"meta": {"found": 0}, "results": []}"#, name: "saved.json").summary?.itemCount == 0)
    }

    @Test("sensors take their location from the request, else the file name; a latest row without locationsId the request's")
    func placingSensorsAndLatest() throws {
        let page = #"{"meta": {"found": 1}, "results": [{"id": 3920, "name": "pm25 µg/m³", "parameter": {"id": 2, "name": "pm25", "units": "µg/m³", "displayName": "PM2.5"}}]}"#
        #expect(try decode(page, request: try request("sensors", [("locations_id", ["2178"])])).sink.sensors.map(\.locationID) == [2178])
        #expect(try decode(page, name: "location-2179-sensors.json").sink.sensors.map(\.locationID) == [2179])
        #expect(try decode(page, name: "sensors.json").sink.sensors.map(\.locationID) == [nil])
        let latest = #"{"meta": {"found": 1}, "results": [{"datetime": {"utc": "2024-03-06T05:00:00Z", "local": "2024-03-06T14:00:00+09:00"}, "value": 7.5, "coordinates": null, "sensorsId": 3920}]}"#
        #expect(try decode(latest, request: try request("latest", [("locations_id", ["2178"])])).sink.latest.map(\.locationID) == [2178])
        let orphan = try decode(latest, name: "latest.json")
        #expect(orphan.sink.latest.isEmpty && orphan.sink.diagnostics.map(\.code) == [.missingValue])
    }

    // MARK: - Paging hints and windows

    @Test("found is a hint: a number, >N or nonsense never changes what loads; nonsense is noted")
    func foundIsAHint() throws {
        let locations = try request("locations", [("iso", ["KR"])])
        for (found, total, noted) in [("3", 3, false), (#"">1000""#, nil, false), (#""lots""#, nil, true), ("null", nil, false), ("-1", nil, true)] as [(String, Int?, Bool)] {
            let result = try decode(#"{"meta": {"page": 1, "limit": 100, "found": \#(found)}, "results": []}"#, request: locations)
            #expect(result.summary == PageSummary(itemCount: 0, reportedTotal: total, pageNo: 1, numOfRows: 100), "\(found)")
            #expect(result.sink.diagnostics.map(\.code) == (noted ? [.openAQUnreadableFound] : []), "\(found)")
        }
    }

    @Test("a live hours page records its window once, on page 1, read no further than the fetch")
    func windowRecords() throws {
        let parameters: [(name: String, values: [String])] = [("sensors_id", ["3920"]), ("datetime_from", ["2024-03-06T00:00:00Z"]), ("window_hours", ["24"])]
        let empty = #"{"meta": {"found": 0}, "results": []}"#
        let first = try decode(empty, request: try request("hours", parameters))
        #expect(first.sink.scans.map(\.window.description) == ["(2024-03-06T00:00:00Z, 2024-03-07T00:00:00Z]"])
        #expect(first.sink.scans.map { OpenAQTime.format($0.scannedThrough) } == ["2024-03-06T05:30:00Z"], "the fetch came before the window's end")
        let later = try decode(empty, request: try request("hours", parameters), fetchedAt: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(later.sink.scans.map { OpenAQTime.format($0.scannedThrough) } == ["2024-03-07T00:00:00Z"])
        #expect(try decode(empty, request: try request("hours", parameters, page: 2)).sink.scans.isEmpty)
    }

    @Test("the id a bare file names: the number after location or sensor")
    func fileNames() {
        let cases: [(String, Int?)] = [("hours-sensor-7770102.json", 7770102), ("sensors_3920.json", 3920), ("sensor.json", nil),
                                       ("SENSOR-12-archive.json", 12), ("sensor-0.json", nil), ("x-sensor-a-sensor-5.json", 5)]
        for (name, id) in cases {
            #expect(OpenAQFeed.id(after: "sensor", in: name) == id, "\(name)")
        }
    }
}
