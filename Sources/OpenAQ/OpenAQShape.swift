import FeedCore
import Foundation

/// What the first bytes of a payload say it is: an OpenAQ v3 page (and, when a result is in
/// view, of which call), an OpenAQ error answer, or neither. Used for recognition (fixtures,
/// bare replays) and to check that a fetched answer is what its request asked for.
enum OpenAQShape: Equatable {
    /// A `{"meta": …, "results": […]}` page; the call its results belong to, or nil when no
    /// result is in view (an empty page).
    case page(OpenAQEndpoint.Answer?)
    /// `{"detail": …}` or `{"message": …}` with nothing else an answer holds.
    case error

    /// Judges `head` (the first few KiB of the payload); nil when it is not OpenAQ's.
    static func of(head: Data) -> OpenAQShape? {
        let text = String(decoding: head, as: UTF8.self)
        func has(_ key: String) -> Bool { text.contains("\"\(key)\"") }
        guard PayloadArchive.sniffFormat(head) == .json else { return nil }
        if has("results") && (has("meta") || has("found")) {
            if has("period") { return .page(.hours) }
            if has("sensorsId") || has("locationsId") { return .page(.latest) }
            if has("isMobile") || has("isMonitor") || has("timezone") || has("instruments") { return .page(.locations) }
            if has("parameter") { return .page(.sensors) }
            return .page(nil)
        }
        if let first = firstKey(of: text), first == "detail" || first == "message",
           !has("cod"), !has("code"), !has("result"), !has("response") {
            return .error
        }
        return nil
    }

    /// The first member name of a top-level JSON object, or nil.
    static func firstKey(of text: String) -> String? {
        var rest = Substring(text)
        if rest.hasPrefix("\u{FEFF}") { rest = rest.dropFirst() }
        rest = rest.drop { $0.isWhitespace }
        guard rest.first == "{" else { return nil }
        rest = rest.dropFirst().drop { $0.isWhitespace }
        guard rest.first == "\"" else { return nil }
        rest = rest.dropFirst()
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }
}
