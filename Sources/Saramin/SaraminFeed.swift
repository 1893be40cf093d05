import Foundation
import FeedCore
import Pipeline

/// The Saramin job-search OpenAPI (사람인, `oapi.saramin.co.kr/job-search`): job postings by
/// keyword, job category, location and more, in JSON or XML (chosen with the `Accept` header).
///
/// Paging: `start` is the 0-based page number and `count` the page size (at most 110); pages
/// are followed until a short page or until `total` is reached. Incremental runs: storage keeps
/// the newest `modification-timestamp` loaded as the pipeline bookmark
/// `newest_modification_timestamp` (Unix seconds); `resuming(_:fromBookmark:)` turns it into
/// the `updated_min` parameter so a scheduled run fetches only what changed.
public struct SaraminFeed: Feed {
    /// Where this feed's records go: writers for its record types (`SaraminTables`).
    public var schema: FeedSchema { SaraminTables.schema }

    /// `saramin`.
    public let source = "saramin"
    /// `SARAMIN_ACCESS_KEY`: the access key, sent as the `access-key` query parameter.
    public let credentialVariable = "SARAMIN_ACCESS_KEY"
    /// The root `job-search` hangs from (`https://oapi.saramin.co.kr/` live).
    public let baseURL: URL

    /// The operation name: `job-search`.
    public static let jobSearch = "job-search"
    /// The largest page size (`count`) Saramin serves.
    public static let maximumPageSize = 110
    /// The pipeline bookmark holding the newest `modification-timestamp` loaded (Unix seconds).
    public static let modificationBookmark = "newest_modification_timestamp"
    /// The request parameter a bookmark is sent back as.
    public static let modifiedSinceParameter = "updated_min"

    /// Search parameters a pipeline may pass (multi-values separated by commas or spaces).
    public static let acceptedParameters = [
        "keywords", "id", "bbs_gb", "stock", "sr", "loc_cd", "loc_mcd", "loc_bcd", "ind_cd", "job_mid_cd", "job_cd",
        "job_type", "edu_lv", "fields", "sort", "published", "published_min", "published_max",
        "updated", "updated_min", "updated_max", "deadline",
    ]
    /// Parameters whose value is Unix seconds.
    static let timestampParameters: Set<String> = ["published", "published_min", "published_max", "updated", "updated_min", "updated_max"]

    /// A feed talking to `baseURL` (tests point it at a loopback server).
    public init(baseURL: URL = URL(string: "https://oapi.saramin.co.kr/")!) {
        self.baseURL = baseURL
    }

    /// `job-search`.
    public var operations: [String] { [Self.jobSearch] }

    /// Where the key goes: the `access-key` query parameter, filled by the live transport from
    /// `SARAMIN_ACCESS_KEY` (never stored in a request).
    public var credential: CredentialRequirement {
        CredentialRequirement(environmentVariable: credentialVariable, placement: .query("access-key"))
    }

    // MARK: - Requests and paging

    /// One first-page request per combination of list-valued parameters. Query order: `count`
    /// (= `spec.pageSize`), `start=0`, then the pipeline's parameters; the format goes in the
    /// `Accept` header. Throws `.invalidRequest` (terminal) naming the bad operation or parameter.
    public func requests(for spec: SourceSpec) throws -> [FeedRequest] {
        let wanted = spec.operation.lowercased()
        guard wanted == Self.jobSearch || wanted == "job-postings" || wanted == "postings" else {
            throw FeedError(.invalidRequest, .terminal,
                            "The Saramin feed has no operation named “\(spec.operation)”; use job-search.")
        }
        guard (1...Self.maximumPageSize).contains(spec.pageSize) else {
            throw FeedError(.invalidRequest, .terminal,
                            "The page size (count) for job-search must be 1…\(Self.maximumPageSize), not \(spec.pageSize); set page_size: \(Self.maximumPageSize).")
        }
        return try spec.expandedParameters.map { parameters in
            FeedRequest(
                source: source, operation: Self.jobSearch,
                baseURL: baseURL.appendingPathComponent(Self.jobSearch),
                query: [QueryItem("count", String(spec.pageSize)), QueryItem("start", "0")] + (try validated(parameters)),
                headers: ["Accept": spec.format == .json ? "application/json" : "application/xml"],
                format: spec.format, credential: credential, page: 1)
        }
    }

    /// `request` for page `page` (1-based): `start` is the 0-based page number; nil below 1.
    public func request(_ request: FeedRequest, page: Int) -> FeedRequest? {
        guard page >= 1 else { return nil }
        var next = request.setting("start", to: String(page - 1))
        next.page = page
        return next
    }

    /// The last page is an empty or short page (fewer jobs than `count`), or the page that
    /// reaches `total`.
    public func isLastPage(_ summary: PageSummary, of request: FeedRequest) -> Bool {
        guard summary.itemCount > 0 else { return true }
        guard let count = request.parameter("count").flatMap({ Int($0) }), count > 0 else { return true }
        if summary.itemCount < count { return true }
        let page = request.page ?? request.parameter("start").flatMap { Int($0) }.map { $0 + 1 } ?? 1
        if let total = summary.reportedTotal, page * count >= total { return true }
        return false
    }

