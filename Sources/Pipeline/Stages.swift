import Domain
import Foundation

// MARK: - Fetch

/// The wire format of a payload.
public enum PayloadFormat: String, Sendable, Codable, CaseIterable {
    case xml, json

    /// The file extension used in the archive and in fixtures.
    public var fileExtension: String { rawValue }
}

/// The credential a request needs, named by the environment variable that holds it.
///
/// The secret itself never lives in a `FeedRequest`: the live transport looks it up and adds it
/// when the request is sent, so archived requests, logs and errors cannot contain it.
public struct CredentialRequirement: Hashable, Sendable, Codable {
    /// The environment variable that holds the secret (e.g. `AIRKOREA_SERVICE_KEY`).
    public var environmentVariable: String
    /// Where the secret goes on the wire.
    public var placement: Placement

    public enum Placement: Hashable, Sendable, Codable {
        /// A query parameter with this name (`serviceKey`, `apiKey`, `access-key`).
        case query(String)
        /// An HTTP header with this name.
        case header(String)
    }

    public init(environmentVariable: String, placement: Placement) {
        self.environmentVariable = environmentVariable
        self.placement = placement
    }
}

/// One HTTP GET a feed wants made. Produced by a feed's endpoint description; consumed by the
/// fetch stage. Holds no secret.
public struct FeedRequest: Hashable, Sendable, Codable {
    /// Feed name, e.g. `airkorea`.
    public var source: String
    /// Operation name, e.g. `getCtprvnRltmMesureDnsty`.
    public var operation: String
    /// Scheme, host and path, without a query.
    public var baseURL: URL
    /// Query parameters in order (the secret is not among them).
    public var query: [QueryItem]
    /// Extra headers (no secret among them).
    public var headers: [String: String]
    /// The format asked for.
    public var format: PayloadFormat
    /// The credential the live transport adds, if any.
    public var credential: CredentialRequirement?
    /// The 1-based page this request asks for, when the endpoint pages.
    public var page: Int?

    public init(source: String, operation: String, baseURL: URL, query: [QueryItem], headers: [String: String] = [:],
                format: PayloadFormat, credential: CredentialRequirement?, page: Int? = nil) {
        self.source = source; self.operation = operation; self.baseURL = baseURL; self.query = query
        self.headers = headers; self.format = format; self.credential = credential; self.page = page
    }

    /// The value of query parameter `name`, if present.
    public func parameter(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// A copy with query parameter `name` set to `value` (replacing or appending).
    public func setting(_ name: String, to value: String) -> FeedRequest {
        var copy = self
        if let i = copy.query.firstIndex(where: { $0.name == name }) {
            copy.query[i].value = value
        } else {
            copy.query.append(QueryItem(name, value))
        }
        return copy
    }

    /// The URL as it may be shown, logged and archived: the secret appears as `REDACTED`, and a
    /// password in the base URL (`http://user:secret@host/`) as `***`.
    public var displayURL: String {
        var items = query
        if case .query(let name)? = credential?.placement { items.insert(QueryItem(name, "REDACTED"), at: 0) }
        return Self.compose(Self.redactingPassword(baseURL), items)
    }

    /// The request as it may be stored (archive metadata): its base URL without a password.
    public var redacted: FeedRequest {
        var copy = self
        copy.baseURL = Self.redactingPassword(baseURL)
        return copy
    }

    /// `url` with the password of its user information replaced by `***`, as a `postgres://`
    /// URL is shown; `url` itself when it has none. Every place a base URL is shown or stored
    /// goes through this (`displayURL`, `redacted`).
    public static func redactingPassword(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.percentEncodedPassword != nil else { return url }
        components.percentEncodedPassword = "***"
        return components.url ?? URL(string: "about:blank")!  // never the URL with its password
    }

    /// Builds `base?name=value&…` with RFC 3986 percent-encoding of names and values.
    public static func compose(_ base: URL, _ items: [QueryItem]) -> String {
        guard !items.isEmpty else { return base.absoluteString }
        let q = items.map { "\(percentEncode($0.name))=\(percentEncode($0.value))" }.joined(separator: "&")
        return base.absoluteString + "?" + q
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters: each other byte of the
    /// UTF-8 encoding becomes `%XX` (upper-case hex), as Foundation's `addingPercentEncoding`
    /// does — byte by byte, without building a `CharacterSet` per call (a live run composes its
    /// redacted URL for every log line, archive record and diagnostic of every page).
    public static func percentEncode(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%")); out.append(hexDigits[Int(byte >> 4)]); out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)
}

/// An ordered query parameter.
public struct QueryItem: Hashable, Sendable, Codable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) { self.name = name; self.value = value }
}

/// Raw bytes as fetched (or as found in a directory), before any parsing.
///
/// Produced by the fetch stage (live, fixture or replay); consumed by a feed's decoder and by
/// the archive. The bytes live in a file so memory does not grow with the payload.
public struct RawPayload: Sendable {
    /// Where the bytes are.
    public var file: URL
    /// The request that produced them; nil for a plain file found on disk.
    public var request: FeedRequest?
    /// Feed and operation, when known (from the request, the archive index or recognition).
    public var source: String?
    public var operation: String?
    /// Detected or requested format.
    public var format: PayloadFormat
    /// When the bytes were fetched.
    public var fetchedAt: Date
    /// HTTP status and content type, for live payloads.
    public var httpStatus: Int?
    public var contentType: String?
    /// Lowercase hex SHA-256 of the bytes.
    public var sha256: String
    /// Size in bytes.
    public var byteCount: Int
    /// The page decoded once, when the fetch stage already did it (`PageInspector`): the load
    /// writes these records instead of decoding the bytes again.
    public var inspection: PageInspection?
    /// The bytes themselves while the fetch stage holds them (a page just received, already in
    /// the archive at `file`), so it is decoded without reading the archive copy back. Dropped
    /// once the page is decoded; nil for files on disk.
    public var bytes: Data?

