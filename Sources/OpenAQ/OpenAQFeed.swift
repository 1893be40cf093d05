import FeedCore
import Foundation
import Pipeline

/// OpenAQ (`api.openaq.org/v3`): air quality monitoring locations worldwide, their sensors, each
/// sensor's latest value and its hourly averages — JSON only.
///
/// Operations (aliases in parentheses):
/// - `locations` (`location-list`): `/v3/locations`, filtered by `iso` (`KR`) or `countries_id`,
///   `bbox` (`minLon,minLat,maxLon,maxLat`) or `coordinates` (`lat,lon`) with `radius` (metres,
///   ≤ 25,000), and `providers_id`, `owner_contacts_id`, `parameters_id`, `monitor`, `mobile`.
///   Each location's `sensors[]` load too, so latest values can find their parameter and unit.
/// - `location-sensors` (`sensors`): `/v3/locations/{locations_id}/sensors`.
/// - `location-latest` (`latest`): `/v3/locations/{locations_id}/latest` (optional
///   `datetime_min`): rows name only their sensor, not its parameter or unit;
///   `openaq_latest_measurement` joins them from `openaq_sensor`.
/// - `sensor-hours` (`hours`): `/v3/sensors/{sensors_id}/hours` over a window `(datetime_from,
///   datetime_to]`, planned per sensor by `OpenAQHoursWindow` from the pipeline's
///   `datetime_from` (required; an explicit offset), `datetime_to` (optional), `window_hours`
///   (longest window, default 168) and `overlap_hours` (default 6), and resumed per sensor (see
///   `resuming`).
/// A list of ids makes one request per id. Every call pages with `limit` (= `page_size`, at most
/// 1,000) and `page`, until a short or empty page; `meta.found` (a number or `">1000"`) is only a
/// hint.
///
/// The key, `OPENAQ_API_KEY`, goes in the `X-API-Key` header, added by the live transport; it
/// is never part of a request, so archived requests, logs and errors cannot show it.
///
/// Limits (free key): 60 calls a minute and 2,000 an hour, per key (`rateLimits`): live runs
/// pace calls to both (`RatePacer`), and a 429 all the same is waited out once, then the run
/// stops with exit 75. `dailyCallLimit` is the hourly limit over a day (48,000), counted per API
/// scope of feedline's quota (`QuotaScope.api`: `v3` for `locations`, the operation name for the
/// others), so set `FEEDLINE_QUOTA_OPENAQ` lower when several pipelines share one key. The
/// bundled pipelines make five calls an hour.
public struct OpenAQFeed: Feed {
    /// Where this feed's records go: its tables, migration and writers (`OpenAQTables`).
    public var schema: FeedSchema { OpenAQTables.schema }

    /// `openaq`.
    public let source = "openaq"
    /// `OPENAQ_API_KEY`: the key, sent as the `X-API-Key` header.
    public let credentialVariable = "OPENAQ_API_KEY"
    /// The API root the `v3/…` paths hang from (`https://api.openaq.org/` live).
    public let baseURL: URL

    /// Calls a key may make per minute (free key).
    public static let perMinuteCallLimit = 60
    /// Calls a key may make per hour (free key).
    public static let perHourCallLimit = 2_000
    /// The hourly limit over a day: 2,000 × 24 = 48,000.
    public let dailyCallLimit: Int? = OpenAQFeed.perHourCallLimit * 24
    /// 60 a minute and 2,000 an hour, both paced.
    public var rateLimits: [RateLimit] {
        [RateLimit(Self.perMinuteCallLimit, per: .minute), RateLimit(Self.perHourCallLimit, per: .hour)]
    }
    /// The largest `limit` OpenAQ serves.
    public static let maximumPageSize = 1_000
    /// Default and bounds of `window_hours` and `overlap_hours` (hours).
    public static let defaultWindowHours = 168
    public static let windowHoursRange = 1...744
    public static let defaultOverlapHours = 6
    public static let overlapHoursRange = 0...168
    /// The parameter `resuming` adds to a `sensor-hours` spec: `sensor:unix-seconds` pairs.
    public static let resumeParameter = "resume_after"

