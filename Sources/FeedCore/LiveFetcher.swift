import Foundation
import Pipeline

/// The live fetch stage: adds the secret from the environment, performs the GET, classifies
/// HTTP failures, and archives the bytes before anyone parses them.
///
/// Secrets: the key is looked up per request from `environment` and added to the URL only at
/// the moment of sending; every message this type produces is scrubbed of it; a keyed request
/// goes only to the host it names (`RedirectPolicy`), and the body is scrubbed of the key in
/// every form a reader could decode (`SecretScrubber`) before it is archived or parsed.
public struct LiveFetcher: PayloadFetching {
    public let transport: any HTTPTransport
    public let environment: [String: String]
    public let archive: PayloadArchive
    public let clock: @Sendable () -> Date
    /// Told when a provider says its window is used up (`x-ratelimit-remaining: 0`, a 429 with
    /// `Retry-After`), so every later call of the feed waits for the window.
    public var pacer: RatePacer?
    /// The feed's own reading of a non-2xx body (`Feed.httpError`), by source.
    public var httpErrors: @Sendable (FeedRequest, Int, Data) -> FeedError? = { _, _, _ in nil }

    public init(transport: any HTTPTransport, environment: [String: String], archive: PayloadArchive, clock: @escaping @Sendable () -> Date,
                pacer: RatePacer? = nil) {
        self.transport = transport
        self.environment = environment
        self.archive = archive
        self.clock = clock
        self.pacer = pacer
    }

    /// Fails at once, naming the variable, when a request needs a key that is not set.
    public func checkCredential(_ requirement: CredentialRequirement?) throws {
        guard let requirement else { return }
        guard let raw = environment[requirement.environmentVariable], APIKey(raw) != nil else {
            throw FeedError(.missingCredential(requirement.environmentVariable), .terminal,
                            "Live mode needs an API key: set \(requirement.environmentVariable) in the environment; without one, run the pipeline without --live to load its fixture files.")
        }
    }

    public func fetch(_ request: FeedRequest) async throws -> RawPayload {
        try checkCredential(request.credential)
        let key = request.credential.flatMap { environment[$0.environmentVariable] }.flatMap(APIKey.init)
        let scrubber = key.map { SecretScrubber(secret: $0.configured) }
        func clean(_ text: String) -> String { scrubber?.scrub(text) ?? text }
        var headers = request.headers
        var urlText = FeedRequest.compose(request.baseURL, request.query)
        switch request.credential?.placement {
        case .query(let name)?:
            // The key goes first, already encoded exactly once (see `APIKey.queryValue`).
            let pair = "\(FeedRequest.percentEncode(name))=\(key?.queryValue ?? "")"
            urlText = request.query.isEmpty ? "\(request.baseURL.absoluteString)?\(pair)"
                : urlText.replacingOccurrences(of: "?", with: "?\(pair)&", range: urlText.range(of: "?"))
        case .header(let name)?:
            guard let value = key?.headerValue else {
                throw FeedError(.missingCredential(request.credential!.environmentVariable), .terminal,
                                "The key in \(request.credential!.environmentVariable) contains a control character (a line break?); set it to the key alone.")
            }
            headers[name] = value
        case nil: break
        }
        guard let url = URL(string: urlText) else {
            throw FeedError(.invalidRequest, .terminal, "Could not build a URL for \(request.operation).", context: request.displayURL)
        }
        let started = clock()
        let response: HTTPResponse
        do {
            try RedirectPolicy.checkScheme(url)
            response = try await transport.get(url, headers: headers, redirects: .request(to: url, carriesCredential: request.credential != nil))
        } catch {
            let terminal = (error as? HTTPTransportError)?.isTerminal ?? false
            throw FeedError(.transport, terminal ? .terminal : .transient, clean("The request failed: \(Self.describe(error))"),
                            context: request.displayURL)
        }
        // A UTF-16 or UTF-32 body passes the scrub unseen: it is never read (`PayloadEncoding`).
        let wide = PayloadEncoding.wideEncoding(of: response.body.prefix(PayloadEncoding.headLength))
        if !(200..<300).contains(response.status), !response.body.isEmpty, wide == nil,
           var typed = httpErrors(request, response.status, scrubber?.scrub(response.body) ?? response.body) {
            // The feed read the body: its sentence, with what the status adds about waiting.
            typed.message = clean(typed.message)
            typed.context = request.displayURL
            if response.status == 429 {
                typed.isRateLimited = true
                typed.retryAfter = response.retryAfter ?? typed.retryAfter
                if let wait = typed.retryAfter { pacer?.pause(request.source, until: clock().addingTimeInterval(wait)) }
            }
            throw typed
        }
        if response.status == 429 {
            let wait = response.retryAfter
            if let wait { pacer?.pause(request.source, until: clock().addingTimeInterval(wait)) }
            throw FeedError(.httpStatus(429), .transient, "The server answered HTTP 429\(Self.hint(429))"
                                + (wait.map { "; it asked to wait \(RetryPolicy.seconds($0))" } ?? "") + ".",
                            context: request.displayURL, isRateLimited: true, retryAfter: wait)
        }
        guard (200..<300).contains(response.status) else {
            let transient = response.status == 408 || response.status >= 500 || response.status == 0
            throw FeedError(.httpStatus(response.status), transient ? .transient : .terminal,
                            "The server answered HTTP \(response.status)\(Self.hint(response.status)).", context: request.displayURL)
        }
        if response.rateWindowUsedUp, let reset = response.retryAfter { pacer?.pause(request.source, until: clock().addingTimeInterval(reset)) }
        guard !response.body.isEmpty else {
            throw FeedError(.malformed, .transient, "The server answered with an empty body.", context: request.displayURL)
        }
        try PayloadEncoding.check(response.body.prefix(PayloadEncoding.headLength), context: request.displayURL)
        // Some endpoints echo the key, in whatever form they decoded or escaped it: every form
        // is removed before the archive, the parser or a message can see the body.
        let body = scrubber?.scrub(response.body) ?? response.body
        var payload = try archive.store(body, request: request, fetchedAt: started, httpStatus: response.status, contentType: response.contentType)
        payload.bytes = body  // decoded from memory, not read back from the archive
        return payload
    }

    /// How a transport failure reads after "The request failed: " (never the URL: it may hold
    /// the key).
    private static func describe(_ error: Error) -> String {
        if let error = error as? HTTPTransportError { return error.description }
        if error is CancellationError { return "cancelled (the run was stopped)" }
        return "\(type(of: error))"
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
