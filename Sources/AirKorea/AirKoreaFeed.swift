import FeedCore
import Foundation
import Pipeline

/// The AirKorea air-quality OpenAPI (한국환경공단 에어코리아, data.go.kr `B552584`): realtime
/// measurements by station and by province, dust forecasts, the station list, stations near a
/// TM point, TM coordinates of an 읍면동, station daily and monthly averages (`ArpltnStatsSvc`)
/// and PM10/PM2.5 alerts (`UlfptcaAlarmInqireSvc`). Payloads of AirKorea services it does not
/// read are refused by name (`UnsupportedAirKoreaOperation`).
///
/// The runner uses it like every `Feed`: `requests(for:)` turns a pipeline's `SourceSpec` into
/// first-page requests, `request(_:page:)` and `isLastPage(_:of:)` page through them,
/// `recognise(head:format:)` names the operation of a replayed file, and `decode(_:context:into:)`
/// streams records and diagnostics into a sink or throws a `FeedError`.
///
/// Operations may be named canonically (`getCtprvnRltmMesureDnsty`), by path
/// (`ArpltnInforInqireSvc/getCtprvnRltmMesureDnsty`) or by alias: `realtime-by-station`,
/// `realtime-by-province`, `forecast`, `stations`, `nearby-stations`, `tm-coordinates`,
/// `station-daily-stats`, `station-monthly-stats`, `pm-alerts`.
public struct AirKoreaFeed: Feed {
    /// Where this feed's records go: writers for its record types (`AirKoreaTables`).
    public var schema: FeedSchema { AirKoreaTables.schema }

    /// `airkorea`.
    public let source = "airkorea"
    /// `AIRKOREA_SERVICE_KEY`: the data.go.kr service key, sent as the `serviceKey` query parameter.
    public let credentialVariable = "AIRKOREA_SERVICE_KEY"
    /// A data.go.kr development key allows 500 calls a day per API (an operating key more:
    /// `FEEDLINE_QUOTA_AIRKOREA`).
    public let dailyCallLimit: Int? = 500
    /// The root the operation paths hang from (`https://apis.data.go.kr/B552584/` live).
    public let baseURL: URL

    /// A feed talking to `baseURL` (tests point it at a loopback server).
    public init(baseURL: URL = URL(string: "https://apis.data.go.kr/B552584/")!) {
        self.baseURL = baseURL
    }

    /// The canonical operation names.
    public var operations: [String] { AirKoreaEndpoint.all.map(\.operation) }

    /// Each data.go.kr service is a separate API with its own approval (활용신청) for the key.
    public func keyApprovals(for operations: [String]) -> [String] {
        let services = operations.compactMap { name in AirKoreaEndpoint.all.first { $0.answers(to: name) }?.service }
        var seen: Set<String> = []
        return services.filter { seen.insert($0).inserted }.map { service in
            AirKoreaEndpoint.serviceTitles[service].map { "\(service) (\($0))" } ?? service
        }
    }

    /// Where the key goes: the `serviceKey` query parameter, filled by the live transport from
    /// `AIRKOREA_SERVICE_KEY` (never stored in a request).
    public var credential: CredentialRequirement {
        CredentialRequirement(environmentVariable: credentialVariable, placement: .query("serviceKey"))
    }

    /// The canonical name of the operation `name` designates (canonical, path or alias), or nil.
    public func canonicalOperation(_ name: String) -> String? {
        AirKoreaEndpoint.named(name)?.operation
    }

    // MARK: - Requests and paging

