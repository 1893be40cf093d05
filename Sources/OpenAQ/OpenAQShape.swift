import FeedCore
import Foundation
import Pipeline

/// What the first bytes of a payload say it is: an OpenAQ v3 page of one of the four calls
/// feedline reads, an OpenAQ error answer, or neither. Used for recognition (fixtures, bare
/// replays) and to check that a fetched answer is what its request asked for.
///
/// Every v3 list answer has the same envelope (`meta`, `results`), so the envelope says only
/// "OpenAQ"; the call is judged positively by the members of the first result (`shapes`). A
/// `/v3/parameters` result (`id`, `name`, `units` …) has the fields of none of them and is
/// refused, never read as a location.
enum OpenAQShape: Equatable {
    /// A `{"meta": …, "results": […]}` page; the call its results belong to, or nil when no
    /// result is in view (an empty page).
    case page(OpenAQEndpoint.Answer?)
    /// A page whose first result is of no call feedline reads (or of several): why.
    case unknown(String)
    /// `{"detail": …}` or `{"message": …}` with nothing else an answer holds.
    case error

    /// The results of each call feedline reads, by the members only that call's results hold
    /// together (nested members do not count: a sensor's `latest` has coordinates of its own).
    static let shapes = [
        PayloadShape(OpenAQEndpoint.locations.operation, requires: [["id"], ["coordinates", "country", "sensors", "timezone"]],
                     excludes: ["sensorsId", "locationsId", "period", "parameter", "units", "value"]),
        PayloadShape(OpenAQEndpoint.sensors.operation, requires: [["id"], ["parameter"]],
                     excludes: ["period", "value", "sensorsId", "coordinates", "country", "sensors", "units"]),
        PayloadShape(OpenAQEndpoint.latest.operation, requires: [["sensorsId"], ["value", "datetime"]],
                     excludes: ["period", "sensors", "country"]),
        PayloadShape(OpenAQEndpoint.hours.operation, requires: [["period"], ["parameter"], ["value"]],
                     excludes: ["sensorsId", "locationsId", "sensors", "country"]),
    ]

    /// Judges `head` (the first few KiB of the payload); nil when it is not OpenAQ's.
    static func of(head: Data) -> OpenAQShape? {
        guard PayloadArchive.sniffFormat(head) == .json else { return nil }
        let answer = HeadFields.json(head, path: [])
        if answer.has("results") && (answer.has("meta") || answer.has("found")) {
            switch HeadFields.jsonFirstElement(head, path: ["results"]) {
            case .empty, .absent:
                return .page(nil)
            case let first:
                switch Recognition.judge(shapes, what: "The OpenAQ results", has: first.has) {
                case .shape(let operation): return .page(OpenAQEndpoint.named(operation)?.answer)
                case .refused(let reason): return .unknown(reason)
                case .foreign: return nil
                }
            }
        }
        if let first = firstKey(of: head), first == "detail" || first == "message",
           !answer.has("cod"), !answer.has("code"), !answer.has("result"), !answer.has("response") {
            return .error
        }
        return nil
    }

    /// The first member name of a top-level JSON object, or nil.
    static func firstKey(of head: Data) -> String? {
        if case .members(let names) = HeadFields.json(head, path: []) { return names.first }
        return nil
    }
}
