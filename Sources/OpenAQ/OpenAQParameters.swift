import Foundation
import Pipeline

/// A pipeline's parameters for one OpenAQ operation, checked: every refusal is a sentence
/// naming the parameter and what it must be.
struct OpenAQParameters {
    let operation: String
    let credentialVariable: String
    private(set) var values: [String: [String]] = [:]
    private(set) var order: [String] = []

    init(operation: String, credentialVariable: String) {
        self.operation = operation
        self.credentialVariable = credentialVariable
    }

    /// Parameters feedline itself sets, and names a key might be written under.
    static let setByFeed: Set<String> = ["limit", "page", "offset"]
    static let keyNames: Set<String> = ["x-api-key", "api_key", "apikey", "api-key", "key"]
    /// Parameters of `sensor-hours` that shape its windows rather than go to OpenAQ as they are.
    static let windowParameters = ["window_hours", "overlap_hours", OpenAQFeed.resumeParameter]

    mutating func add(_ name: String, _ raw: [String]) throws {
        if Self.keyNames.contains(name.lowercased()) {
            throw fail("The parameter \(name) must not be written in a pipeline: the key comes from \(credentialVariable) and is sent as the X-API-Key header.")
        }
        if Self.setByFeed.contains(name) {
            throw fail("The parameter \(name) is set by the feed (paging and page_size); remove it from the parameters of \(operation).")
        }
        let trimmed = raw.map { $0.trimmingCharacters(in: .whitespaces) }
        if trimmed.contains(where: \.isEmpty) { throw fail("The parameter \(name) of \(operation) is empty.") }
        if values[name] == nil { order.append(name) }
        values[name] = trimmed
    }

    private func fail(_ message: String) -> FeedError { FeedError(.invalidRequest, .terminal, message) }

    /// Refuses any parameter outside `accepted`.
    private func onlyAccepted(_ accepted: [String]) throws {
        for name in order where !accepted.contains(name) {
            throw fail("The parameter \(name) is not accepted by \(operation); it accepts \(accepted.joined(separator: ", ")).")
        }
    }

    /// The single value of `name`, or nil when absent.
    private func single(_ name: String) throws -> String? {
        guard let list = values[name] else { return nil }
        guard list.count == 1 else { throw fail("The parameter \(name) of \(operation) takes one value, not a list of \(list.count).") }
        return list[0]
    }

    // MARK: - Ids

    /// The positive whole numbers `name` lists (required), each once, in order.
    func ids(_ name: String) throws -> [Int] {
        guard let list = values[name] else {
            throw fail("\(operation) needs \(name): one id or a list of ids (one request each), e.g. \(name): [\"2178\", \"2179\"].")
        }
        var seen: Set<Int> = []
        return try list.map { raw in
            guard let id = Int(raw), id > 0 else { throw fail("The \(name) value “\(raw)” of \(operation) is not a positive whole number.") }
            guard seen.insert(id).inserted else { throw fail("The id \(id) is listed twice in \(name) of \(operation); list each once.") }
            return id
        }
    }

    /// Comma-separated positive whole numbers (a list is joined with commas), for OpenAQ's
    /// `…_id` filters.
    private func idList(_ name: String) throws -> QueryItem? {
        guard let list = values[name] else { return nil }
        let entries = list.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        for entry in entries {
            guard let n = Int(entry), n > 0 else { throw fail("The \(name) entry “\(entry)” of \(operation) is not a positive whole number.") }
        }
        return QueryItem(name, entries.joined(separator: ","))
    }

    // MARK: - locations