    /// One first-page request per combination of list-valued parameters (and per month of a
    /// monthly statistics range); identical requests are sent once. Query order: `returnType`,
    /// `numOfRows` (= `spec.pageSize`), `pageNo`, then the pipeline's parameters (normalised:
    /// `inqBginDt` `2024-03-05` → `20240305`), then defaults the API requires (`dataTerm=DAILY`
    /// for by-station). Throws `.invalidRequest` (terminal) naming the bad operation or
    /// parameter, or the unsupported AirKorea service the operation belongs to.
    public func requests(for spec: SourceSpec) throws -> [FeedRequest] {
        guard let endpoint = AirKoreaEndpoint.named(spec.operation) else {
            if let unsupported = UnsupportedAirKoreaOperation.named(spec.operation) { throw unsupported.requestError }
            throw FeedError(.invalidRequest, .terminal,
                            "The AirKorea feed has no operation named “\(spec.operation)”; use one of \(AirKoreaEndpoint.summary).")
        }
        guard spec.pageSize > 0 else {
            throw FeedError(.invalidRequest, .terminal,
                            "The page size (numOfRows) for \(endpoint.operation) must be at least 1, not \(spec.pageSize).")
        }
        var seen: Set<[QueryItem]> = []
        var requests: [FeedRequest] = []
        for parameters in spec.expandedParameters {
            let checked = try validatedQuery(parameters, for: endpoint)
            let queries: [[QueryItem]]
            switch endpoint.planQueries(checked) {
            case .send(let planned): queries = planned
            case .refuse(let problem):
                throw FeedError(.invalidRequest, .terminal, "The request for \(endpoint.operation) \(problem).")
            }
            for query in queries where seen.insert(query).inserted {
                requests.append(FeedRequest(
                    source: source, operation: endpoint.operation,
                    baseURL: baseURL.appendingPathComponent(endpoint.path),
                    query: [QueryItem("returnType", spec.format.rawValue), QueryItem("numOfRows", String(spec.pageSize)),
                            QueryItem("pageNo", "1")] + query,
                    format: spec.format, credential: credential, page: 1))
            }
        }
        return requests
    }

    /// `request` with `pageNo` set to `page` (1-based); nil for a page below 1.
    public func request(_ request: FeedRequest, page: Int) -> FeedRequest? {
        guard page >= 1 else { return nil }
        var next = request.setting("pageNo", to: String(page))
        next.page = page
        return next
    }

    /// The last page is an empty page or a short one: fewer items than `numOfRows` (what was
    /// asked, or what the API echoed if it capped it lower). `totalCount` is never trusted
    /// (it has been seen at 0 beside a full page).
    public func isLastPage(_ summary: PageSummary, of request: FeedRequest) -> Bool {
        guard summary.itemCount > 0 else { return true }
        var rows = request.parameter("numOfRows").flatMap { Int($0) }
        if let echoed = summary.numOfRows, echoed > 0, echoed < (rows ?? .max) { rows = echoed }
        guard let rows, rows > 0 else { return true }
        return summary.itemCount < rows
    }

    // MARK: - Recognition and decoding

    /// The canonical operation the payload's first bytes hold, judged by its item fields (for
    /// current and legacy envelopes); error envelopes and empty pages are answered with
    /// `getCtprvnRltmMesureDnsty` so that decoding raises the typed error or yields nothing.
    /// Items of an AirKorea operation feedline does not read are answered with that operation's
    /// name (`getMsrstnKhaiRltmDnsty`), so that decoding refuses them by name. nil when the bytes
    /// are not an AirKorea payload.
    public func recognise(head: Data, format: PayloadFormat) -> String? {
        AirKoreaRecognition(head: head, format: format).operation()
    }

    /// `recognise(head:format:)` as a `Recognition`; items of a success envelope that match no
    /// operation are refused with a sentence naming the operations feedline reads.
    public func recognition(head: Data, format: PayloadFormat) -> Recognition {
        AirKoreaRecognition(head: head, format: format).recognition()
    }