    /// A feed talking to `baseURL` (tests point it at a loopback server).
    public init(baseURL: URL = URL(string: "https://api.openaq.org/")!) {
        self.baseURL = baseURL
    }

    /// The four canonical operation names.
    public var operations: [String] { OpenAQEndpoint.all.map(\.operation) }

    /// Where the key goes: the `X-API-Key` header, filled by the live transport from
    /// `OPENAQ_API_KEY` (never stored in a request).
    public var credential: CredentialRequirement {
        CredentialRequirement(environmentVariable: credentialVariable, placement: .header("X-API-Key"))
    }

    /// The canonical name of the operation `name` designates (canonical or alias), or nil.
    public func canonicalOperation(_ name: String) -> String? { OpenAQEndpoint.named(name)?.operation }

    /// The bookmark holding how far `sensor`'s hours have been read (Unix seconds): raised by
    /// every hour and window loaded (`OpenAQTables`), read back by `resuming`.
    public static func hoursBookmark(sensor: Int) -> String { "sensor_\(sensor)_hours_through" }

    // MARK: - Requests and paging

    /// The first-page requests: one per id for the calls that hang from one (in the order
    /// listed), one for `locations`; for `sensor-hours`, none for a sensor whose window has
    /// reached `datetime_to`. Query order: `limit`, `page`, then the call's parameters. Throws
    /// `.invalidRequest` (terminal) naming the bad operation or parameter.
    public func requests(for spec: SourceSpec) throws -> [FeedRequest] {
        guard let endpoint = OpenAQEndpoint.named(spec.operation) else {
            throw invalid("The OpenAQ feed has no operation named “\(spec.operation)”; use one of \(operations.joined(separator: ", ")).")
        }
        guard spec.format == .json else { throw invalid("OpenAQ's \(endpoint.operation) is read as JSON only; set format: json.") }
        guard (1...Self.maximumPageSize).contains(spec.pageSize) else {
            throw invalid("The page size (limit) of \(endpoint.operation) must be 1…\(Self.maximumPageSize), not \(spec.pageSize); set page_size: \(Self.maximumPageSize).")
        }
        var given = OpenAQParameters(operation: endpoint.operation, credentialVariable: credentialVariable)
        for (name, values) in spec.parameters { try given.add(name, values) }
        let paging = [QueryItem("limit", String(spec.pageSize)), QueryItem("page", "1")]

        switch endpoint.answer {
        case .locations:
            return [request(endpoint, id: nil, query: paging + (try given.locationQuery(accepted: endpoint.parameters)))]
        case .sensors, .latest:
            let ids = try given.ids(endpoint.pathParameter!)
            let extra = try given.latestQuery(accepted: endpoint.parameters)
            return ids.map { request(endpoint, id: $0, query: paging + extra) }
        case .hours:
            let ids = try given.ids(endpoint.pathParameter!)
            let plan = try given.hoursPlan(sensors: ids)
            return ids.compactMap { id in
                guard let window = OpenAQHoursWindow.next(start: plan.start, end: plan.end, bookmark: plan.resume[id],
                                                          window: plan.window, overlap: plan.overlap) else { return nil }
                return request(endpoint, id: id, query: paging + [QueryItem("datetime_from", window.datetimeFrom), QueryItem("datetime_to", window.datetimeTo)])
            }
        }
    }

    private func request(_ endpoint: OpenAQEndpoint, id: Int?, query: [QueryItem]) -> FeedRequest {
        FeedRequest(source: source, operation: endpoint.operation, baseURL: baseURL.appendingPathComponent(endpoint.path(id: id)),
                    query: query, headers: ["Accept": "application/json"], format: .json, credential: credential, page: 1)
    }

    private func invalid(_ message: String) -> FeedError { FeedError(.invalidRequest, .terminal, message) }

    /// `request` for page `page` (1-based); nil below 1.
    public func request(_ request: FeedRequest, page: Int) -> FeedRequest? {
        guard page >= 1 else { return nil }
        var next = request.setting("page", to: String(page))
        next.page = page
        return next
    }

