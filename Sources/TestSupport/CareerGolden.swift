import CareerNet
import Domain
import Foundation
import Pipeline
import Saramin

/// Golden-file lines for career records (CareerNet schools, majors, jobs; Saramin postings),
/// in the style of `Golden.line(_:)`: `kind name=value …`, missing values `nil`, text quoted
/// only when it must be. Each career record type renders through it (`GoldenRenderable`).
extension School: GoldenRenderable { public var goldenLine: String { CareerGolden.line(.school(self)) } }
extension Major: GoldenRenderable { public var goldenLine: String { CareerGolden.line(.major(self)) } }
extension JobInfo: GoldenRenderable { public var goldenLine: String { CareerGolden.line(.jobInfo(self)) } }
extension JobPosting: GoldenRenderable { public var goldenLine: String { CareerGolden.line(.jobPosting(self)) } }

/// A career record of either feed: a CareerNet school, major or job, or a Saramin job posting,
/// as one value that golden lines are rendered from.
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

public enum CareerGolden {
    /// One line for one career record.
    public static func line(_ record: CareerRecord) -> String {
        switch record {
        case .school(let s):
            return fields("school", [
                ("key", text(s.key)), ("list", text(s.list)), ("name", text(s.name)), ("campus", text(s.campus)),
                ("category", text(s.category)), ("kind", text(s.kind)), ("establishment", text(s.establishment)),
                ("region", text(s.region)), ("address", text(s.address)), ("homepage", text(s.homepage)),
                ("college_info_url", text(s.collegeInfoURL)),
            ])
        case .major(let m):
            return fields("major", [
                ("seq", text(m.seq)), ("field", text(m.field)), ("name", text(m.name)),
                ("departments", "\(m.departments.count):\(text(m.departments.joined(separator: "|")))"),
            ])
        case .jobInfo(let j):
            return fields("job_info", [
                ("seq", text(j.seq)), ("name", text(j.name)), ("profession", text(j.profession)),
                ("similar_jobs", text(j.similarJobs)), ("summary", text(j.summary)),
                ("equal_employment", text(j.equalEmployment)), ("possibility", text(j.possibility)),
                ("prospect", text(j.prospect)), ("salary", text(j.salary)), ("job_code", text(j.jobCode)),
                ("category_code", text(j.categoryCode)), ("aptitude_type_code", text(j.aptitudeTypeCode)),
            ])
        case .jobPosting(let p):
            return fields("job_posting", [
                ("id", text(p.id)), ("active", p.active.map { $0 ? "1" : "0" } ?? "nil"),
                ("company", text(p.company)), ("company_url", text(p.companyURL)), ("title", text(p.title)),
                ("industry", codeName(p.industry)), ("locations", list(p.locations)), ("job_types", list(p.jobTypes)),
                ("job_mid_codes", list(p.jobMidCodes)), ("job_codes", list(p.jobCodes)),
                ("job_categories", list(p.jobCategories)), ("experience", experience(p.experience)),
                ("education", codeName(p.education)), ("salary", codeName(p.salary)),
                ("keywords", p.keywords.isEmpty ? "none" : text(p.keywords.joined(separator: "|"))),
                ("posted", time(p.postedAt)), ("modified", time(p.modifiedAt)), ("opens", time(p.opensAt)),
                ("expires", time(p.expiresAt)), ("open_ended", p.openEnded ? "1" : "0"), ("close_type", codeName(p.closeType)),
                ("url", text(p.url)),
            ])
        }
    }

    // MARK: Helpers

    private static func fields(_ kind: String, _ pairs: [(String, String)]) -> String {
        ([kind] + pairs.map { "\($0.0)=\($0.1)" }).joined(separator: " ")
    }

    private static func text(_ value: String?) -> String { Golden.text(value) }

    private static func time(_ value: Date?) -> String { value.map(iso8601UTC) ?? "nil" }

    /// `code:name` (either side `-` when missing); `nil` when absent.
    private static func codeName(_ value: CodeName?) -> String {
        guard let value else { return "nil" }
        return text("\(value.code ?? "-"):\(value.name ?? "-")")
    }

    /// The stored entries, `code/name` joined by `|` (`-` for a missing side), prefixed with
    /// `paired:` or `unpaired:`; `none` when empty.
    private static func list(_ value: CodedList) -> String {
        guard !value.isEmpty else { return "none" }
        let entries = value.entries.map { "\($0.code ?? "-")/\($0.name ?? "-")" }.joined(separator: "|")
        return text("\(value.isPaired ? "paired" : "unpaired"):\(entries)")
    }

    private static func experience(_ value: ExperienceLevel?) -> String {
        guard let value else { return "nil" }
        let parts = [value.code.map(String.init) ?? "-", value.minYears.map(String.init) ?? "-",
                     value.maxYears.map(String.init) ?? "-", value.name ?? "-"]
        return text(parts.joined(separator: ":"))
    }
}
