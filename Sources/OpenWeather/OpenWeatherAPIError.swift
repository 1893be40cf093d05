import Foundation
import FeedCore
import Pipeline

/// Turns an OpenWeather error answer into a typed `FeedError`.
///
/// OpenWeather answers errors with a small JSON body, `{"cod":401, "message":"Invalid API key.
/// …"}`, whose `cod` repeats the HTTP status — as a number on the air pollution endpoints, as a
/// string (`"404"`) on others — so it is compared as a whole number, however it is written.
/// Current weather answers also carry `"cod":200` on success, which is no error.
///
/// Retryability: 429 (more than 60 calls a minute, or the plan's calls used up) and 5xx are
/// transient; 400 (a wrong parameter), 401 (a missing, wrong or not yet active key) and 404
/// (nothing at that location or path) are terminal, as is any code this feed does not know.
///
/// In live runs an error answer sent with an HTTP error status (OpenWeather sends 401, 404 and
/// 429 that way) is classified from the status by the fetch stage, with the same retryability,
/// before its body is read; this mapping applies to every body that reaches the decoder: an
/// error behind HTTP 200, and saved answers in fixtures and replays.
enum OpenWeatherAPIError {
    /// One `cod`: its name, what it means and what to do, whether a retry can help.
    struct Code: Sendable {
        let name: String
        let meaning: String
        let retryability: Retryability
    }

    static let codes: [Int: Code] = [
        400: Code(name: "BAD_REQUEST", meaning: "a request parameter is missing or wrong (a coordinate out of range, a start after the end, an empty q …); fix the pipeline's parameters",
                  retryability: .terminal),
        401: Code(name: "INVALID_API_KEY", meaning: "the appid key is missing, wrong, not yet active or not allowed for this API; check OPENWEATHER_API_KEY",
                  retryability: .terminal),
        404: Code(name: "NOT_FOUND", meaning: "OpenWeather has nothing for this location or path; check the pipeline's coordinates and operation",
                  retryability: .terminal),
        429: Code(name: "RATE_LIMITED", meaning: "more than the plan's calls per minute (60 on the free plan), or its calls per month are used up; retry after a minute",
                  retryability: .transient),
        500: Code(name: "SERVER_ERROR", meaning: "OpenWeather failed; retry later", retryability: .transient),
        502: Code(name: "BAD_GATEWAY", meaning: "OpenWeather's gateway failed; retry later", retryability: .transient),
        503: Code(name: "SERVICE_UNAVAILABLE", meaning: "OpenWeather is temporarily unavailable; retry later", retryability: .transient),
        504: Code(name: "GATEWAY_TIMEOUT", meaning: "OpenWeather timed out; retry later", retryability: .transient),
    ]

    /// `cod` as a whole number (`401`, `"401"`, `"401.0"`), or nil.
    static func number(_ cod: String?) -> Int? { WireValue.standard.integer(cod) }

    /// Whether an answer with this `cod` is an error: any code but 2xx. A missing `cod` is not
    /// (air pollution answers carry none).
    static func isError(cod: String?) -> Bool {
        guard let text = WireValue.standard.text(cod) else { return false }
        guard let n = number(text) else { return true }
        return !(200..<300).contains(n)
    }

    /// The typed error for an answer with `cod` and `message`.
    static func error(cod: String?, message: String?, context: String?) -> FeedError {
        let codText = WireValue.standard.text(cod)
        let n = number(codText)
        let code = n.flatMap { codes[$0] }
        let said = WireValue.standard.text(message)
        var sentence = "OpenWeather answered with error \(codText ?? "(no code)")"
        if let said { sentence += " (“\(said)”)" }
        sentence += ": " + (code?.meaning ?? ((n ?? 0) >= 500 ? "a server error; retry later" : "an answer this feed does not know; treated as not retryable")) + "."
        let retryability = code?.retryability ?? ((n ?? 0) >= 500 ? .transient : .terminal)
        // 429 is the per-minute window (or the month's calls): waited for once, never looped.
        return FeedError(.api(code: n.map(String.init) ?? codText ?? "", name: code?.name ?? "API_ERROR"), retryability, sentence, context: context,
                         isRateLimited: n == 429)
    }
}

extension OpenWeatherFeed {
    /// A non-2xx answer read as OpenWeather words it (`{"cod": 401, "message": "…"}`, `cod` a
    /// number or a string); nil for a body that is not such an object (the status says it all).
    public func httpError(status: Int, body: Data, context: String) -> FeedError? {
        guard let said = try? JSONDecoder().decode(OpenWeatherErrorBody.self, from: body) else { return nil }
        return OpenWeatherAPIError.error(cod: said.cod ?? String(status), message: said.message, context: context)
    }
}

/// `cod` and `message` of an OpenWeather error body.
struct OpenWeatherErrorBody: Decodable {
    var cod: String?
    var message: String?

    private enum Key: String, CodingKey { case cod, message }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        cod = (try? c.decode(String.self, forKey: .cod)) ?? (try? c.decode(Int.self, forKey: .cod)).map(String.init)
        message = try? c.decode(String.self, forKey: .message)
        guard cod != nil || message != nil else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "neither cod nor message"))
        }
    }
}
