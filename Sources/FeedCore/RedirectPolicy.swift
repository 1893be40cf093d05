import Foundation

/// Where a request may go: the only schemes fetched, how many redirects are followed, and — for
/// a request that carries a credential (a key in a header or the query) — that every hop stays on
/// the host the request names.
///
/// A key is meant for one host. A server (or whoever answers in its place) that redirects to
/// another host would otherwise receive the key there: libcurl re-sends custom headers such as
/// `X-API-Key` to the new host, and a `Location` may copy the query string. So a keyed request
/// refuses a redirect to any other host, and from https to http; any request refuses a scheme
/// other than http and https (`file://`, `ftp://` …) and more than `maxRedirects` hops (a loop).
/// Each refusal is an `HTTPTransportError` that `isTerminal`: retrying cannot change the answer.
public struct RedirectPolicy: Sendable, Equatable {
    /// The host every hop must stay on (lowercased), when the request carries a credential.
    public var credentialHost: String?
    /// Whether the request started on https (a keyed request never continues over http).
    public var startedSecure: Bool
    /// Redirects followed at most; one more fails the request.
    public var maxRedirects: Int

    public init(credentialHost: String?, startedSecure: Bool = false, maxRedirects: Int = 10) {
        self.credentialHost = credentialHost.map(Self.normalisedHost)
        self.startedSecure = startedSecure
        self.maxRedirects = maxRedirects
    }

    /// Any host, http and https only, at most 10 redirects.
    public static let open = RedirectPolicy(credentialHost: nil)

    /// The policy for a request to `url`: bound to its host when it carries a credential.
    public static func request(to url: URL, carriesCredential: Bool) -> RedirectPolicy {
        RedirectPolicy(credentialHost: carriesCredential ? (url.host ?? "") : nil, startedSecure: url.scheme?.lowercased() == "https")
    }

    /// The schemes fetched.
    public static let schemes: Set<String> = ["http", "https"]

    /// Fails unless `url` is http or https (a base URL, or where a redirect leads).
    public static func checkScheme(_ url: URL, redirected: Bool = false) throws {
        let scheme = url.scheme?.lowercased() ?? ""
        guard schemes.contains(scheme) else { throw HTTPTransportError(.unsupportedScheme(shown(scheme), redirected: redirected)) }
    }

    /// Fails when redirect number `hop` (1-based), from `from` to `to`, must not be followed.
    public func check(hop: Int, from: URL, to: URL) throws {
        guard hop <= maxRedirects else { throw HTTPTransportError(.tooManyRedirects(maxRedirects)) }
        try Self.checkScheme(to, redirected: true)
        guard let credentialHost else { return }
        let host = Self.normalisedHost(to.host ?? "")
        guard host == credentialHost else {
            throw HTTPTransportError(.redirectRefused("to another host (\(Self.shown(host))); the request carries the key, which is sent only to \(Self.shown(credentialHost))"))
        }
        if startedSecure, to.scheme?.lowercased() != "https" {
            throw HTTPTransportError(.redirectRefused("from https to http; the request carries the key, which is never sent unencrypted"))
        }
    }

    static func normalisedHost(_ host: String) -> String {
        var text = host.lowercased()
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// A scheme or host as it may appear in a message: bounded, printable ASCII only.
    static func shown(_ text: String) -> String {
        let printable = text.unicodeScalars.filter { $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }
        let clipped = String(String.UnicodeScalarView(printable.prefix(64)))
        return clipped.isEmpty ? "none" : clipped + (printable.count > 64 ? "…" : "")
    }
}
