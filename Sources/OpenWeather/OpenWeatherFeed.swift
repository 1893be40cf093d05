import FeedCore
import Foundation
import Pipeline

/// OpenWeather (`api.openweathermap.org`): air pollution now, ahead and in the past, and the
/// current weather, at the coordinates a pipeline lists — one call per location, JSON only —
/// and the coordinates of place names (Geocoding API), resolved once and kept.
///
/// Operations (aliases in parentheses):
/// - `air-pollution` (`air_pollution`, `air-pollution-current`): `/data/2.5/air_pollution`
/// - `air-pollution-forecast` (`air_pollution/forecast`): `/data/2.5/air_pollution/forecast`
/// - `air-pollution-history` (`air_pollution/history`): `/data/2.5/air_pollution/history`,
///   with `start` and `end` (Unix seconds, UTC; data from 2020-11-27)
/// - `current-weather` (`weather`): `/data/2.5/weather`, with optional `units`
///   (`standard`, `metric`, `imperial`) and `lang`
/// - `geocode` (`geocoding`, `geo/1.0/direct`): `/geo/1.0/direct?q=…&limit=1`, one call per
///   place name in `q` (`"Jongno-gu,KR"`: a name, then optionally a state code and an ISO 3166
///   country code); the best match goes to the `place` table under the `q` it answers. Each
///   place stored raises the pipeline's bookmark `place_<q>` (`placeBookmark`), and `resuming`
///   leaves out every `q` that has one: a name is asked once, and a run whose names are all
///   resolved makes no call at all.
///
/// Locations (every operation but `geocode`): `lat` and `lon` (one value each, or two lists
/// paired in order — not crossed), or `coordinates`, a list of `"lat,lon"` strings. The key,
/// `OPENWEATHER_API_KEY`, is sent as the `appid` query parameter by the live transport (for
/// every operation); it is never part of a request, so archived URLs, logs and errors show
/// `appid=REDACTED`.
///
/// Limits: the free plan allows 1,000,000 calls a month and 60 a minute. `dailyCallLimit` is
/// the month spread over its longest length (1,000,000 ÷ 31 = 32,258 a day). feedline counts
/// calls per operation (the quota scope of a request is its operation), so operations sharing
/// one key are each allowed that many; set
/// `FEEDLINE_QUOTA_OPENWEATHER` lower when several run on one key. Live runs pace calls to
/// the per-minute limit (`rateLimits`, through `RatePacer`); a 429 all the same is waited out
/// once, then the run stops with exit 75.
public struct OpenWeatherFeed: Feed {
    /// Where this feed's records go: its tables, migration and writers (`OpenWeatherTables`).
    public var schema: FeedSchema { OpenWeatherTables.schema }

    /// `openweather`.
    public let source = "openweather"
    /// `OPENWEATHER_API_KEY`: the key, sent as the `appid` query parameter.
    public let credentialVariable = "OPENWEATHER_API_KEY"
    /// The API root the paths hang from (`https://api.openweathermap.org/` live).
    public let baseURL: URL

    /// Calls a key may make per month on the free plan.
    public static let monthlyCallLimit = 1_000_000
    /// The monthly limit spread over the longest month: 1,000,000 ÷ 31 = 32,258 calls a day.
    public let dailyCallLimit: Int? = OpenWeatherFeed.monthlyCallLimit / 31
    /// Calls a key may make per minute on the free plan.
    public static let perMinuteCallLimit = 60
    /// 60 a minute (paced) and 1,000,000 a month (checked by the dry run against the schedule).
    public var rateLimits: [RateLimit] {
        [RateLimit(Self.perMinuteCallLimit, per: .minute), RateLimit(Self.monthlyCallLimit, per: .month)]
    }

    /// A feed talking to `baseURL` (tests point it at a loopback server).
    public init(baseURL: URL = URL(string: "https://api.openweathermap.org/")!) {
        self.baseURL = baseURL
    }

