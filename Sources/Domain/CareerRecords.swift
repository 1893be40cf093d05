import Foundation

// MARK: - The record

/// Career records: CareerNet schools, majors and jobs, and Saramin job postings.
///
/// Produced by the `CareerNet` and `Saramin` feeds (one record per item, after mapping wire
/// strings to typed values); consumed by Storage, which upserts each by its natural key.
public enum CareerRecord: Hashable, Sendable {
    /// One school campus from a CareerNet `SCHOOL` list.
    case school(School)
    /// One major from the CareerNet `MAJOR` list, with its departments.
    case major(Major)
    /// One job from the CareerNet job dictionary (`JOB`, `job_dic_list`).
    case jobInfo(JobInfo)
    /// One Saramin job posting.
    case jobPosting(JobPosting)
}

// MARK: - Shared values

/// A code and its display name as a feed publishes them (`{"code":"8","name":"대학교졸업(4년)이상"}`);
/// either may be missing (Saramin salaries sometimes come without a name).
public struct CodeName: Hashable, Sendable {
    public var code: String?
    public var name: String?

    public init(code: String?, name: String?) {
        self.code = code
        self.name = name
    }
}

/// One entry of a multi-valued coded field: a code, a name, or both when they could be paired.
public struct CodedEntry: Hashable, Sendable {
    public var code: String?
    public var name: String?

    public init(code: String?, name: String?) {
        self.code = code
        self.name = name
    }
}

/// A multi-valued coded field as Saramin publishes it: comma-joined codes beside comma-joined
/// names (`"2,16"` / `"IT개발·데이터,기획·전략"`).
///
/// The two lists are kept apart because their lengths can differ (job-code names usually
/// outnumber the codes): they are paired position by position only when the counts agree,
/// never zipped otherwise.
public struct CodedList: Hashable, Sendable {
    /// The codes, in published order.
    public var codes: [String]
    /// The names, in published order.
    public var names: [String]

    public init(codes: [String] = [], names: [String] = []) {
        self.codes = codes
        self.names = names
    }

    /// True when there is nothing in either list.
    public var isEmpty: Bool { codes.isEmpty && names.isEmpty }

    /// True when codes and names have the same count and so describe the same entries.
    public var isPaired: Bool { codes.count == names.count }

    /// The entries to store: pairs when the counts agree; otherwise every code (without a name)
    /// followed by every name (without a code).
    public var entries: [CodedEntry] {
        if isPaired { return zip(codes, names).map { CodedEntry(code: $0, name: $1) } }
        return codes.map { CodedEntry(code: $0, name: nil) } + names.map { CodedEntry(code: nil, name: $0) }
    }
}

// MARK: - CareerNet

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

// MARK: - Saramin

/// Saramin's experience level: code 0 경력무관, 1 신입, 2 경력, 3 신입/경력, with the years asked.
public struct ExperienceLevel: Hashable, Sendable {
    /// 0 경력무관, 1 신입, 2 경력, 3 신입/경력.
    public var code: Int?
    /// Minimum years of experience.
    public var minYears: Int?
    /// Maximum years of experience.
    public var maxYears: Int?
    /// The level as displayed, e.g. `경력 3~10년`.
    public var name: String?

    public init(code: Int?, minYears: Int?, maxYears: Int?, name: String?) {
        self.code = code; self.minYears = minYears; self.maxYears = maxYears; self.name = name
    }
}

/// One Saramin job posting (`job-search`), with its multi-valued fields as lists.
public struct JobPosting: Hashable, Sendable {
    /// The natural key: Saramin's posting number (`id`).
    public var id: String
    /// The posting's page.
    public var url: String?
    /// Whether the posting is open (`active` 1) or closed (0).
    public var active: Bool?
    /// The company's name.
    public var company: String?
    /// The company's page on Saramin.
    public var companyURL: String?
    /// The posting's title.
    public var title: String?
    /// The company's industry.
    public var industry: CodeName?
    /// Work places (`101010` / `서울 > 강남구`).
    public var locations: CodedList
    /// Employment types (정규직, 계약직 …).
    public var jobTypes: CodedList
    /// Job groups (`job-mid-code`).
    public var jobMidCodes: CodedList
    /// Jobs (`job-code`; names usually outnumber codes).
    public var jobCodes: CodedList
    /// `job-category`, usually empty.
    public var jobCategories: CodedList
    /// The experience asked for.
    public var experience: ExperienceLevel?
    /// The education asked for.
    public var education: CodeName?
    /// The salary (code 0 회사내규에 따름, 99 면접후 결정, ranges …); the name may be missing.
    public var salary: CodeName?
    /// `keyword`, split at commas.
    public var keywords: [String]
    /// When the posting was published.
    public var postedAt: Date?
    /// When the posting was last modified (the incremental bookmark follows this).
    public var modifiedAt: Date?
    /// When applications open.
    public var opensAt: Date?
    /// The application deadline; nil when there is none (Saramin's far-future sentinels).
    public var expiresAt: Date?
    /// True when the published expiration was a "no deadline" sentinel (2033 or later).
    public var openEnded: Bool
    /// How the posting closes: 1 접수마감일, 2 채용시, 3 상시, 4 수시.
    public var closeType: CodeName?

    public init(id: String, url: String? = nil, active: Bool? = nil, company: String? = nil, companyURL: String? = nil,
                title: String? = nil, industry: CodeName? = nil, locations: CodedList = CodedList(),
                jobTypes: CodedList = CodedList(), jobMidCodes: CodedList = CodedList(), jobCodes: CodedList = CodedList(),
                jobCategories: CodedList = CodedList(), experience: ExperienceLevel? = nil, education: CodeName? = nil,
                salary: CodeName? = nil, keywords: [String] = [], postedAt: Date? = nil, modifiedAt: Date? = nil,
                opensAt: Date? = nil, expiresAt: Date? = nil, openEnded: Bool = false, closeType: CodeName? = nil) {
        self.id = id; self.url = url; self.active = active; self.company = company; self.companyURL = companyURL
        self.title = title; self.industry = industry; self.locations = locations; self.jobTypes = jobTypes
        self.jobMidCodes = jobMidCodes; self.jobCodes = jobCodes; self.jobCategories = jobCategories
        self.experience = experience; self.education = education; self.salary = salary; self.keywords = keywords
        self.postedAt = postedAt; self.modifiedAt = modifiedAt; self.opensAt = opensAt; self.expiresAt = expiresAt
        self.openEnded = openEnded; self.closeType = closeType
    }

    /// The province part of a Saramin location name: `서울` for `서울 > 강남구`, the whole name
    /// when it has no `>`; nil for an empty name.
    public static func province(ofLocation name: String) -> String? {
        let head = name.split(separator: ">", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let trimmed = head.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }
}