    /// Decodes a payload of any of the operations, XML or JSON (the bytes decide: data.go.kr
    /// answers errors in XML even to a JSON request). The operation comes from the payload, its
    /// request or the context's request, else from recognition.
    ///
    /// Throws `FeedError`: `.api(code:name:)` for gateway and provider error envelopes (transient
    /// or terminal by code), `.malformed` for malformed or truncated documents, `.unrecognised`
    /// when the operation cannot be determined or the items belong to an AirKorea service
    /// feedline does not read ("Unsupported AirKorea service …", whatever operation was
    /// declared). An empty result is not an error. XML items stream
    /// into `sink` while the document is read, so when a truncated document throws at its end the
    /// records already delivered must be discarded with the failed page.
    public func decode(_ payload: RawPayload, context: DecodeContext, into sink: inout some RecordSink) throws -> PageSummary {
        let origin = payload.request?.displayURL ?? context.request?.displayURL ?? payload.file.lastPathComponent
        let source = PayloadSource(payload)
        let head = try source.head(16 * 1024, origin: origin)  // the envelope and the first item
        let format = AirKoreaRecognition.sniff(head) ?? payload.format
        if let unsupported = AirKoreaRecognition(head: head, format: format).unsupportedOperation() {
            throw unsupported.payloadError(context: origin)
        }
        let endpoint = try endpoint(for: payload, context: context, head: head, origin: origin)
        let decoder = AirKoreaDecoder(endpoint: endpoint, page: PageContext(context, fetchedAt: payload.fetchedAt), origin: origin,
                                      fetchedAt: payload.fetchedAt)
        return try decoder.decode(source, head: head, format: format, into: &sink)
    }

    private func endpoint(for payload: RawPayload, context: DecodeContext, head: Data, origin: String) throws -> AirKoreaEndpoint {
        let declared = [payload.operation, payload.request?.operation, context.request?.operation].compactMap { $0 }
        if let name = declared.first {
            guard let endpoint = AirKoreaEndpoint.named(name) else {
                if let unsupported = UnsupportedAirKoreaOperation.named(name) { throw unsupported.payloadError(context: origin) }
                throw FeedError(.unrecognised, .terminal, "“\(name)” is not an AirKorea operation, so the payload cannot be decoded.",
                                context: origin)
            }
            return endpoint
        }
        let judged = recognition(head: head, format: payload.format)
        if case .refused(let reason) = judged { throw FeedError(.unrecognised, .terminal, reason, context: origin) }
        guard let name = judged.operation, let endpoint = AirKoreaEndpoint.named(name) else {
            throw FeedError(.unrecognised, .terminal, "The payload is not one of the AirKorea operations this feed reads.",
                            context: origin)
        }
        return endpoint
    }

    // MARK: - Parameter validation

    private func validatedQuery(_ parameters: [QueryItem], for endpoint: AirKoreaEndpoint) throws -> [QueryItem] {
        var query: [QueryItem] = []
        for parameter in parameters {
            let value = String(Substring(parameter.value).trimmingASCIISpace())
            switch parameter.name {
            case "serviceKey":
                throw FeedError(.invalidRequest, .terminal,
                                "The parameter serviceKey must not be written in a pipeline: the key comes from \(credentialVariable).")
            case "returnType", "numOfRows", "pageNo", "_returnType":
                throw FeedError(.invalidRequest, .terminal,
                                "The parameter \(parameter.name) is set by the feed (from the pipeline's format and page size); remove it from the parameters of \(endpoint.operation).")
            default:
                break
            }
            guard let rule = endpoint.parameters.first(where: { $0.name == parameter.name }) else {
                let accepted = endpoint.parameters.map(\.name).joined(separator: ", ")
                throw FeedError(.invalidRequest, .terminal,
                                "The parameter \(parameter.name) is not accepted by \(endpoint.operation); it accepts \(accepted).")
            }
            guard !value.isEmpty else {
                throw FeedError(.invalidRequest, .terminal, "The parameter \(rule.name) of \(endpoint.operation) is empty.")
            }
            if let problem = rule.problem(value) {
                throw FeedError(.invalidRequest, .terminal,
                                "The parameter \(rule.name) of \(endpoint.operation) is “\(value)”, but it \(problem).")
            }
            query.append(QueryItem(rule.name, rule.normalised(value)))
        }
        for rule in endpoint.parameters where rule.required && !query.contains(where: { $0.name == rule.name }) {
            throw FeedError(.invalidRequest, .terminal, "The parameter \(rule.name) is required by \(endpoint.operation) but was not given.")
        }
        for item in endpoint.defaults where !query.contains(where: { $0.name == item.name }) {
            query.append(item)
        }
        return query
    }
}