    /// The five canonical operation names.
    public var operations: [String] { OpenWeatherEndpoint.all.map(\.operation) }

    /// Where the key goes: the `appid` query parameter, filled by the live transport from
    /// `OPENWEATHER_API_KEY` (never stored in a request).
    public var credential: CredentialRequirement {
        CredentialRequirement(environmentVariable: credentialVariable, placement: .query("appid"))
    }

    /// The canonical name of the operation `name` designates (canonical or alias), or nil.
    public func canonicalOperation(_ name: String) -> String? { OpenWeatherEndpoint.named(name)?.operation }

    /// The bookmark saying `query` (a `q` of `geocode`, trimmed) has been resolved: the Unix
    /// second it was, raised by the `place` writer (`OpenWeatherTables`) and read back by
    /// `resuming`.
    public static func placeBookmark(query: String) -> String { "place_\(query)" }

    /// The parameter `resuming` adds to a `geocode` spec: the `q` values it left out because
    /// they were resolved before. A `q` list emptied this way makes no request (and no error).
    public static let resolvedParameter = "resolved"

    // MARK: - Requests

    /// One request per location, in the order listed. Query order: `lat`, `lon`, then the
    /// operation's own parameters (`start`, `end`; `units`, `lang`). Throws `.invalidRequest`
    /// (terminal) naming the bad operation, parameter or location.
    public func requests(for spec: SourceSpec) throws -> [FeedRequest] {
        guard let endpoint = OpenWeatherEndpoint.named(spec.operation) else {
            throw FeedError(.invalidRequest, .terminal,
                            "The OpenWeather feed has no operation named “\(spec.operation)”; use one of \(operations.joined(separator: ", ")).")
        }
        guard spec.format == .json else {
            throw FeedError(.invalidRequest, .terminal, "OpenWeather's \(endpoint.operation) is read as JSON only; set format: json.")
        }
        if endpoint.answer == .places { return try placeRequests(spec, endpoint: endpoint) }
        var lat: [String]?, lon: [String]?, coordinates: [String]?
        var others: [QueryItem] = []
        for (name, values) in spec.parameters {
            switch name {
            case "lat": lat = values
            case "lon": lon = values
            case "coordinates": coordinates = values
            case "appid":
                throw FeedError(.invalidRequest, .terminal,
                                "The parameter appid must not be written in a pipeline: the key comes from \(credentialVariable).")
            default:
                others.append(try validated(name, values, for: endpoint))
            }
        }
        for required in endpoint.required where !others.contains(where: { $0.name == required }) {
            throw FeedError(.invalidRequest, .terminal,
                            "The parameter \(required) is required by \(endpoint.operation): \(endpoint.parameters.joined(separator: " and ")) as Unix seconds, UTC.")
        }
        if let start = others.first(where: { $0.name == "start" }).flatMap({ Int64($0.value) }),
           let end = others.first(where: { $0.name == "end" }).flatMap({ Int64($0.value) }), start >= end {
            throw FeedError(.invalidRequest, .terminal, "The start (\(start)) of \(endpoint.operation) must come before its end (\(end)).")
        }
        let locations: [OpenWeatherLocation]
        do {
            locations = try OpenWeatherLocation.locations(lat: lat, lon: lon, coordinates: coordinates, operation: endpoint.operation)
        } catch let problem as OpenWeatherLocation.LocationProblem {
            throw FeedError(.invalidRequest, .terminal, problem.message)
        }
        let order = endpoint.parameters
        others.sort { (order.firstIndex(of: $0.name) ?? order.count) < (order.firstIndex(of: $1.name) ?? order.count) }
        return locations.map { location in
            FeedRequest(source: source, operation: endpoint.operation, baseURL: baseURL.appendingPathComponent(endpoint.path),
                        query: [QueryItem("lat", location.latitudeText), QueryItem("lon", location.longitudeText)] + others,
                        format: .json, credential: credential)
        }
    }