    /// Adds `updated_min` from the `newest_modification_timestamp` bookmark (Unix seconds), so
    /// scheduled runs fetch only postings changed since the newest one loaded; postings at the
    /// bookmark itself come again and load as unchanged. Left alone when the pipeline sets
    /// `updated_min` itself or the bookmark is not Unix seconds.
    public func resuming(_ spec: SourceSpec, bookmarks: [String: String]) -> SourceSpec {
        guard let bookmark = bookmarks[Self.modificationBookmark], let seconds = Int64(bookmark.trimmingCharacters(in: .whitespaces)),
              seconds > 0, !spec.parameters.contains(where: { $0.name == Self.modifiedSinceParameter }) else { return spec }
        var resumed = spec
        resumed.parameters.append((Self.modifiedSinceParameter, [String(seconds)]))
        return resumed
    }

    // MARK: - Recognition and decoding

    /// A posting of `job-search`, by its members: an `id` or `url`, and a `position` or
    /// `company`.
    static let shapes = [PayloadShape(jobSearch, requires: [["id", "url"], ["position", "company"]])]

    /// `job-search` for a Saramin answer (`{"jobs":{…}}`, `<job-search>`) whose first posting
    /// has the members of one (`shapes`), or that holds no posting; refused when its first
    /// `job` is something else; not Saramin's otherwise.
    public func recognition(head: Data, format: PayloadFormat) -> Recognition {
        let wrapped: Bool
        let job: HeadFields
        switch PayloadArchive.sniffFormat(head) ?? format {
        case .json:
            let jobs = HeadFields.json(head, path: ["jobs"])
            wrapped = HeadFields.json(head, path: []).has("jobs") && (jobs.has("job") || jobs.has("total"))
            job = HeadFields.json(head, path: ["jobs", "job"])
        case .xml:
            let text = String(decoding: head, as: UTF8.self)
            wrapped = text.contains("<job-search") || (text.contains("<jobs") && text.contains("<job>"))
            job = HeadFields.xml(head, element: "job")
        }
        guard wrapped else { return .foreign }
        if case .members(let names) = job, !names.isEmpty {
            return Recognition.judge(Self.shapes, what: "The Saramin jobs' fields", has: job.has)
        }
        return .shape(Self.jobSearch)
    }

    /// The operation `recognition(head:format:)` recognised, else nil.
    public func recognise(head: Data, format: PayloadFormat) -> String? {
        recognition(head: head, format: format).operation
    }

    /// Decodes a `job-search` page, XML or JSON (the bytes decide).
    ///
    /// Throws `FeedError`: `.api` for error answers (transient or terminal by what they say),
    /// `.malformed` for malformed or truncated documents and for payloads that are not a
    /// Saramin answer. An empty result is not an error. XML jobs stream into `sink` while the
    /// document is read, so records delivered before a late failure belong to a failed page.
    public func decode(_ payload: RawPayload, context: DecodeContext, into sink: inout some RecordSink) throws -> PageSummary {
        let origin = payload.request?.displayURL ?? context.request?.displayURL ?? payload.file.lastPathComponent
        let declared = payload.operation ?? payload.request?.operation ?? context.request?.operation
        if let declared, declared != Self.jobSearch {
            throw FeedError(.unrecognised, .terminal, "“\(declared)” is not a Saramin operation, so the payload cannot be decoded.",
                            context: origin)
        }
        let source = PayloadSource(payload)
        let head = try source.head(512, origin: origin)  // enough to tell XML from JSON
        let format = PayloadArchive.sniffFormat(head) ?? payload.format
        return try SaraminDecoder(origin: origin).decode(source, format: format, into: &sink)
    }


    // MARK: - Parameter validation

    private func validated(_ parameters: [QueryItem]) throws -> [QueryItem] {
        try parameters.map { parameter in
            let value = parameter.value.trimmingCharacters(in: .whitespaces)
            switch parameter.name {
            case "access-key":
                throw FeedError(.invalidRequest, .terminal,
                                "The parameter access-key must not be written in a pipeline: the key comes from \(credentialVariable).")
            case "start", "count":
                throw FeedError(.invalidRequest, .terminal,
                                "The parameter \(parameter.name) is set by the feed (paging and page_size); remove it from the parameters of job-search.")
            default:
                break
            }
            guard Self.acceptedParameters.contains(parameter.name) else {
                throw FeedError(.invalidRequest, .terminal,
                                "The parameter \(parameter.name) is not accepted by job-search; it accepts \(Self.acceptedParameters.joined(separator: ", ")).")
            }
            guard !value.isEmpty else {
                throw FeedError(.invalidRequest, .terminal, "The parameter \(parameter.name) of job-search is empty.")
            }
            if Self.timestampParameters.contains(parameter.name), Int64(value) == nil {
                throw FeedError(.invalidRequest, .terminal,
                                "The parameter \(parameter.name) of job-search is “\(value)”, but it must be Unix seconds (e.g. 1632734241).")
            }
            return QueryItem(parameter.name, value)
        }
    }
}
