import Foundation
import Pipeline

/// One school campus from CareerNet's school lists (`svcCode=SCHOOL`). Campuses of one
/// university are separate schools with their own key.
public struct School: Hashable, Sendable {
    /// The natural key: CareerNet's `seq`, verbatim and opaque (`"302.0"` stays `"302.0"`).
    /// When an item has no `seq`, a key derived from region, name and campus (`name:…`).
    public var key: String
    /// The list the school came from (`elem_list`, `midd_list`, `high_list`, `univ_list`,
    /// `seet_list`, `alte_list`), when known.
    public var list: String?
    /// `schoolName`, e.g. 경희대학교.
    public var name: String
    /// `campusName`, e.g. 본교, 국제캠퍼스 (university lists only).
    public var campus: String?
    /// `schoolGubun`, e.g. 대학(4년제), 전문대학, 일반고.
    public var category: String?
    /// `schoolType`, e.g. 일반대학.
    public var kind: String?
    /// `estType`: 국립, 공립, 사립.
    public var establishment: String?
    /// `region`: the province as written, e.g. 서울특별시.
    public var region: String?
    /// `adres`: the street address.
    public var address: String?
    /// `link`: the school's home page.
    public var homepage: String?
    /// `collegeinfourl`: the school's page on 대학알리미.
    public var collegeInfoURL: String?

    public init(key: String, list: String?, name: String, campus: String? = nil, category: String? = nil,
                kind: String? = nil, establishment: String? = nil, region: String? = nil, address: String? = nil,
                homepage: String? = nil, collegeInfoURL: String? = nil) {
        self.key = key; self.list = list; self.name = name; self.campus = campus; self.category = category
        self.kind = kind; self.establishment = establishment; self.region = region; self.address = address
        self.homepage = homepage; self.collegeInfoURL = collegeInfoURL
    }
}

/// One major from CareerNet's major list (`svcCode=MAJOR`, `gubun=univ_list`).
public struct Major: Hashable, Sendable {
    /// The natural key: `majorSeq`, verbatim.
    public var seq: String
    /// `lClass`: the field (계열), e.g. 공학계열.
    public var field: String?
    /// `mClass`: the major's name (학과명).
    public var name: String?
    /// `facilName` split at commas: the detailed department names (세부학과명), in published
    /// order, trimmed, without empties or repeats.
    public var departments: [String]

    public init(seq: String, field: String?, name: String?, departments: [String]) {
        self.seq = seq; self.field = field; self.name = name; self.departments = departments
    }
}

/// One job from CareerNet's job dictionary (`svcCode=JOB`, `gubun=job_dic_list`).
public struct JobInfo: Hashable, Sendable {
    /// The natural key: `jobdicSeq`, verbatim.
    public var seq: String
    /// `job`: the job's name.
    public var name: String?
    /// `profession`: the job group.
    public var profession: String?
    /// `similarJob`: related jobs, as published.
    public var similarJobs: String?
    /// `summary`: what the job is.
    public var summary: String?
    /// `equalemployment`: the equal-employment indicator, as published.
    public var equalEmployment: String?
    /// `possibility`: the development outlook, as published.
    public var possibility: String?
    /// `prospect`: the employment outlook (reported to be always empty).
    public var prospect: String?
    /// The API's `salery` (sic): pay as text, e.g. `4000 만원 이상`.
    public var salary: String?
    /// `job_code`.
    public var jobCode: String?
    /// `job_ctg_code`: the job category code.
    public var categoryCode: String?
    /// `aptd_type_code`: the aptitude type code.
    public var aptitudeTypeCode: String?

    public init(seq: String, name: String?, profession: String? = nil, similarJobs: String? = nil, summary: String? = nil,
                equalEmployment: String? = nil, possibility: String? = nil, prospect: String? = nil, salary: String? = nil,
                jobCode: String? = nil, categoryCode: String? = nil, aptitudeTypeCode: String? = nil) {
        self.seq = seq; self.name = name; self.profession = profession; self.similarJobs = similarJobs
        self.summary = summary; self.equalEmployment = equalEmployment; self.possibility = possibility
        self.prospect = prospect; self.salary = salary; self.jobCode = jobCode; self.categoryCode = categoryCode
        self.aptitudeTypeCode = aptitudeTypeCode
    }
}

extension School: LoadableRecord {}
extension Major: LoadableRecord {}
extension JobInfo: LoadableRecord {}