    // MARK: - Resuming

    /// A run's spec given the pipeline's bookmarks: history starts where every location's
    /// history ends (`resumingHistory`), geocoding leaves out the names already resolved
    /// (`resumingPlaces`); other operations are left alone.
    public func resuming(_ spec: SourceSpec, bookmarks: [String: String]) -> SourceSpec {
        resumingPlaces(resumingHistory(spec, bookmarks: bookmarks), bookmarks: bookmarks)
    }

    // MARK: - Resuming history

    /// The bookmark a history load raises per location: the Unix second up to which its hours
    /// are loaded (`history_37.5665,126.9780_through`).
    public static func historyBookmark(latitude: Double, longitude: Double) -> String {
        String(format: "history_%.4f,%.4f_through", latitude, longitude)
    }

    /// For `air-pollution-history`: `start` moves up to the oldest point every listed location's
    /// history is loaded to, so a scheduled history pipeline (`end: "{now}"`) asks only for what
    /// it does not have. A location without a bookmark (never loaded, or answered at other
    /// coordinates) keeps the pipeline's `start` for all; the last loaded hour is asked again,
    /// so `start` always stays before `end`.
    func resumingHistory(_ spec: SourceSpec, bookmarks: [String: String]) -> SourceSpec {
        guard OpenWeatherEndpoint.named(spec.operation)?.answer == .airPollution(.history),
              let startText = spec.parameters.first(where: { $0.name == "start" })?.values.first,
              let start = Int64(startText.trimmingCharacters(in: .whitespaces)),
              let endText = spec.parameters.first(where: { $0.name == "end" })?.values.first,
              let end = Int64(endText.trimmingCharacters(in: .whitespaces)),
              let locations = try? OpenWeatherLocation.locations(
                lat: spec.parameters.first { $0.name == "lat" }?.values, lon: spec.parameters.first { $0.name == "lon" }?.values,
                coordinates: spec.parameters.first { $0.name == "coordinates" }?.values, operation: spec.operation),
              !locations.isEmpty else { return spec }
        // Only plausible Unix seconds take part in the arithmetic below (a bad file or a corrupt
        // bookmark is left for `requests(for:)` to refuse, or simply not resumed from).
        let plausible: ClosedRange<Int64> = 0...7_258_118_400  // 1970…2200
        guard plausible.contains(start), plausible.contains(end), start < end else { return spec }
        let through = locations.map { bookmarks[Self.historyBookmark(latitude: $0.latitude, longitude: $0.longitude)].flatMap { Int64($0) } }
        guard through.allSatisfy({ $0.map(plausible.contains) ?? false }), let oldest = through.compactMap({ $0 }).min() else { return spec }
        let resumed = min(max(start, oldest - 3600), end - 1)
        guard resumed > start else { return spec }
        var copy = spec
        copy.parameters = spec.parameters.map { $0.name == "start" ? ("start", [String(resumed)]) : $0 }
        return copy
    }

