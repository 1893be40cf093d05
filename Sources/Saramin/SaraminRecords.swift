import Foundation
import Pipeline

// MARK: - Coded values

/// A code and its display name as Saramin publishes them (`{"code":"8","name":"대학교졸업(4년)이상"}`);
/// either may be missing (salaries sometimes come without a name).
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

// MARK: - Postings

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

extension JobPosting: LoadableRecord {}
