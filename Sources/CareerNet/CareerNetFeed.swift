import Foundation
import FeedCore
import Pipeline

/// The CareerNet OpenAPI (커리어넷, `getOpenApi`): school lists (`SCHOOL`, every `gubun`), the
/// university major list (`MAJOR`) and the job dictionary (`JOB`), in JSON or XML.
///
/// The runner uses it like every `Feed`: `requests(for:)` turns a pipeline's `SourceSpec` into
/// first-page requests, `request(_:page:)` and `isLastPage(_:of:)` page through them with
/// `thisPage`/`perPage` until a short page, `recognise(head:format:)` names the list of a
/// replayed file, and `decode(_:context:into:)` streams records and diagnostics into a sink or
/// throws a `FeedError`.
///
/// Operations: `SCHOOL` (alias `schools`; `gubun` required: `elem_list`, `midd_list`,
/// `high_list`, `univ_list`, `seet_list`, `alte_list`), `MAJOR` (`majors`), `JOB` (`jobs`).
public struct CareerNetFeed: Feed {
    /// Where this feed's records go: writers for its record types (`CareerNetTables`).
    public var schema: FeedSchema { CareerNetTables.schema }

    /// `careernet`.
    public let source = "careernet"
    /// `CAREERNET_API_KEY`: the career.go.kr OpenAPI key, sent as the `apiKey` query parameter.
    public let credentialVariable = "CAREERNET_API_KEY"
    /// The directory `getOpenApi` lives in (`https://www.career.go.kr/cnet/openapi/` live).
    public let baseURL: URL

    /// A feed talking to `baseURL` (tests point it at a loopback server).
    public init(baseURL: URL = URL(string: "https://www.career.go.kr/cnet/openapi/")!) {
        self.baseURL = baseURL
    }

    /// The three canonical operation names (`svcCode` values).
    public var operations: [String] { CareerNetEndpoint.all.map(\.operation) }

    /// Where the key goes: the `apiKey` query parameter, filled by the live transport from
    /// `CAREERNET_API_KEY` (never stored in a request).
    public var credential: CredentialRequirement {
        CredentialRequirement(environmentVariable: credentialVariable, placement: .query("apiKey"))
    }

    /// The canonical name of the operation `name` designates (canonical or alias), or nil.
    public func canonicalOperation(_ name: String) -> String? {
        CareerNetEndpoint.named(name)?.operation
    }

    // MARK: - Requests and paging

    /// One first-page request per combination of list-valued parameters (e.g. one per `gubun`).
    /// Query order: `svcType=api`, `svcCode`, `contentType`, `gubun`, `thisPage=1`,
    /// `perPage` (= `spec.pageSize`), then the pipeline's other parameters. Throws
    /// `.invalidRequest` (terminal) naming the bad operation or parameter.
    public func requests(for spec: SourceSpec) throws -> [FeedRequest] {
        guard let endpoint = CareerNetEndpoint.named(spec.operation) else {
            let names = CareerNetEndpoint.all.map { "\($0.aliases.first ?? $0.operation) (\($0.operation))" }
            throw FeedError(.invalidRequest, .terminal,
                            "The CareerNet feed has no operation named “\(spec.operation)”; use one of \(names.joined(separator: ", ")).")
        }
        guard spec.pageSize > 0 else {
            throw FeedError(.invalidRequest, .terminal, "The page size (perPage) for \(endpoint.operation) must be at least 1, not \(spec.pageSize).")
        }
        return try spec.expandedParameters.map { parameters in
            let (list, others) = try validated(parameters, for: endpoint)
            return FeedRequest(
                source: source, operation: endpoint.operation,
                baseURL: baseURL.appendingPathComponent("getOpenApi"),
                query: [QueryItem("svcType", "api"), QueryItem("svcCode", endpoint.operation),
                        QueryItem("contentType", spec.format.rawValue), QueryItem("gubun", list),
                        QueryItem("thisPage", "1"), QueryItem("perPage", String(spec.pageSize))] + others,
                format: spec.format, credential: credential, page: 1)
        }
    }

    /// `request` with `thisPage` set to `page` (1-based); nil for a page below 1.
    public func request(_ request: FeedRequest, page: Int) -> FeedRequest? {
        guard page >= 1 else { return nil }
        var next = request.setting("thisPage", to: String(page))
        next.page = page
        return next
    }

