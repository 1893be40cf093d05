import Foundation
import OpenAQ
import Pipeline
import Testing
import TestSupport

/// What the feed asks OpenAQ for: paths with the id, `limit` and `page` first, windows always in
/// UTC with a `Z`, the key as a header requirement only, every refusal a sentence.
@Suite("OpenAQ requests")
struct RequestTests {
    let feed = OpenAQFeed()

    func spec(_ operation: String, _ parameters: [(name: String, values: [String])], format: PayloadFormat = .json,
              pageSize: Int = 1000) -> SourceSpec {
        SourceSpec(operation: operation, parameters: parameters, format: format, pageSize: pageSize, maxPages: 10)
    }

    func message(_ operation: String, _ parameters: [(name: String, values: [String])], format: PayloadFormat = .json,
                 pageSize: Int = 1000) -> String? {
        invalidRequestMessage(feed, spec(operation, parameters, format: format, pageSize: pageSize))
    }

    @Test("locations: one request, limit and page first, the key a header requirement, never a parameter")
    func locations() throws {
        let requests = try feed.requests(for: spec("locations", [("iso", ["kr"]), ("monitor", ["TRUE"])]))
        #expect(requests.map(\.displayURL) == ["https://api.openaq.org/v3/locations?limit=1000&page=1&iso=KR&monitor=true"])
        let request = try #require(requests.first)
        #expect(request.credential == CredentialRequirement(environmentVariable: "OPENAQ_API_KEY", placement: .header("X-API-Key")))
        #expect(request.headers["X-API-Key"] == nil && request.parameter("X-API-Key") == nil && !request.displayURL.contains("REDACTED"))
        #expect(request.page == 1 && request.format == .json && request.operation == "locations")
        #expect(feed.credentialVariable == "OPENAQ_API_KEY")

        let circle = try #require(try feed.requests(for: spec("location-list", [("coordinates", ["37.5665, 126.978"]), ("radius", ["12000"])])).first)
        #expect(circle.displayURL == "https://api.openaq.org/v3/locations?limit=1000&page=1&coordinates=37.5665%2C126.978&radius=12000")
        let box = try #require(try feed.requests(for: spec("locations", [("bbox", ["126.76,37.41,127.18,37.70"]), ("providers_id", ["223", "224"])])).first)
        #expect(box.query.map(\.name) == ["limit", "page", "bbox", "providers_id"])
        #expect(box.parameter("providers_id") == "223,224")
    }

