import Pipeline

/// Turns a CareerNet error message into a typed `FeedError`.
///
/// CareerNet answers errors with HTTP 200 and a `message` inside `dataSearch.content` (no real
/// error body has been published, so the wording is unknown). The message is classified by
/// what it says: traffic or quota limits and temporary outages are transient; a bad key, a bad
/// parameter and anything unrecognised are terminal.
enum CareerNetAPIError {
    /// One class of error: its name, what to do, whether a retry can help, and words that mark it.
    struct Kind: Sendable {
        let name: String
        let meaning: String
        let retryability: Retryability
        let markers: [String]
    }

    static let kinds: [Kind] = [
        Kind(name: "TRAFFIC_LIMIT_EXCEEDED", meaning: "the call limit of the key is used up; retry later",
             retryability: .transient, markers: ["트래픽", "초과", "횟수", "limit", "exceed", "quota", "too many"]),
        Kind(name: "SERVICE_UNAVAILABLE", meaning: "the service is temporarily unavailable; retry later",
             retryability: .transient, markers: ["일시", "잠시", "점검", "timeout", "time out", "server error", "서버"]),
        Kind(name: "INVALID_API_KEY", meaning: "the apiKey is missing, wrong or not approved; check CAREERNET_API_KEY",
             retryability: .terminal, markers: ["인증", "apikey", "api key", "api_key", "키", "key"]),
        Kind(name: "INVALID_PARAMETER", meaning: "a request parameter is missing or wrong; fix the pipeline's parameters",
             retryability: .terminal, markers: ["파라미터", "parameter", "필수", "잘못", "invalid", "svccode", "gubun"]),
    ]

    /// The typed error for `message` (and an optional code the payload gave).
    static func error(message rawMessage: String, code: String?, context: String?) -> FeedError {
        let message = rawMessage.trimmingCharacters(in: .whitespacesAndNewlines)
        let lowered = message.lowercased()
        let kind = kinds.first { kind in kind.markers.contains { lowered.contains($0) } }
        let name = kind?.name ?? "API_ERROR"
        let sentence = "CareerNet answered with an error (“\(message)”): "
            + (kind?.meaning ?? "a message this feed does not know; treated as not retryable") + "."
        return FeedError(.api(code: code ?? "message", name: name), kind?.retryability ?? .terminal, sentence, context: context)
    }
}