    /// The last page is an empty page or a short one (fewer items than `perPage`), or the page
    /// that reaches the `totalCount` repeated inside the items.
    public func isLastPage(_ summary: PageSummary, of request: FeedRequest) -> Bool {
        guard summary.itemCount > 0 else { return true }
        guard let perPage = request.parameter("perPage").flatMap({ Int($0) }), perPage > 0 else { return true }
        if summary.itemCount < perPage { return true }
        if let total = summary.reportedTotal, let page = request.parameter("thisPage").flatMap({ Int($0) }) ?? request.page,
           page * perPage >= total {
            return true
        }
        return false
    }

    // MARK: - Recognition and decoding

    /// The lists feedline reads, by the members of their first item: `SCHOOL` has
    /// `schoolName`, `MAJOR` `majorSeq`/`facilName`, `JOB` `jobdicSeq`/`salery`; an error
    /// answer (an item of only `message`) is read as `SCHOOL`, whose decoder raises the typed
    /// error. A detail answer (`MAJOR_VIEW`, `JOB_VIEW`) or any other item is none of them.
    static let shapes = [
        PayloadShape(CareerNetEndpoint.schools.operation, requires: [["schoolName"]], excludes: ["majorSeq", "jobdicSeq", "salery"]),
        PayloadShape(CareerNetEndpoint.majors.operation, requires: [["majorSeq", "facilName"]], excludes: ["schoolName", "jobdicSeq", "salery"]),
        PayloadShape(CareerNetEndpoint.jobs.operation, requires: [["jobdicSeq", "salery"]], excludes: ["schoolName", "majorSeq", "facilName"]),
        PayloadShape(CareerNetEndpoint.schools.operation, requires: [["message"]],
                     excludes: ["schoolName", "majorSeq", "facilName", "jobdicSeq", "salery"], name: "an error answer"),
    ]

    /// Judged positively from the members of the first item of `dataSearch` (`content`),
    /// XML or JSON: exactly one of `shapes`, or refused naming the ones it resembles. A list
    /// without items is answered with `SCHOOL`, whose decoder yields nothing. Not CareerNet's
    /// without the `dataSearch` wrapper (or, for a bare list, a `content` of a known list).
    public func recognition(head: Data, format: PayloadFormat) -> Recognition {
        let isXML = (PayloadArchive.sniffFormat(head) ?? format) == .xml
        let wrapped: Bool
        let item: HeadFields
        if isXML {
            wrapped = HeadFields.xml(head, element: "dataSearch") != .absent
            item = HeadFields.xml(head, element: "content")
        } else {
            let root = HeadFields.json(head, path: [])
            wrapped = root.has("dataSearch")
            item = HeadFields.json(head, path: wrapped ? ["dataSearch", "content"] : ["content"])
        }
        switch item {
        case .members(let names) where !names.isEmpty:
            let judged = Recognition.judge(Self.shapes, what: "The CareerNet items' fields", has: item.has)
            return wrapped || judged.operation != nil ? judged : .foreign
        default:
            return wrapped ? .shape(CareerNetEndpoint.schools.operation) : .foreign
        }
    }

    /// The operation `recognition(head:format:)` recognised, else nil.
    public func recognise(head: Data, format: PayloadFormat) -> String? {
        recognition(head: head, format: format).operation
    }