    /// `geocode`: one request per `q` value, in the order listed (`q`, then `limit=1`). A `q`
    /// that `resuming` emptied (every name resolved, named in `resolved`) gives no request; a
    /// `q` missing or empty otherwise, an empty or repeated name, or a location is refused.
    private func placeRequests(_ spec: SourceSpec, endpoint: OpenWeatherEndpoint) throws -> [FeedRequest] {
        func refuse(_ message: String) -> FeedError { FeedError(.invalidRequest, .terminal, message) }
        let example = "e.g. q: [\"Jongno-gu,KR\", \"Gangnam-gu,KR\"] (a place name, then an ISO 3166 country code)"
        var names: [String]?
        var resolved: [String] = []
        for (name, values) in spec.parameters {
            switch name {
            case "q": names = (names ?? []) + values
            case Self.resolvedParameter: resolved += values
            case "appid":
                throw refuse("The parameter appid must not be written in a pipeline: the key comes from \(credentialVariable).")
            case "lat", "lon", "coordinates":
                throw refuse("\(endpoint.operation) finds the coordinates of place names: give the names in q (\(example)), not \(name).")
            case "limit":
                throw refuse("\(endpoint.operation) keeps the best match of each name only, so it always sends limit=1; remove limit.")
            default:
                throw refuse("The parameter \(name) is not accepted by \(endpoint.operation); it accepts q, the place names to resolve (\(example)).")
            }
        }
        guard let names else {
            throw refuse("\(endpoint.operation) needs q, the place names to resolve (\(example)).")
        }
        var seen: Set<String> = []
        let queries = try names.map { raw in
            let q = raw.trimmingCharacters(in: .whitespaces)
            guard !q.isEmpty else { throw refuse("The q of \(endpoint.operation) lists an empty place name; \(example).") }
            guard seen.insert(q.lowercased()).inserted else {
                throw refuse("The place name “\(q)” is listed twice in the q of \(endpoint.operation); list each name once.")
            }
            return q
        }
        guard !queries.isEmpty || !resolved.isEmpty else {
            throw refuse("The q of \(endpoint.operation) lists no place name; \(example).")
        }
        return queries.map { q in
            FeedRequest(source: source, operation: endpoint.operation, baseURL: baseURL.appendingPathComponent(endpoint.path),
                        query: [QueryItem("q", q), QueryItem("limit", "1")], format: .json, credential: credential)
        }
    }

    /// For `geocode`: leaves out of `q` every name whose `placeBookmark` is set (it was
    /// resolved and stored by an earlier run of the pipeline) and names them in `resolved`, so
    /// the request list shrinks to the names still unknown — to none when all are known.
    func resumingPlaces(_ spec: SourceSpec, bookmarks: [String: String]) -> SourceSpec {
        guard OpenWeatherEndpoint.named(spec.operation)?.answer == .places,
              let index = spec.parameters.firstIndex(where: { $0.name == "q" }) else { return spec }
        func isResolved(_ raw: String) -> Bool {
            let q = raw.trimmingCharacters(in: .whitespaces)
            guard !q.isEmpty, let value = bookmarks[Self.placeBookmark(query: q)],
                  let seconds = Int64(value.trimmingCharacters(in: .whitespaces)) else { return false }
            return seconds > 0
        }
        let values = spec.parameters[index].values
        let done = values.filter(isResolved)
        guard !done.isEmpty else { return spec }
        var resumed = spec
        resumed.parameters[index] = ("q", values.filter { !isResolved($0) })
        resumed.parameters.append((Self.resolvedParameter, done.map { $0.trimmingCharacters(in: .whitespaces) }))
        return resumed
    }

    /// OpenWeather answers in one page: nil.
    public func request(_ request: FeedRequest, page: Int) -> FeedRequest? { nil }

    /// Every answer is the last (and only) page.
    public func isLastPage(_ summary: PageSummary, of request: FeedRequest) -> Bool { true }

