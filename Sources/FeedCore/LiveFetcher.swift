import Foundation
import Pipeline

/// The live fetch stage: adds the secret from the environment, performs the GET, classifies
/// HTTP failures, and archives the bytes before anyone parses them.
///
/// Secrets: the key is looked up per request from `environment` and added to the URL only at
/// the moment of sending; every message this type produces is scrubbed of it.
public struct LiveFetcher: PayloadFetching {
    public let transport: any HTTPTransport
    public let environment: [String: String]
    public let archive: PayloadArchive
    public let clock: @Sendable () -> Date

    public init(transport: any HTTPTransport, environment: [String: String], archive: PayloadArchive, clock: @escaping @Sendable () -> Date) {
        self.transport = transport
        self.environment = environment
        self.archive = archive
        self.clock = clock
    }

    /// Fails at once, naming the variable, when a request needs a key that is not set.
    public func checkCredential(_ requirement: CredentialRequirement?) throws {
        guard let requirement else { return }
        guard let key = environment[requirement.environmentVariable], !key.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw FeedError(.missingCredential(requirement.environmentVariable), .terminal,
                            "Live mode needs an API key: set \(requirement.environmentVariable) in the environment (or run with --fixtures).")
        }
    }

    public func fetch(_ request: FeedRequest) async throws -> RawPayload {
        try checkCredential(request.credential)
        let secret = request.credential.flatMap { environment[$0.environmentVariable] }
        var query = request.query
        var headers = request.headers
        switch request.credential?.placement {
        case .query(let name)?: query.insert(QueryItem(name, secret ?? ""), at: 0)
        case .header(let name)?: headers[name] = secret
        case nil: break
        }
        // data.go.kr keys are often handed out already percent-encoded; sending them encoded
        // again would break them, so a key containing '%' is sent as is.
        let urlText: String
        if let secret, secret.contains("%"), case .query(let name)? = request.credential?.placement {
            let rest = FeedRequest.compose(request.baseURL, request.query)
            let joiner = request.query.isEmpty ? "?" : "&"
            urlText = request.query.isEmpty ? "\(rest)?\(name)=\(secret)" : rest.replacingOccurrences(of: "?", with: "?\(name)=\(secret)\(joiner)", options: [], range: rest.range(of: "?"))
        } else {
            urlText = FeedRequest.compose(request.baseURL, query)
        }
        guard let url = URL(string: urlText) else {
            throw FeedError(.invalidRequest, .terminal, "Could not build a URL for \(request.operation).", context: request.displayURL)
        }
        let started = clock()
        let response: HTTPResponse
        do {
            response = try await transport.get(url, headers: headers)
        } catch {
            throw FeedError(.transport, .transient, scrub("The request failed: \(Self.describe(error))", secret), context: request.displayURL)
        }
        guard (200..<300).contains(response.status) else {
            let transient = response.status == 429 || response.status == 408 || response.status >= 500 || response.status == 0
            throw FeedError(.httpStatus(response.status), transient ? .transient : .terminal,
                            "The server answered HTTP \(response.status)\(Self.hint(response.status)).", context: request.displayURL)
        }
        guard !response.body.isEmpty else {
            throw FeedError(.malformed, .transient, "The server answered with an empty body.", context: request.displayURL)
        }
        if let secret, !secret.isEmpty, Self.contains(response.body, secret) {
            // Some legacy endpoints echo the key; never let it reach the archive.
            let cleaned = Data(scrub(String(decoding: response.body, as: UTF8.self), secret).utf8)
            return try archive.store(cleaned, request: request, fetchedAt: started, httpStatus: response.status, contentType: response.contentType)
        }
        return try archive.store(response.body, request: request, fetchedAt: started, httpStatus: response.status, contentType: response.contentType)
    }

    private func scrub(_ text: String, _ secret: String?) -> String {
        guard let secret, !secret.isEmpty else { return text }
        var out = text.replacingOccurrences(of: secret, with: "REDACTED")
        let encoded = FeedRequest.percentEncode(secret)
        if encoded != secret { out = out.replacingOccurrences(of: encoded, with: "REDACTED") }
        if let decoded = secret.removingPercentEncoding, decoded != secret { out = out.replacingOccurrences(of: decoded, with: "REDACTED") }
        return out
    }

    private static func contains(_ data: Data, _ text: String) -> Bool {
        data.range(of: Data(text.utf8)) != nil
    }

    private static func describe(_ error: Error) -> String {
        let ns = error as NSError
        if ns.domain == NSURLErrorDomain {
            switch ns.code {
            case NSURLErrorTimedOut: return "timed out"
            case NSURLErrorCannotConnectToHost: return "could not connect to the host"
            case NSURLErrorNetworkConnectionLost: return "the connection was lost"
            case NSURLErrorNotConnectedToInternet: return "no network connection"
            case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: return "the host name could not be resolved"
            default: return "network error \(ns.code)"
            }
        }
        return "\(type(of: error)) \(ns.code)"
    }

    private static func hint(_ status: Int) -> String {
        switch status {
        case 401, 403: return " (access refused: check the key and that the API is approved for it)"
        case 404: return " (no such endpoint)"
        case 429: return " (too many requests)"
        case 500...599: return " (server error)"
        default: return ""
        }
    }
}
