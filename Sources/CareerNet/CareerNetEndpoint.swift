import FeedCore
import Pipeline

/// One CareerNet list (`svcCode`): the `gubun` lists it serves, the parameters a pipeline may
/// pass, the item fields it reads and how an item becomes a record. Adding a list means adding
/// one of these.
struct CareerNetEndpoint: Sendable {
    /// The canonical operation name: the `svcCode` (`SCHOOL`, `MAJOR`, `JOB`).
    let operation: String
    /// Friendly names a pipeline may use instead (`schools`).
    let aliases: [String]
    /// The accepted `gubun` values; the first is the default when a pipeline gives none (nil:
    /// `gubun` is required).
    let lists: [String]
    let defaultList: String?
    /// The other parameters a pipeline may pass (the feed sets `svcType`, `svcCode`,
    /// `contentType`, `thisPage` and `perPage` itself).
    let parameters: [String]
    /// The item fields read.
    let schema: FieldSchema
    /// The field every real item has: an item with a `message` and without it is an error.
    let keyField: String
    /// One item → a record and diagnostics; shared by the XML and JSON paths.
    let mapItem: @Sendable (ItemFields, CareerNetPage) -> ItemOutcome

    /// Whether `name` (canonical or alias; case-insensitive) names this endpoint.
    func answers(to name: String) -> Bool {
        name.uppercased() == operation || aliases.contains(name.lowercased())
    }
}

extension CareerNetEndpoint {
    /// School lists: 초등 `elem_list`, 중 `midd_list`, 고 `high_list`, 대학 `univ_list`,
    /// 특수/기타 `seet_list`, 대안 `alte_list`.
    static let schools = CareerNetEndpoint(
        operation: "SCHOOL", aliases: ["schools", "school"],
        lists: ["elem_list", "midd_list", "high_list", "univ_list", "seet_list", "alte_list"], defaultList: nil,
        parameters: ["region", "searchSchulNm"],
        schema: SchoolItemMapping.schema, keyField: "schoolName",
        mapItem: { item, page in SchoolItemMapping.map(item, page: page) })

    /// University majors (`univ_list`), with their departments in `facilName`.
    static let majors = CareerNetEndpoint(
        operation: "MAJOR", aliases: ["majors", "major"],
        lists: ["univ_list"], defaultList: "univ_list",
        parameters: ["univSe", "subject", "searchTitle"],
        schema: MajorItemMapping.schema, keyField: "majorSeq",
        mapItem: { item, page in MajorItemMapping.map(item, page: page) })

    /// The job dictionary (`job_dic_list`).
    static let jobs = CareerNetEndpoint(
        operation: "JOB", aliases: ["jobs", "job"],
        lists: ["job_dic_list"], defaultList: "job_dic_list",
        parameters: ["searchWord", "searchJobCd", "searchAptdCodes", "searchThemeCode"],
        schema: JobItemMapping.schema, keyField: "jobdicSeq",
        mapItem: { item, page in JobItemMapping.map(item, page: page) })

    static let all: [CareerNetEndpoint] = [schools, majors, jobs]

    /// The endpoint `name` designates (canonical or alias), or nil.
    static func named(_ name: String) -> CareerNetEndpoint? {
        all.first { $0.answers(to: name) }
    }
}
