import Foundation

/// A pipeline's declaration of what to fetch from one feed, as read from `Pipelines/NAME.yaml`.
public struct SourceSpec: Sendable, Equatable {
    /// Operation name or alias, e.g. `realtime-by-province` or `getCtprvnRltmMesureDnsty`.
    public var operation: String
    /// Parameters; a list value expands into one request per value (e.g. 18 provinces).
    public var parameters: [(name: String, values: [String])]
    public var format: PayloadFormat
    /// Rows per page (`numOfRows`).
    public var pageSize: Int
    /// Safety stop: never fetch more pages than this per request.
    public var maxPages: Int

    public init(operation: String, parameters: [(name: String, values: [String])], format: PayloadFormat,
                pageSize: Int, maxPages: Int) {
        self.operation = operation; self.parameters = parameters; self.format = format
        self.pageSize = pageSize; self.maxPages = maxPages
    }

    public static func == (a: SourceSpec, b: SourceSpec) -> Bool {
        a.operation == b.operation && a.format == b.format && a.pageSize == b.pageSize && a.maxPages == b.maxPages
            && a.parameters.map(\.name) == b.parameters.map(\.name) && a.parameters.map(\.values) == b.parameters.map(\.values)
    }

    /// Every combination of list-valued parameters, in declaration order.
    public var expandedParameters: [[QueryItem]] {
        parameters.reduce([[]]) { partial, parameter in
            partial.flatMap { prefix in parameter.values.map { prefix + [QueryItem(parameter.name, $0)] } }
        }
    }
}

/// One API adapter: knows its endpoints, how to page them, and how to turn payloads into
/// records. Feeds are values; the composition root lists them.
public protocol Feed: Sendable {
    /// Name used in pipelines, the archive and the database (`airkorea`).
    var source: String { get }
    /// Operation names this feed understands (canonical names).
    var operations: [String] { get }
    /// The environment variable that must hold the key for live runs.
    var credentialVariable: String { get }

    /// Calls a key may make per API and day, when the API limits them (nil: no limit). Live
    /// runs count calls against it (`QuotaLimits`); `FEEDLINE_QUOTA_<FEED>` overrides it.
    var dailyCallLimit: Int? { get }

    /// The provider's limits on calls with one key over a window (60 a minute, 1,000,000 a
    /// month). Live runs pace calls to the minute and hour limits (`RateSchedule`); the dry run
    /// shows a pipeline's calls a minute, a day and a month against each.
    var rateLimits: [RateLimit] { get }

    /// The first-page requests a pipeline asks for. Throws `FeedError` (`.invalidRequest`)
    /// naming the bad operation or parameter.
    func requests(for spec: SourceSpec) throws -> [FeedRequest]

    /// The request for page `page` (1-based) of `request`, or nil when the endpoint does not page.
    func request(_ request: FeedRequest, page: Int) -> FeedRequest?

    /// Whether a page with this summary is the last one (short or empty page; `totalCount`
    /// alone is never trusted).
    func isLastPage(_ summary: PageSummary, of request: FeedRequest) -> Bool

    /// The operation a payload holds, judged from its shape (first bytes), or nil if it is not
    /// this feed's.
    func recognise(head: Data, format: PayloadFormat) -> String?

    /// What the payload's first bytes are to this feed, judged positively (`Recognition.judge`):
    /// one of its shapes, a refusal naming the shapes it resembles, or not this feed's.
    func recognition(head: Data, format: PayloadFormat) -> Recognition

    /// Parses and maps a payload, streaming records and diagnostics into `sink`. Throws
    /// `FeedError` for API error envelopes and malformed documents; an empty result is not an
    /// error.
    func decode(_ payload: RawPayload, context: DecodeContext, into sink: inout some RecordSink) throws -> PageSummary

    /// The request parameters a payload of `operation` in file `fileName` is read differently
    /// without, because neither its bytes nor its name say them and reading it would otherwise
    /// assume a default or leave a key empty (OpenWeather current weather: `units`; an OpenAQ
    /// sensors page: `locations_id`), each with the values it takes. A replayed file that was
    /// never loaded with a request must be given them (`replay --param`).
    func contextParameters(for operation: String, fileName: String) -> [(name: String, values: String)]

    /// The spec a live run should use given the pipeline's bookmarks.
    func resuming(_ spec: SourceSpec, bookmarks: [String: String]) -> SourceSpec

    /// The tables this feed's records go to: its migrations and a writer per record type.
    var schema: FeedSchema { get }

    /// The typed error for a non-2xx answer whose body says what went wrong (OpenWeather's
    /// `{"cod":401,…}`, OpenAQ's `{"detail":…}`), or nil to let the fetch stage describe the
    /// status alone. `context` is the redacted URL.
    func httpError(status: Int, body: Data, context: String) -> FeedError?

    /// What a key must be approved for to call `operations` (pipeline names or aliases), as the
    /// provider names it — said when the key is missing. Empty when one sign-up covers all.
    func keyApprovals(for operations: [String]) -> [String]

    /// The fields `operation`'s items answer with, declared next to its decoder, against which
    /// every page's fields are compared (`AnswerShape.drift`); nil: not compared.
    func answerShape(operation: String) -> AnswerShape?
}

extension Feed {
    /// The operation `recognise(head:format:)` names, else not this feed's.
    public func recognition(head: Data, format: PayloadFormat) -> Recognition {
        recognise(head: head, format: format).map(Recognition.shape) ?? .foreign
    }

    /// No daily limit unless the feed declares one.
    public var dailyCallLimit: Int? { nil }

    /// The status alone describes a non-2xx answer unless the feed reads its body.
    public func httpError(status: Int, body: Data, context: String) -> FeedError? { nil }

    public func keyApprovals(for operations: [String]) -> [String] { [] }

    /// No declared answer fields unless the feed declares them: pages are not compared.
    public func answerShape(operation: String) -> AnswerShape? { nil }

    /// Every payload says all it means unless the feed declares otherwise.
    public func contextParameters(for operation: String, fileName: String) -> [(name: String, values: String)] { [] }

    /// No rate limit unless the feed declares one.
    public var rateLimits: [RateLimit] { [] }

    /// The spec a live run should use given the pipeline's bookmarks (e.g. fetch only what
    /// changed since the newest modification seen). Default: unchanged.
    public func resuming(_ spec: SourceSpec, bookmarks: [String: String]) -> SourceSpec { spec }
}
