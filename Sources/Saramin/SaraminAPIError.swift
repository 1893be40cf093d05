import Pipeline

/// Turns a Saramin error answer into a typed `FeedError`.
///
/// No real Saramin error body has been published. The decoder accepts the shapes seen in
/// client code — `{"result":{"code":…,"message":…}}`, `{"code":…,"message":…}`,
/// `{"error":{…}}` and their XML forms — and classifies the message by what it says: call
/// limits and temporary outages are transient; a bad key, a bad parameter and anything
/// unrecognised are terminal.
enum SaraminAPIError {
    /// One class of error: its name, what to do, whether a retry can help, and words that mark it.
    struct Kind: Sendable {
        let name: String
        let meaning: String
        let retryability: Retryability
        let markers: [String]
    }

    static let kinds: [Kind] = [
        Kind(name: "CALL_LIMIT_EXCEEDED", meaning: "the key's call limit is used up; retry after it resets",
             retryability: .transient, markers: ["limit", "exceed", "quota", "too many", "초과", "횟수", "제한"]),
        Kind(name: "SERVICE_UNAVAILABLE", meaning: "the service is temporarily unavailable; retry later",
             retryability: .transient, markers: ["temporar", "timeout", "time out", "server error", "maintenance", "일시", "점검", "서버"]),
        Kind(name: "INVALID_ACCESS_KEY", meaning: "the access-key is missing, wrong or not approved; check SARAMIN_ACCESS_KEY",
             retryability: .terminal, markers: ["access-key", "access key", "accesskey", "key", "인증", "키"]),
        Kind(name: "INVALID_PARAMETER", meaning: "a request parameter is missing or wrong; fix the pipeline's parameters",
             retryability: .terminal, markers: ["parameter", "invalid", "파라미터", "잘못", "필수"]),
    ]

    /// The typed error for an answer with `code` and/or `message`.
    static func error(code: String?, message: String?, context: String?) -> FeedError {
        let said = [code, message].compactMap { $0?.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        let lowered = (message ?? "").lowercased()
        let kind = kinds.first { kind in kind.markers.contains { lowered.contains($0) } }
        let name = kind?.name ?? "API_ERROR"
        var sentence = "Saramin answered with an error"
        if !said.isEmpty { sentence += " (“\(said.joined(separator: "”, “"))”)" }
        sentence += ": " + (kind?.meaning ?? "an answer this feed does not know; treated as not retryable") + "."
        return FeedError(.api(code: code ?? "", name: name), kind?.retryability ?? .terminal, sentence, context: context)
    }
}