    private func validated(_ name: String, _ values: [String], for endpoint: OpenWeatherEndpoint) throws -> QueryItem {
        guard endpoint.parameters.contains(name) else {
            let accepted = (["lat", "lon", "coordinates"] + endpoint.parameters).joined(separator: ", ")
            throw FeedError(.invalidRequest, .terminal, "The parameter \(name) is not accepted by \(endpoint.operation); it accepts \(accepted).")
        }
        guard values.count == 1, let raw = values.first else {
            throw FeedError(.invalidRequest, .terminal, "The parameter \(name) of \(endpoint.operation) takes one value, not a list of \(values.count).")
        }
        let value = raw.trimmingCharacters(in: .whitespaces)
        guard !value.isEmpty else { throw FeedError(.invalidRequest, .terminal, "The parameter \(name) of \(endpoint.operation) is empty.") }
        switch name {
        case "start", "end":
            guard let seconds = Int64(value), seconds >= 0 else {
                throw FeedError(.invalidRequest, .terminal,
                                "The parameter \(name) of \(endpoint.operation) is “\(value)”, but it must be Unix seconds, UTC (e.g. 1709683200).")
            }
        case "units":
            guard OpenWeatherUnits(rawValue: value) != nil else {
                throw FeedError(.invalidRequest, .terminal,
                                "The parameter units of \(endpoint.operation) is “\(value)”, but it must be standard (K), metric (°C) or imperial (°F).")
            }
        case "lang":
            guard (2...5).contains(value.count), value.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_") }) else {
                throw FeedError(.invalidRequest, .terminal, "The parameter lang of \(endpoint.operation) is “\(value)”, but it must be a language code such as kr or en.")
            }
        default:
            break
        }
        return QueryItem(name, value)
    }

    // MARK: - Recognition and decoding

    /// The answers feedline reads, by the top-level members that make each one: an air
    /// pollution answer is `coord` and `list` (of `components`; current, forecast or history,
    /// the decoder works out which); a current weather answer `weather`, `main` and `dt`; an
    /// error answer `cod` and `message` and no `list` (read as `air-pollution`, whose decoder
    /// raises the typed error). The 5-day weather forecast (`list` of weather with a `city`)
    /// and One Call (`current`, `hourly`) are none of them.
    static let shapes = [
        PayloadShape(OpenWeatherEndpoint.airPollution.operation, requires: [["coord"], ["list"]],
                     excludes: ["weather", "main", "city", "cnt", "current", "hourly"]),
        PayloadShape(OpenWeatherEndpoint.weather.operation, requires: [["weather"], ["main"], ["dt"]],
                     excludes: ["list", "current", "hourly"]),
        PayloadShape(OpenWeatherEndpoint.airPollution.operation, requires: [["cod"], ["message"]],
                     excludes: ["list", "coord", "weather", "main", "current"], name: "an error answer"),
    ]

    /// The members of a place, one element of a geocoding answer (a JSON array): `lat`, `lon`
    /// and a `name`, `country` or `local_names`.
    static let place = [PayloadShape(OpenWeatherEndpoint.geocode.operation, requires: [["lat"], ["lon"], ["name", "country", "local_names"]])]

    /// Judged positively from the answer's top-level members (`shapes`), or from the first
    /// element of an array (a geocoding answer, `place`; empty: no place found). Refused when
    /// an OpenWeather-like answer has the members of none of them.
    public func recognition(head: Data, format: PayloadFormat) -> Recognition {
        guard (PayloadArchive.sniffFormat(head) ?? format) == .json else { return .foreign }
        let start = head.drop(while: { WireValue.isSpace($0) || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF })
        let fields = HeadFields.json(head, path: [])
        if start.first == UInt8(ascii: "[") {
            if fields == .empty { return .shape(OpenWeatherEndpoint.geocode.operation) }
            let judged = Recognition.judge(Self.place, what: "The array's first element's members", has: fields.has)
            return judged.operation == nil ? .foreign : judged
        }
        // Only an answer with some OpenWeather member is OpenWeather's to judge (or refuse).
        let own = ["coord", "list", "weather", "main", "cod", "dt", "city", "current", "hourly", "timezone_offset"]
        guard own.contains(where: fields.has) else { return .foreign }
        return Recognition.judge(Self.shapes, what: "The OpenWeather answer's members", has: fields.has)
    }

    /// Current weather needs its `units`: an answer does not say them, and without them its
    /// temperatures would be read as kelvin. Air pollution and geocoding answers mean the same
    /// under any request parameter that is not in them.
    public func contextParameters(for operation: String, fileName: String) -> [(name: String, values: String)] {
        guard OpenWeatherEndpoint.named(operation)?.answer == .weather else { return [] }
        return [("units", "one of " + OpenWeatherUnits.allCases.map(\.rawValue).joined(separator: ", "))]
    }

    /// The operation `recognition(head:format:)` recognised, else nil.
    public func recognise(head: Data, format: PayloadFormat) -> String? {
        recognition(head: head, format: format).operation
    }

    /// Decodes an answer of any of the five operations.
    ///
    /// The operation comes from the request (or the archive's record of it); without one (a
    /// fixture, a bare file) from the bytes, and an air pollution answer's kind from the file
    /// name or the entries (`AirPollutionMapping.inferredKind`). Weather units come from the
    /// request's `units`, else the pipeline's (`context.fallbackParameters`), else `standard`. A
    /// geocoding answer is read by `GeocodingDecoder`, under the request's `q` (else the
    /// pipeline's, when the answer names that place; else its own name and country).
    ///
    /// Throws `FeedError`: `.api` for error answers (`cod` 401, 404, 429 …), `.malformed` for
    /// malformed or truncated documents and for answers that are not what was asked,
    /// `.invalidRequest` for units that are none of OpenWeather's. An empty `list` is not an
    /// error, and an empty geocoding answer is a `place-not-found` diagnostic naming the `q`.
    /// Nothing is delivered before the whole answer has been read.
    public func decode(_ payload: RawPayload, context: DecodeContext, into sink: inout some RecordSink) throws -> PageSummary {
        let request = payload.request ?? context.request
        let origin = request?.displayURL ?? payload.file.lastPathComponent
        var expected: OpenWeatherEndpoint?
        if let name = request?.operation ?? payload.operation {
            guard let endpoint = OpenWeatherEndpoint.named(name) else {
                throw FeedError(.unrecognised, .terminal, "“\(name)” is not an OpenWeather operation, so the payload cannot be decoded.",
                                context: origin)
            }
            expected = endpoint
        }
        if expected?.answer == .places {
            let query: GeocodingDecoder.Query
            if let asked = request?.parameter("q") {
                query = .asked(asked)
            } else if let fallback = context.fallbackParameters["q"]?.trimmingCharacters(in: .whitespaces), !fallback.isEmpty {
                query = .fallback(fallback)
            } else {
                query = .unknown
            }
            return try GeocodingDecoder(origin: origin).decode(PayloadSource(payload), query: query, resolvedAt: payload.fetchedAt, into: &sink)
        }
        let kind: OpenWeatherDecoder.KindSource
        // A request's operation is what was fetched; a bare file's recognised `air-pollution`
        // only says "air pollution", so its kind is inferred (an explicit forecast or history
        // name is kept).
        if let expected, case .airPollution(let declared) = expected.answer, request != nil || declared != .current {
            kind = .declared(declared)
        } else {
            kind = .inferred(fileName: payload.file.lastPathComponent, fetchedAt: payload.fetchedAt)
        }
        let unitsText = request?.parameter("units") ?? context.fallbackParameters["units"]
        let units: OpenWeatherUnits
        if let unitsText {
            guard let known = OpenWeatherUnits(rawValue: unitsText.trimmingCharacters(in: .whitespaces)) else {
                throw FeedError(.invalidRequest, .terminal,
                                "The units “\(unitsText)” are none of OpenWeather's (standard, metric, imperial), so temperatures cannot be read.",
                                context: origin)
            }
            units = known
        } else {
            units = .apiDefault
        }
        let requested = request.flatMap { OpenWeatherLocation.of(latitude: $0.parameter("lat"), longitude: $0.parameter("lon")) }
        let decoder = OpenWeatherDecoder(origin: origin, requested: requested)
        // Only a request says what must come back: a recognised bare file may hold either answer.
        let answer: OpenWeatherEndpoint.Answer? = request == nil ? nil : expected.map { endpoint in
            switch endpoint.answer {
            case .airPollution: .airPollution(.current)
            case .weather, .places: endpoint.answer
            }
        }
        return try decoder.decode(PayloadSource(payload), expected: answer, kind: kind, units: units, into: &sink)
    }
}