    /// The last page is an empty or short one: fewer results than the page's `meta.limit` (or,
    /// when the answer gives none, than the `limit` asked for — whichever is smaller). `found`
    /// is never used.
    public func isLastPage(_ summary: PageSummary, of request: FeedRequest) -> Bool {
        guard summary.itemCount > 0 else { return true }
        let asked = request.parameter("limit").flatMap { Int($0) }
        guard let limit = [asked, summary.numOfRows].compactMap({ $0 }).filter({ $0 > 0 }).min() else { return true }
        return summary.itemCount < limit
    }

    /// For `sensor-hours`: each listed sensor's bookmark (`hoursBookmark`, Unix seconds) as a
    /// `resume_after` pair, so its next window starts where its hours were read up to (less the
    /// overlap). Left alone for other operations, when no sensor has a bookmark, or when the
    /// pipeline writes `resume_after` itself.
    ///
    /// The runner keeps one `newest_observed_at` per pipeline; a pipeline of several sensors
    /// needs one resume point each. So the writers raise a bookmark per sensor
    /// (`TableWriting.raiseBookmark`, inside the load's transaction) and this reads them back:
    /// no port beyond the existing ones is needed. See `OpenAQHoursWindow` for how windows
    /// follow them, and why an empty window may not move one.
    public func resuming(_ spec: SourceSpec, bookmarks: [String: String]) -> SourceSpec {
        guard OpenAQEndpoint.named(spec.operation)?.answer == .hours,
              !spec.parameters.contains(where: { $0.name == Self.resumeParameter }),
              let sensors = spec.parameters.first(where: { $0.name == "sensors_id" })?.values else { return spec }
        let pairs = sensors.compactMap { raw -> String? in
            guard let id = Int(raw.trimmingCharacters(in: .whitespaces)), id > 0,
                  let value = bookmarks[Self.hoursBookmark(sensor: id)], let seconds = Int64(value.trimmingCharacters(in: .whitespaces)),
                  seconds > 0 else { return nil }
            return "\(id):\(seconds)"
        }
        guard !pairs.isEmpty else { return spec }
        var resumed = spec
        resumed.parameters.append((Self.resumeParameter, pairs))
        return resumed
    }

    // MARK: - Recognition and decoding

    /// The operation of an OpenAQ page, judged positively from the members of its first result
    /// (`OpenAQShape.shapes`: a location has coordinates, a country or sensors; a sensor a
    /// parameter and no period; a latest value its sensor and location ids; an hour its period);
    /// `locations` for an empty page or an OpenAQ error body (whose decoder raises the typed
    /// error); refused for a page of any other call (`/v3/parameters`, `/v3/countries` …).
    public func recognition(head: Data, format: PayloadFormat) -> Recognition {
        switch OpenAQShape.of(head: head) {
        case .page(let answer?): .shape(OpenAQEndpoint.answering(answer).operation)
        case .page(nil), .error: .shape(OpenAQEndpoint.locations.operation)
        case .unknown(let reason): .refused(reason)
        case nil: .foreign
        }
    }

    /// The operation `recognition(head:format:)` recognised, else nil.
    public func recognise(head: Data, format: PayloadFormat) -> String? {
        recognition(head: head, format: format).operation
    }