    /// Decodes a page of any of the three lists, XML or JSON (the bytes decide). The operation
    /// comes from the payload, its request or the context's request, else from recognition;
    /// the school list (`gubun`) from the request, else from a list name in the file name
    /// (fixtures such as `school-high_list.json`), else from the items (university items carry
    /// `campusName`), else from the pipeline's parameters.
    ///
    /// Throws `FeedError`: `.api` for error answers (transient or terminal by what they say),
    /// `.malformed` for malformed or truncated documents, `.unrecognised` when the operation
    /// cannot be determined. An empty list is not an error. XML items stream into `sink` while
    /// the document is read, so records delivered before a late failure belong to a failed page.
    public func decode(_ payload: RawPayload, context: DecodeContext, into sink: inout some RecordSink) throws -> PageSummary {
        let origin = payload.request?.displayURL ?? context.request?.displayURL ?? payload.file.lastPathComponent
        let source = PayloadSource(payload)
        let head = try source.head(16 * 1024, origin: origin)  // the wrapper and the first item
        let format = PayloadArchive.sniffFormat(head) ?? payload.format
        let endpoint = try endpoint(for: payload, context: context, head: head, origin: origin)
        let list = payload.request?.parameter("gubun") ?? context.request?.parameter("gubun")
            ?? Self.list(inFileName: payload.file.lastPathComponent, of: endpoint)
        let fallback = context.fallbackParameters["gubun"].flatMap { endpoint.lists.contains($0) ? $0 : nil }
        let page = CareerNetPage(list: list, fallbackList: fallback)
        let decoder = CareerNetDecoder(endpoint: endpoint, page: page, origin: origin)
        var summary = try decoder.decode(source, format: format, into: &sink)
        summary.pageNo = payload.request.flatMap { $0.parameter("thisPage") }.flatMap { Int($0) }
        return summary
    }

    private func endpoint(for payload: RawPayload, context: DecodeContext, head: Data, origin: String) throws -> CareerNetEndpoint {
        let declared = [payload.operation, payload.request?.operation, context.request?.operation].compactMap { $0 }
        if let name = declared.first {
            guard let endpoint = CareerNetEndpoint.named(name) else {
                throw FeedError(.unrecognised, .terminal, "“\(name)” is not a CareerNet operation, so the payload cannot be decoded.",
                                context: origin)
            }
            return endpoint
        }
        switch recognition(head: head, format: payload.format) {
        case .shape(let name):
            guard let endpoint = CareerNetEndpoint.named(name) else { break }
            return endpoint
        case .refused(let reason):
            throw FeedError(.unrecognised, .terminal, reason, context: origin)
        case .foreign:
            break
        }
        throw FeedError(.unrecognised, .terminal, "The payload is not one of the CareerNet lists this feed reads.", context: origin)
    }

    /// A `gubun` value of `endpoint` named in a file name (`school-high_list.xml` → `high_list`).
    static func list(inFileName name: String, of endpoint: CareerNetEndpoint) -> String? {
        endpoint.lists.first { name.contains($0) }
    }


    // MARK: - Parameter validation

    private func validated(_ parameters: [QueryItem], for endpoint: CareerNetEndpoint) throws -> (list: String, others: [QueryItem]) {
        var list: String?
        var others: [QueryItem] = []
        for parameter in parameters {
            let value = parameter.value.trimmingCharacters(in: .whitespaces)
            switch parameter.name {
            case "apiKey":
                throw FeedError(.invalidRequest, .terminal,
                                "The parameter apiKey must not be written in a pipeline: the key comes from \(credentialVariable).")
            case "svcType", "svcCode", "contentType", "thisPage", "perPage":
                throw FeedError(.invalidRequest, .terminal,
                                "The parameter \(parameter.name) is set by the feed (from the pipeline's operation, format and page size); remove it from the parameters of \(endpoint.operation).")
            case "gubun":
                guard endpoint.lists.contains(value) else {
                    throw FeedError(.invalidRequest, .terminal,
                                    "The parameter gubun of \(endpoint.operation) is “\(value)”, but it must be one of \(endpoint.lists.joined(separator: ", ")).")
                }
                list = value
            default:
                guard endpoint.parameters.contains(parameter.name) else {
                    let accepted = (["gubun"] + endpoint.parameters).joined(separator: ", ")
                    throw FeedError(.invalidRequest, .terminal,
                                    "The parameter \(parameter.name) is not accepted by \(endpoint.operation); it accepts \(accepted).")
                }
                guard !value.isEmpty else {
                    throw FeedError(.invalidRequest, .terminal, "The parameter \(parameter.name) of \(endpoint.operation) is empty.")
                }
                others.append(QueryItem(parameter.name, value))
            }
        }
        guard let chosen = list ?? endpoint.defaultList else {
            throw FeedError(.invalidRequest, .terminal,
                            "The parameter gubun is required by \(endpoint.operation): one of \(endpoint.lists.joined(separator: ", ")).")
        }
        return (chosen, others)
    }
}