    /// The query of `locations`, in `accepted` order, after checking each value and their
    /// combinations (iso or countries_id; coordinates with radius, or bbox).
    func locationQuery(accepted: [String]) throws -> [QueryItem] {
        try onlyAccepted(accepted)
        var query: [String: QueryItem] = [:]
        if let iso = try single("iso") {
            guard iso.count == 2, iso.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                throw fail("The parameter iso of \(operation) is “\(iso)”, but it must be an ISO 3166-1 alpha-2 country code such as KR.")
            }
            query["iso"] = QueryItem("iso", iso.uppercased())
        }
        for name in ["countries_id", "providers_id", "owner_contacts_id", "parameters_id"] {
            if let item = try idList(name) { query[name] = item }
        }
        if query["iso"] != nil && query["countries_id"] != nil {
            throw fail("\(operation) takes iso or countries_id, not both; keep one.")
        }
        if let bbox = try single("bbox") {
            let parts = bbox.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 4, let minLon = parts[0], let minLat = parts[1], let maxLon = parts[2], let maxLat = parts[3],
                  (-180...180).contains(minLon), (-180...180).contains(maxLon), (-90...90).contains(minLat), (-90...90).contains(maxLat),
                  minLon < maxLon, minLat < maxLat else {
                throw fail("The parameter bbox of \(operation) is “\(bbox)”, but it must be minLon,minLat,maxLon,maxLat in degrees, each minimum below its maximum (e.g. \"126.76,37.41,127.18,37.70\" for Seoul).")
            }
            query["bbox"] = QueryItem("bbox", bbox.replacingOccurrences(of: " ", with: ""))
        }
        let coordinates = try single("coordinates"), radius = try single("radius")
        if let coordinates {
            let parts = coordinates.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2, let lat = parts[0], let lon = parts[1], (-90...90).contains(lat), (-180...180).contains(lon) else {
                throw fail("The parameter coordinates of \(operation) is “\(coordinates)”, but it must be latitude,longitude (latitude first), e.g. \"37.5665,126.978\".")
            }
            query["coordinates"] = QueryItem("coordinates", coordinates.replacingOccurrences(of: " ", with: ""))
        }
        if let radius {
            guard let metres = Int(radius), (1...25_000).contains(metres) else {
                throw fail("The parameter radius of \(operation) is “\(radius)”, but it must be whole metres in 1…25000.")
            }
            query["radius"] = QueryItem("radius", String(metres))
        }
        if (coordinates == nil) != (radius == nil) {
            throw fail("\(operation) takes coordinates and radius together (a circle); \(coordinates == nil ? "coordinates" : "radius") is missing.")
        }
        if coordinates != nil && query["bbox"] != nil {
            throw fail("\(operation) takes a circle (coordinates and radius) or a bbox, not both; keep one.")
        }
        for name in ["monitor", "mobile"] {
            if let flag = try single(name) {
                guard ["true", "false"].contains(flag.lowercased()) else {
                    throw fail("The parameter \(name) of \(operation) is “\(flag)”, but it must be true or false.")
                }
                query[name] = QueryItem(name, flag.lowercased())
            }
        }
        return accepted.compactMap { query[$0] }
    }

    // MARK: - location-sensors, location-latest

    /// The query of `location-sensors` and `location-latest` (besides the id): `datetime_min`
    /// for latest values, sent in UTC with a `Z`.
    func latestQuery(accepted: [String]) throws -> [QueryItem] {
        try onlyAccepted(accepted + ["locations_id"])
        guard let raw = try single("datetime_min") else { return [] }
        guard let instant = OpenAQTime.parse(raw) else {
            throw fail("The parameter datetime_min of \(operation) is “\(raw)”, but it must be a date and time with an offset (e.g. 2024-03-06T00:00:00+09:00 or …Z): OpenAQ would read one without an offset in each location's own time zone.")
        }
        return [QueryItem("datetime_min", OpenAQTime.format(instant))]
    }

    // MARK: - sensor-hours

    /// What the windows of `sensor-hours` are planned from.
    struct HoursPlan {
        var start: Date
        var end: Date?
        var window: TimeInterval
        var overlap: TimeInterval
        /// Each sensor's bookmark, from `resume_after`.
        var resume: [Int: Date]
    }

    /// Checks `datetime_from` (required), `datetime_to`, `window_hours`, `overlap_hours` and
    /// `resume_after` of `sensor-hours`.
    func hoursPlan(sensors: [Int]) throws -> HoursPlan {
        try onlyAccepted(["sensors_id", "datetime_from", "datetime_to"] + Self.windowParameters)
        func instant(_ name: String) throws -> Date? {
            guard let raw = try single(name) else { return nil }
            guard let value = OpenAQTime.parse(raw) else {
                throw fail("The parameter \(name) of \(operation) is “\(raw)”, but it must be a date and time with an offset (e.g. 2024-03-06T00:00:00+09:00 or …Z): OpenAQ would read one without an offset in the sensor's own time zone.")
            }
            guard OpenAQFields.plausible.contains(value) else {
                throw fail("The parameter \(name) of \(operation) is “\(raw)”, outside 1900…2200.")
            }
            return value
        }
        guard let start = try instant("datetime_from") else {
            throw fail("\(operation) needs datetime_from, where the first window of each sensor begins (exclusive), with an offset, e.g. \"{yesterday}T00:00:00+09:00\"; later runs resume from each sensor's bookmark.")
        }
        let end = try instant("datetime_to")
        if let end, end <= start { throw fail("The datetime_from of \(operation) must come before its datetime_to.") }
        func hours(_ name: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
            guard let raw = try single(name) else { return value }
            guard let n = Int(raw), range.contains(n) else {
                throw fail("The parameter \(name) of \(operation) is “\(raw)”, but it must be whole hours in \(range.lowerBound)…\(range.upperBound).")
            }
            return n
        }
        let window = try hours("window_hours", default: OpenAQFeed.defaultWindowHours, in: OpenAQFeed.windowHoursRange)
        let overlap = try hours("overlap_hours", default: min(OpenAQFeed.defaultOverlapHours, window - 1), in: OpenAQFeed.overlapHoursRange)
        guard overlap < window else {
            throw fail("The overlap_hours (\(overlap)) of \(operation) must be shorter than its window_hours (\(window)), or a resumed window would never move forward.")
        }
        var resume: [Int: Date] = [:]
        for pair in values[OpenAQFeed.resumeParameter] ?? [] {
            let parts = pair.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let id = Int(parts[0]), sensors.contains(id), let seconds = Int64(parts[1]), seconds > 0,
                  OpenAQFields.plausible.contains(Date(timeIntervalSince1970: TimeInterval(seconds))) else {
                throw fail("The \(OpenAQFeed.resumeParameter) entry “\(pair)” of \(operation) is not sensor:unix-seconds for a listed sensor (feedline writes these from each sensor's bookmark).")
            }
            resume[id] = Date(timeIntervalSince1970: TimeInterval(seconds))
        }
        return HoursPlan(start: start, end: end, window: TimeInterval(window * 3600), overlap: TimeInterval(overlap * 3600), resume: resume)
    }
}
