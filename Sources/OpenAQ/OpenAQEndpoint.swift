import Foundation

/// One OpenAQ v3 call feedline makes: its operation name and aliases, its path below the API
/// root (with the id it hangs from), the query parameters a pipeline may pass, and what its
/// results hold. Adding a call adds a value here, and its mapping.
struct OpenAQEndpoint: Sendable, Hashable {
    /// Canonical operation name, used in pipelines, the archive and the ledger.
    let operation: String
    /// Other names a pipeline may use.
    let aliases: [String]
    /// The path's segments below the API root; `pathParameter`'s value replaces `{id}`.
    let pathTemplate: String
    /// The pipeline parameter whose values are the path's id, one request per value
    /// (`locations_id`, `sensors_id`); nil when the path has none.
    let pathParameter: String?
    /// Query parameters a pipeline may pass (besides `limit` and `page`, which the feed sets).
    let parameters: [String]
    /// What the `results` hold.
    let answer: Answer

    enum Answer: String, Sendable, Hashable {
        case locations, sensors, latest, hours
    }

    static let locations = OpenAQEndpoint(
        operation: "locations", aliases: ["location-list", "v3/locations"], pathTemplate: "v3/locations", pathParameter: nil,
        parameters: ["iso", "countries_id", "bbox", "coordinates", "radius", "providers_id", "owner_contacts_id", "parameters_id", "monitor", "mobile"],
        answer: .locations)
    static let sensors = OpenAQEndpoint(
        operation: "location-sensors", aliases: ["sensors", "locations/sensors"], pathTemplate: "v3/locations/{id}/sensors",
        pathParameter: "locations_id", parameters: [], answer: .sensors)
    static let latest = OpenAQEndpoint(
        operation: "location-latest", aliases: ["latest", "locations/latest"], pathTemplate: "v3/locations/{id}/latest",
        pathParameter: "locations_id", parameters: ["datetime_min"], answer: .latest)
    static let hours = OpenAQEndpoint(
        operation: "sensor-hours", aliases: ["hours", "sensors/hours", "hourly"], pathTemplate: "v3/sensors/{id}/hours",
        pathParameter: "sensors_id", parameters: ["datetime_from", "datetime_to"], answer: .hours)

    static let all = [locations, sensors, latest, hours]

    /// The endpoint `name` designates (canonical name or alias, case-insensitive), or nil.
    static func named(_ name: String) -> OpenAQEndpoint? {
        let wanted = name.trimmingCharacters(in: .whitespaces).lowercased()
        return all.first { $0.operation == wanted || $0.aliases.contains(wanted) }
    }

    /// The endpoint whose results hold `answer`.
    static func answering(_ answer: Answer) -> OpenAQEndpoint {
        all.first { $0.answer == answer }!
    }

    /// The path for `id` (`v3/locations/2178/sensors`).
    func path(id: Int?) -> String {
        pathTemplate.replacingOccurrences(of: "{id}", with: id.map(String.init) ?? "")
    }

    /// The id in a request path of this endpoint (`/v3/sensors/3920/hours` → 3920), or nil.
    func id(inPath path: String) -> Int? {
        let template = pathTemplate.split(separator: "/")
        let parts = path.split(separator: "/")
        guard parts.count >= template.count else { return nil }
        // The API root may have segments of its own: match the template against the end.
        let tail = parts.suffix(template.count)
        var id: Int?
        for (want, got) in zip(template, tail) {
            if want == "{id}" {
                guard let n = Int(got), n > 0 else { return nil }
                id = n
            } else if want != got {
                return nil
            }
        }
        return id
    }
}