    public init(file: URL, request: FeedRequest?, source: String?, operation: String?, format: PayloadFormat,
                fetchedAt: Date, httpStatus: Int? = nil, contentType: String? = nil, sha256: String, byteCount: Int) {
        self.file = file; self.request = request; self.source = source; self.operation = operation
        self.format = format; self.fetchedAt = fetchedAt; self.httpStatus = httpStatus
        self.contentType = contentType; self.sha256 = sha256; self.byteCount = byteCount
    }
}

// MARK: - Parse and map

/// The short, stable code of a diagnostic (`missing-value`, `grade-mismatch`, …): the text
/// stored in the `diagnostic` table, reports and golden files.
///
/// Codes are declared once, as static constants, where they belong: the ones of the pipeline
/// stages here, the readers' and the shared mapping vocabulary in FeedCore, a feed's own in an
/// extension in its module. Code is compared and written through the constants, never as text.
public struct DiagnosticCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The code as stored (`missing-value`).
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// A code spelled `rawValue`; declare it once as a static constant.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }
}

extension DiagnosticCode {
    /// Replay: an archived payload could not be read back (`unreadable-payload`).
    public static let unreadablePayload = DiagnosticCode("unreadable-payload")
}

/// Something odd about one item or field that did not stop the load: counted, stored and
/// reported, never silently dropped.
public struct Diagnostic: Hashable, Sendable, Codable {
    /// Short stable code, e.g. `.missingValue`, `.unparsableNumber`, `.gradeMismatch`.
    public var code: DiagnosticCode
    /// One sentence saying what was odd and what was done about it.
    public var message: String
    /// Where: e.g. `item 3 pm10Value` or `종로구 2024-03-06 15:00`.
    public var location: String
    /// The offending raw value, if any.
    public var value: String?

    public init(code: DiagnosticCode, message: String, location: String, value: String? = nil) {
        self.code = code; self.message = message; self.location = location; self.value = value
    }
}

/// What a decoder learned about a page besides its records.
public struct PageSummary: Sendable, Equatable {
    /// Items seen in the page (records + items rejected with a diagnostic).
    public var itemCount: Int
    /// `totalCount` as the API reported it (informational only: never trusted for paging).
    public var reportedTotal: Int?
    public var pageNo: Int?
    public var numOfRows: Int?

    public init(itemCount: Int, reportedTotal: Int? = nil, pageNo: Int? = nil, numOfRows: Int? = nil) {
        self.itemCount = itemCount; self.reportedTotal = reportedTotal; self.pageNo = pageNo; self.numOfRows = numOfRows
    }
}

/// Receives what a decoder produces, item by item, so nothing accumulates in memory.
public protocol RecordSink {
    mutating func accept(_ record: FeedRecord) throws
    mutating func diagnose(_ diagnostic: Diagnostic)
    /// Takes the fields a page's items carried (`FieldCensus`), once per page, for schema-drift
    /// detection. Default: ignored.
    mutating func observe(_ census: FieldCensus)
}

extension RecordSink {
    public mutating func observe(_ census: FieldCensus) {}
}

/// A sink that keeps nothing: for decoding a page only to learn its summary or its errors.
public struct DiscardingSink: RecordSink {
    public init() {}
    public mutating func accept(_ record: FeedRecord) throws {}
    public mutating func diagnose(_ diagnostic: Diagnostic) {}
}

/// Context a decoder may need beyond the bytes (e.g. the station a by-station page is for,
/// which AirKorea omits from items before `ver=1.4`).
public struct DecodeContext: Sendable {
    public var request: FeedRequest?
    /// Fallback parameters from the command line (`--param stationName=종로구`).
    public var fallbackParameters: [String: String]

    public init(request: FeedRequest?, fallbackParameters: [String: String] = [:]) {
        self.request = request
        self.fallbackParameters = fallbackParameters
    }

    /// A request parameter, else a fallback parameter.
    public func parameter(_ name: String) -> String? {
        request?.parameter(name) ?? fallbackParameters[name]
    }
}
