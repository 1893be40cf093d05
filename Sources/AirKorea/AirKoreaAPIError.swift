import FeedCore
import Pipeline

/// The data.go.kr error codes AirKorea answers with, from the gateway (`returnReasonCode` in an
/// `OpenAPI_ServiceResponse`) or from the provider (`resultCode` in the `response/header`).
/// Codes are compared as integers: `01` and `1` are the same code.
///
/// Retryability: quota, rate, timeouts and gateway/provider hiccups are transient; anything a
/// human must fix (key, parameters, retired service, blocked IP) is terminal. Choices where the
/// table is vague:
/// - `02` DB_ERROR: transient — the provider's database failed; a later call usually works.
/// - `03` NODATA_ERROR: terminal — the same request will find no data again. (AirKorea itself
///   answers an unknown station with an empty `00` page, which is not an error.)
/// - `99` UNKNOWN_ERROR: transient — unexplained failures are mostly passing; the retry policy
///   bounds the attempts.
/// - `30` SERVICE_KEY_IS_NOT_REGISTERED_ERROR: terminal, although a key approved within the last
///   hour can clear by itself; the error sentence says so.
/// - Codes not in the table: terminal.
struct AirKoreaErrorCode: Sendable, Equatable {
    let number: Int
    let name: String
    let meaning: String
    let retryability: Retryability
    /// The daily call quota is used up (code 22): not retried, and no more calls today.
    var exhaustsDailyQuota: Bool { number == 22 }

    /// Which layer answered.
    enum Layer: Sendable {
        /// data.go.kr's gateway (`OpenAPI_ServiceResponse/cmmMsgHeader`).
        case gateway
        /// AirKorea's own service (`response/header/resultCode`).
        case provider

        var who: String {
            switch self {
            case .gateway: "The data.go.kr gateway"
            case .provider: "AirKorea"
            }
        }
    }

    static let table: [Int: AirKoreaErrorCode] = {
        let entries: [AirKoreaErrorCode] = [
            .init(number: 1, name: "APPLICATION_ERROR", meaning: "an internal error of the gateway or the provider; retry later", retryability: .transient),
            .init(number: 2, name: "DB_ERROR", meaning: "the provider's database failed; retry later", retryability: .transient),
            .init(number: 3, name: "NODATA_ERROR", meaning: "the provider has no data for this request", retryability: .terminal),
            .init(number: 4, name: "HTTP_ERROR", meaning: "the HTTP request was bad or the provider's API failed; retry later", retryability: .transient),
            .init(number: 5, name: "SERVICETIMEOUT_ERROR", meaning: "the provider or the gateway timed out; retry later", retryability: .transient),
            .init(number: 10, name: "INVALID_REQUEST_PARAMETER_ERROR", meaning: "a parameter value or format is wrong; fix the pipeline's parameters", retryability: .terminal),
            .init(number: 11, name: "NO_MANDATORY_REQUEST_PARAMETERS_ERROR", meaning: "a required parameter is missing; fix the pipeline's parameters", retryability: .terminal),
            .init(number: 12, name: "NO_OPENAPI_SERVICE_ERROR", meaning: "the service does not exist or was retired; check the URL", retryability: .terminal),
            .init(number: 20, name: "SERVICE_ACCESS_DENIED_ERROR", meaning: "the key is missing, not approved for this API, or suspended", retryability: .terminal),
            .init(number: 21, name: "TEMPORARILY_DISABLE_THE_SERVICEKEY_ERROR", meaning: "the key is temporarily disabled; check its status on data.go.kr", retryability: .terminal),
            .init(number: 22, name: "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR", meaning: "the daily quota is used up; retry after it resets", retryability: .transient),
            .init(number: 23, name: "LIMITED_NUMBER_OF_SERVICE_REQUESTS_PER_SECOND_EXCEEDS_ERROR", meaning: "too many requests per second; retry more slowly", retryability: .transient),
            .init(number: 29, name: "BLACKLIST_IP_ACCESS_ERROR", meaning: "this IP address is blocked", retryability: .terminal),
            .init(number: 30, name: "SERVICE_KEY_IS_NOT_REGISTERED_ERROR", meaning: "the key is wrong, or was approved within the last hour and has not synced yet", retryability: .terminal),
            .init(number: 31, name: "DEADLINE_HAS_EXPIRED_ERROR", meaning: "the key's period of use has expired; extend it on data.go.kr", retryability: .terminal),
            .init(number: 32, name: "UNREGISTERED_IP_ERROR", meaning: "this IP address is not registered for the key", retryability: .terminal),
            .init(number: 33, name: "UNSIGNED_CALL_ERROR", meaning: "the call was not signed as the service requires", retryability: .terminal),
            .init(number: 99, name: "UNKNOWN_ERROR", meaning: "an unknown error; retry later", retryability: .transient),
        ]
        return Dictionary(uniqueKeysWithValues: entries.map { ($0.number, $0) })
    }()

    /// True when `code` means success (`00`, `0`).
    static func isSuccess(_ code: String) -> Bool {
        Int(Substring(code).trimmingASCIISpace()) == 0
    }

    /// The typed error for a non-success code, as one sentence.
    /// - Parameters:
    ///   - code: the code as written (`01`, `1`, `22`).
    ///   - reportedName: what the payload called it (`returnAuthMsg`, `resultMsg`), if anything.
    ///   - detail: extra text (`errMsg`), if any.
    static func error(layer: Layer, code rawCode: String, reportedName: String?, detail: String?, context: String?) -> FeedError {
        let trimmed = String(Substring(rawCode).trimmingASCIISpace())
        let number = Int(trimmed)
        let known = number.flatMap { table[$0] }
        let code = number.map(twoDigits) ?? trimmed
        let reported = reportedName.flatMap(WireValue.airKorea.text)
        let name = known?.name ?? reported ?? "UNKNOWN"

        var sentence = "\(layer.who) answered with error code \(code) \(name)"
        var said: [String] = []
        if let reported, reported != name { said.append(reported) }
        if let detail = detail.flatMap(WireValue.airKorea.text), detail != name, !said.contains(detail) { said.append(detail) }
        if !said.isEmpty { sentence += " (“\(said.joined(separator: "”, “"))”)" }
        sentence += ": " + (known?.meaning ?? "a code this feed does not know; treated as not retryable") + "."
        return FeedError(.api(code: code, name: name), known?.retryability ?? .terminal, sentence, context: context,
                         exhaustsDailyQuota: known?.exhaustsDailyQuota ?? false)
    }

    private static func twoDigits(_ n: Int) -> String { n >= 0 && n < 10 ? "0\(n)" : String(n) }
}