    /// Decodes a page of any of the four calls, or raises the typed error of an error body.
    ///
    /// The call comes from the request (or the archive's record of it), else from the bytes. The
    /// id a sensors or hours page is for comes from the request's path; for a file without one
    /// (a fixture, a bare replay) from its name (`…location-2178…`, `…sensor-3920…`), else from
    /// the pipeline's or `replay --param`'s `locations_id` / `sensors_id`.
    ///
    /// Throws `FeedError`: `.api` for error bodies (`OpenAQAPIError`), `.malformed` for
    /// malformed or truncated documents, answers that are not the call asked for, and hourly
    /// rows no sensor can be found for. An empty `results` is not an error. Nothing is delivered
    /// before the whole answer has been read.
    public func decode(_ payload: RawPayload, context: DecodeContext, into sink: inout some RecordSink) throws -> PageSummary {
        let request = payload.request ?? context.request
        let origin = request?.displayURL ?? payload.file.lastPathComponent
        let source = PayloadSource(payload)
        let head = try source.head(4096, origin: origin)  // enough to judge its shape
        let shape = OpenAQShape.of(head: head)
        let endpoint: OpenAQEndpoint
        if let name = request?.operation ?? payload.operation {
            guard let named = OpenAQEndpoint.named(name) else {
                throw FeedError(.unrecognised, .terminal, "“\(name)” is not an OpenAQ operation, so the payload cannot be decoded.", context: origin)
            }
            endpoint = named
            // A bare file's operation was itself judged from the bytes; a request's must match
            // them, and results of no call feedline reads are refused either way.
            if case .unknown(let reason) = shape { throw FeedError(.malformed, .terminal, reason, context: origin) }
            if request != nil, case .page(let answer?) = shape, answer != named.answer {
                throw FeedError(.malformed, .terminal,
                                "The request was for \(named.operation), but the answer holds \(OpenAQEndpoint.answering(answer).operation) results.",
                                context: origin)
            }
        } else {
            switch shape {
            case nil: throw FeedError(.unrecognised, .terminal, "The payload is not an OpenAQ answer.", context: origin)
            case .unknown(let reason): throw FeedError(.unrecognised, .terminal, reason, context: origin)
            case .page(let answer?): endpoint = OpenAQEndpoint.answering(answer)
            case .page(nil), .error: endpoint = .locations
            }
        }
        let contextID = Self.contextID(for: endpoint, request: request, fileName: payload.file.lastPathComponent,
                                       fallback: context.fallbackParameters)
        var window: (OpenAQHoursWindow, Bool)?
        if endpoint.answer == .hours, let request, let from = request.parameter("datetime_from").flatMap(OpenAQTime.parse),
           let to = request.parameter("datetime_to").flatMap(OpenAQTime.parse), let asked = OpenAQHoursWindow(from: from, to: to) {
            window = (asked, (request.page ?? request.parameter("page").flatMap { Int($0) } ?? 1) == 1)
        }
        let decoder = OpenAQDecoder(origin: origin, httpStatus: payload.httpStatus, fetchedAt: payload.fetchedAt, contextID: contextID,
                                    window: window.map { (window: $0.0, firstPage: $0.1) })
        return try decoder.decode(source, answer: endpoint.answer, into: &sink)
    }

    /// A sensors or hours page names neither its location nor its sensor (only the request path
    /// does): a bare file must name it in its file name (`location-2178`, `sensor-3920`) or be
    /// given `locations_id` / `sensors_id`. Without one a sensors page would load sensors of no
    /// location.
    public func contextParameters(for operation: String, fileName: String) -> [(name: String, values: String)] {
        guard let endpoint = OpenAQEndpoint.named(operation), let parameter = endpoint.pathParameter,
              Self.contextID(for: endpoint, request: nil, fileName: fileName, fallback: [:]) == nil else { return [] }
        return [(parameter, "the \(parameter == "sensors_id" ? "sensor" : "location") id the page was fetched for")]
    }

    /// The location or sensor id a page of `endpoint` is for: the request path's, else the file
    /// name's (`location-<id>`, `sensor-<id>`), else the fallback parameter's; nil for calls that
    /// need none.
    static func contextID(for endpoint: OpenAQEndpoint, request: FeedRequest?, fileName: String, fallback: [String: String]) -> Int? {
        guard let parameter = endpoint.pathParameter else { return nil }
        if let request { return endpoint.id(inPath: request.baseURL.path) }
        let word = parameter == "sensors_id" ? "sensor" : "location"
        if let named = id(after: word, in: fileName) { return named }
        return fallback[parameter].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0 > 0 ? $0 : nil }
    }

    /// The number after `word` in a file name (`hours-sensor-3920.json`, `sensors_2178`), or nil.
    public static func id(after word: String, in fileName: String) -> Int? {
        let name = fileName.lowercased()
        var search = name.startIndex
        while let found = name.range(of: word, range: search..<name.endIndex) {
            var rest = name[found.upperBound...].drop { "s-_ .".contains($0) }
            rest = rest.prefix { $0.isASCII && $0.isNumber }
            if let n = Int(rest), n > 0 { return n }
            search = found.upperBound
        }
        return nil
    }

}