    @Test("sensors, latest and hours: one request per id, in the order listed, the id in the path")
    func perID() throws {
        let sensors = try feed.requests(for: spec("sensors", [("locations_id", ["2623101", "2623102"])], pageSize: 100))
        #expect(sensors.map(\.displayURL) == [
            "https://api.openaq.org/v3/locations/2623101/sensors?limit=100&page=1",
            "https://api.openaq.org/v3/locations/2623102/sensors?limit=100&page=1",
        ])
        let latest = try feed.requests(for: spec("latest", [("locations_id", ["2623101"]), ("datetime_min", ["2024-03-06T00:00:00+09:00"])]))
        #expect(latest.map(\.displayURL) == ["https://api.openaq.org/v3/locations/2623101/latest?limit=1000&page=1&datetime_min=2024-03-05T15%3A00%3A00Z"])
        let hours = try feed.requests(for: spec("sensor-hours", [("sensors_id", ["7770102", "7770101"]), ("datetime_from", ["2024-03-06T00:00:00+09:00"])]))
        #expect(hours.map(\.baseURL.path) == ["/v3/sensors/7770102/hours", "/v3/sensors/7770101/hours"])
        #expect(hours.map { $0.parameter("datetime_from") } == ["2024-03-05T15:00:00Z", "2024-03-05T15:00:00Z"])
        #expect(hours.map { $0.parameter("datetime_to") } == ["2024-03-12T15:00:00Z", "2024-03-12T15:00:00Z"], "a week: the default window")
        #expect(hours[0].query.map(\.name) == ["limit", "page", "datetime_from", "datetime_to"])
        #expect(feed.operations == ["locations", "location-sensors", "location-latest", "sensor-hours"])
        #expect(feed.canonicalOperation("HOURS") == "sensor-hours" && feed.canonicalOperation("latest") == "location-latest")
    }

    @Test("paging: page n sets page=n; a page is last when it is empty or shorter than its limit, whatever found says")
    func paging() throws {
        let first = try #require(try feed.requests(for: spec("locations", [("iso", ["KR"])], pageSize: 100)).first)
        let third = try #require(feed.request(first, page: 3))
        #expect(third.parameter("page") == "3" && third.page == 3 && third.parameter("limit") == "100")
        #expect(feed.request(first, page: 0) == nil)
        #expect(!feed.isLastPage(PageSummary(itemCount: 100, reportedTotal: 100, pageNo: 1, numOfRows: 100), of: first), "found is never trusted")
        #expect(!feed.isLastPage(PageSummary(itemCount: 100, reportedTotal: nil, pageNo: 1, numOfRows: nil), of: first))
        #expect(feed.isLastPage(PageSummary(itemCount: 99, reportedTotal: 1500, pageNo: 1, numOfRows: 100), of: first))
        #expect(feed.isLastPage(PageSummary(itemCount: 0, reportedTotal: 1500, pageNo: 2, numOfRows: 100), of: first))
        // A server that caps the limit below what was asked: its own limit decides, so paging goes on.
        #expect(!feed.isLastPage(PageSummary(itemCount: 50, reportedTotal: nil, pageNo: 1, numOfRows: 50), of: first))
    }

    @Test("hours resume per sensor from its bookmark, less the overlap, never before datetime_from")
    func resuming() throws {
        let base = spec("sensor-hours", [("sensors_id", ["7770101", "7770102", "7770103"]), ("datetime_from", ["2024-03-01T00:00:00Z"]),
                                          ("window_hours", ["24"]), ("overlap_hours", ["2"])])
        let bookmarks = [
            OpenAQFeed.hoursBookmark(sensor: 7770101): "1709701200",   // 2024-03-06T05:00:00Z
            OpenAQFeed.hoursBookmark(sensor: 7770103): "1709200800",   // 2024-02-29T10:00:00Z: before datetime_from
            "newest_observed_at": "2024-03-06T06:00:00Z",
        ]
        let resumed = feed.resuming(base, bookmarks: bookmarks)
        #expect(resumed.parameters.last?.name == "resume_after")
        #expect(resumed.parameters.last?.values == ["7770101:1709701200", "7770103:1709200800"])
        let requests = try feed.requests(for: resumed)
        #expect(requests.map { "\($0.baseURL.pathComponents[3]) \($0.parameter("datetime_from")!) \($0.parameter("datetime_to")!)" } == [
            "7770101 2024-03-06T03:00:00Z 2024-03-07T03:00:00Z",
            "7770102 2024-03-01T00:00:00Z 2024-03-02T00:00:00Z",
            "7770103 2024-03-01T00:00:00Z 2024-03-02T00:00:00Z",
        ])
        #expect(requests.allSatisfy { $0.parameter("datetime_from")!.hasSuffix("Z") && $0.parameter("datetime_to")!.hasSuffix("Z") })
        // Other operations, no bookmarks, or resume_after written by hand: unchanged.
        #expect(feed.resuming(base, bookmarks: [:]) == base)
        let latest = spec("latest", [("locations_id", ["2623101"])])
        #expect(feed.resuming(latest, bookmarks: bookmarks) == latest)
        let manual = spec("sensor-hours", [("sensors_id", ["7770101"]), ("datetime_from", ["2024-03-01T00:00:00Z"]), ("resume_after", ["7770101:1709600000"])])
        #expect(feed.resuming(manual, bookmarks: bookmarks) == manual)
        // A sensor whose window reached datetime_to asks nothing more.
        let ended = spec("sensor-hours", [("sensors_id", ["7770101", "7770102"]), ("datetime_from", ["2024-03-01T00:00:00Z"]),
                                          ("datetime_to", ["2024-03-06T04:00:00Z"]), ("overlap_hours", ["0"])])
        let remaining = try feed.requests(for: feed.resuming(ended, bookmarks: bookmarks))
        #expect(remaining.map(\.baseURL.path) == ["/v3/sensors/7770102/hours"])
    }

    @Test("bad operations, formats, ids, filters, datetimes and windows are refused with a sentence")
    func refusals() {
        let kr: [(name: String, values: [String])] = [("iso", ["KR"])]
        #expect(message("measurements", kr)?.contains("no operation named “measurements”") == true)
        #expect(message("locations", kr, format: .xml)?.contains("set format: json") == true)
        #expect(message("locations", kr, pageSize: 5000)?.contains("must be 1…1000") == true)
        #expect(message("locations", kr + [("X-API-Key", ["abc"])])?.contains("comes from OPENAQ_API_KEY") == true)
        #expect(message("locations", kr + [("api_key", ["abc"])])?.contains("X-API-Key header") == true)
        #expect(message("locations", kr + [("limit", ["10"])])?.contains("set by the feed") == true)
        #expect(message("locations", kr + [("sort", ["desc"])])?.contains("not accepted by locations") == true)
        #expect(message("locations", [("iso", ["KOR"])])?.contains("ISO 3166-1 alpha-2") == true)
        #expect(message("locations", kr + [("countries_id", ["112"])])?.contains("iso or countries_id, not both") == true)
        #expect(message("locations", [("bbox", ["127.18,37.41,126.76,37.70"])])?.contains("minLon,minLat,maxLon,maxLat") == true)
        #expect(message("locations", [("coordinates", ["37.5,127"])])?.contains("radius is missing") == true)
        #expect(message("locations", [("radius", ["1000"])])?.contains("coordinates is missing") == true)
        #expect(message("locations", [("coordinates", ["127,37.5"]), ("radius", ["1000"])])?.contains("latitude first") == true)
        #expect(message("locations", [("coordinates", ["37.5,127"]), ("radius", ["30000"])])?.contains("1…25000") == true)
        #expect(message("locations", [("coordinates", ["37.5,127"]), ("radius", ["1000"]), ("bbox", ["126,37,127,38"])])?.contains("not both") == true)
        #expect(message("locations", [("monitor", ["yes"])])?.contains("true or false") == true)
        #expect(message("locations", [("providers_id", ["223,x"])])?.contains("“x”") == true)
        #expect(message("locations", [("iso", ["KR", "JP"])])?.contains("takes one value") == true)
        #expect(message("latest", [])?.contains("needs locations_id") == true)
        #expect(message("latest", [("locations_id", ["0"])])?.contains("not a positive whole number") == true)
        #expect(message("latest", [("locations_id", ["1", "1"])])?.contains("listed twice") == true)
        #expect(message("latest", [("locations_id", ["1"]), ("datetime_min", ["2024-03-06T00:00:00"])])?.contains("with an offset") == true)
        #expect(message("sensors", [("locations_id", ["1"]), ("datetime_min", ["2024-03-06T00:00:00Z"])])?.contains("not accepted by location-sensors") == true)
        #expect(message("hours", [("sensors_id", ["1"])])?.contains("needs datetime_from") == true)
        #expect(message("hours", [("sensors_id", ["1"]), ("datetime_from", ["2024-03-06"])])?.contains("with an offset") == true)
        #expect(message("hours", [("sensors_id", ["1"]), ("datetime_from", ["2024-03-06T00:00:00Z"]), ("datetime_to", ["2024-03-05T00:00:00Z"])])?
            .contains("must come before its datetime_to") == true)
        #expect(message("hours", [("sensors_id", ["1"]), ("datetime_from", ["2024-03-06T00:00:00Z"]), ("window_hours", ["0"])])?.contains("1…744") == true)
        #expect(message("hours", [("sensors_id", ["1"]), ("datetime_from", ["9999-12-31T00:00:00Z"])])?.contains("outside 1900…2200") == true)
        #expect(message("hours", [("sensors_id", ["1"]), ("datetime_from", ["2024-03-06T00:00:00Z"]), ("window_hours", ["6"]), ("overlap_hours", ["6"])])?
            .contains("must be shorter than its window_hours") == true)
        #expect(message("hours", [("sensors_id", ["1"]), ("datetime_from", ["2024-03-06T00:00:00Z"]), ("resume_after", ["2:1709701200"])])?
            .contains("not sensor:unix-seconds for a listed sensor") == true)
        #expect(message("hours", [("sensors_id", ["1"]), ("datetime_from", ["2024-03-06T00:00:00Z"]), ("iso", ["KR"])])?.contains("not accepted by sensor-hours") == true)
    }

    @Test("limits: 60 a minute and 2,000 an hour, paced; 48,000 a day for the quota; the quota scope per API path")
    func quota() throws {
        #expect(feed.dailyCallLimit == 48_000)
        #expect(OpenAQFeed.perMinuteCallLimit == 60 && OpenAQFeed.perHourCallLimit == 2_000)
        #expect(feed.rateLimits == [RateLimit(60, per: .minute), RateLimit(2_000, per: .hour)])
        #expect(feed.rateLimits.allSatisfy { $0.isPaced })
        #expect(QuotaLimits(feeds: [feed]).limit(for: "openaq") == 48_000)
        let locations = try #require(try feed.requests(for: spec("locations", [("iso", ["KR"])])).first)
        let hours = try #require(try feed.requests(for: spec("hours", [("sensors_id", ["1"]), ("datetime_from", ["2024-03-06T00:00:00Z"])])).first)
        #expect(QuotaScope.api(of: locations) == "v3")
        #expect(QuotaScope.api(of: hours) == "sensor-hours")
    }

    @Test("the feed declares its own tables and view, each prefixed with its name, with a writer per record type")
    func schema() {
        #expect(feed.schema.declarations.tables.map(\.name) == ["openaq_location", "openaq_sensor", "openaq_latest", "openaq_hourly", "openaq_hours_window"])
        #expect(feed.schema.declarations.views.map(\.name) == ["openaq_latest_measurement"])
        #expect(feed.schema.migrations.isEmpty)
        #expect(feed.schema.writers.count == 5)
        #expect(OpenAQFeed.hoursBookmark(sensor: 3920) == "sensor_3920_hours_through")
    }
}
