import Domain
import FeedCore
import Foundation
import Pipeline

/// The diagnostic codes only Saramin jobs raise.
extension DiagnosticCode {
    /// A timestamp is not Unix seconds (`unparsable-timestamp`).
    public static let unparsableTimestamp = DiagnosticCode("unparsable-timestamp")
    /// A timestamp lies outside 2000…2100 (`implausible-timestamp`).
    public static let implausibleTimestamp = DiagnosticCode("implausible-timestamp")
    /// A flag such as `active` is neither 1 nor 0 (`unparsable-flag`).
    public static let unparsableFlag = DiagnosticCode("unparsable-flag")
    /// A comma-joined code list and its name list differ in length (`unpaired-codes`).
    public static let unpairedCodes = DiagnosticCode("unpaired-codes")
    /// A deadline posting carries the far-future "no deadline" expiration (`open-ended-deadline`).
    public static let openEndedDeadline = DiagnosticCode("open-ended-deadline")
}

/// Turns one Saramin job (JSON object or XML element, read by `SaraminField.schema`) into a
/// `JobPosting`.
///
/// Quirks handled: timestamps are strings of Unix seconds; `experience-level.code` is a number
/// (a string in XML); far-future expirations (2033 and later) mean "no deadline" → nil plus
/// `openEnded`; multi-valued fields are comma-joined strings, kept as code and name lists that
/// are paired only when their counts agree; `&gt;` and other entities are unescaped; `salary`
/// may lack a name; `job-category` may be empty.
enum SaraminJobMapping {
    /// Expirations at or after 2033-01-01 00:00 KST (`1988118000`) are Saramin's "no deadline"
    /// sentinels (`1988118000` for 채용시, `2019567600` for 상시).
    static let openEndedThreshold: TimeInterval = 1_988_118_000
    /// Timestamps before 2000-01-01 or after 2100-01-01 UTC are not plausible for a posting.
    static let plausibleSeconds: ClosedRange<TimeInterval> = 946_684_800...4_102_444_800

    static func map(_ job: ItemFields) -> ItemOutcome {
        let title = text(job["position/title"])
        var notes = ItemDiagnostics(position: job.position, noun: "job")
        for diagnostic in job.readerDiagnostics(noun: "job") { notes.add(diagnostic) }
        guard let id = text(job["id"]) else {
            notes.subject = title
            return notes.skip(.missingValue, field: "id", value: job["id"], "The job has no id, its only key; it is skipped.")
        }
        notes.subject = id

        var posting = JobPosting(id: id)
        posting.url = text(job["url"])
        posting.active = flag(job["active"], field: "active", notes: &notes)
        posting.company = text(job["company/detail/name"] ?? job["company/name"])
        posting.companyURL = text(job["company/detail/href"] ?? job["company/name/href"])
        posting.title = title
        posting.industry = codeName(job, "position/industry")
        posting.locations = codedList(job, "position/location", expectPaired: true, notes: &notes)
        posting.jobTypes = codedList(job, "position/job-type", expectPaired: true, notes: &notes)
        posting.jobMidCodes = codedList(job, "position/job-mid-code", expectPaired: true, notes: &notes)
        posting.jobCodes = codedList(job, "position/job-code", expectPaired: false, notes: &notes)
        posting.jobCategories = codedList(job, "position/job-category", expectPaired: false, notes: &notes)
        posting.experience = experience(job, notes: &notes)
        posting.education = codeName(job, "position/required-education-level")
        posting.salary = codeName(job, "salary")
        if let salary = posting.salary, salary.code != nil, salary.name == nil {
            notes.note(.missingValue, field: "salary.name", value: salary.code,
                       "The salary has code \(salary.code ?? "") but no name; the name is stored as missing.")
        }
        posting.keywords = WireValue.saramin.list(job["keyword"])
        posting.postedAt = timestamp(job["posting-timestamp"], field: "posting-timestamp", notes: &notes)
        posting.modifiedAt = timestamp(job["modification-timestamp"], field: "modification-timestamp", notes: &notes)
        posting.opensAt = timestamp(job["opening-timestamp"], field: "opening-timestamp", notes: &notes)
        posting.closeType = codeName(job, "close-type")
        let expiration = timestamp(job["expiration-timestamp"], field: "expiration-timestamp", notes: &notes, allowSentinel: true)
        if let expiration, expiration.timeIntervalSince1970 >= openEndedThreshold {
            posting.openEnded = true
            if posting.closeType?.code == "1" {
                notes.note(.openEndedDeadline, field: "expiration-timestamp", value: job["expiration-timestamp"],
                           "The posting closes on a deadline (close-type 1) but its expiration is the far-future “no deadline” sentinel; it is stored with no deadline.")
            }
        } else {
            posting.expiresAt = expiration
        }
        return notes.keep(FeedRecord(posting))
    }

    // MARK: - Fields

    private static func text(_ raw: String?) -> String? { WireValue.saramin.text(raw) }

    /// The `{code,name}` field at `path` (or `<x code="…">name</x>`); nil when both are missing.
    static func codeName(_ job: ItemFields, _ path: String) -> CodeName? {
        let code = text(job.code(of: path))
        let name = text(job.name(of: path))
        guard code != nil || name != nil else { return nil }
        return CodeName(code: code, name: name)
    }

    /// A comma-joined `{code,name}` as two lists; a diagnostic when lists expected to pair do not.
    static func codedList(_ job: ItemFields, _ path: String, expectPaired: Bool, notes: inout ItemDiagnostics) -> CodedList {
        let codes = WireValue.saramin.list(job.code(of: path))
        let names = WireValue.saramin.list(job.name(of: path))
        let list = CodedList(codes: codes, names: names)
        if expectPaired, !list.isPaired {
            let field = String(path.split(separator: "/").last!)
            notes.note(.unpairedCodes, field: field, value: "\(codes.count) codes, \(names.count) names",
                       "\(field) has \(codes.count) codes but \(names.count) names; they are stored unpaired, not zipped.")
        }
        return list
    }

    /// `experience-level`: code, min and max are numbers (or numeric strings), name is text.
    static func experience(_ job: ItemFields, notes: inout ItemDiagnostics) -> ExperienceLevel? {
        let path = "position/experience-level"
        let code = integer(job.code(of: path), field: "experience-level.code", notes: &notes)
        let min = integer(job[path + "/min"], field: "experience-level.min", notes: &notes)
        let max = integer(job[path + "/max"], field: "experience-level.max", notes: &notes)
        let name = text(job.name(of: path))
        guard code != nil || min != nil || max != nil || name != nil else { return nil }
        return ExperienceLevel(code: code, minYears: min, maxYears: max, name: name)
    }

    /// A non-negative whole number; nil when missing, noted when unusable.
    static func integer(_ raw: String?, field: String, notes: inout ItemDiagnostics) -> Int? {
        guard let text = text(raw) else { return nil }
        guard let value = Int(text), value >= 0 else {
            notes.note(.unparsableNumber, field: field, value: raw, "\(field) is not a whole number ≥ 0; it is stored as missing.")
            return nil
        }
        return value
    }

    /// `1`/`0` (or `true`/`false`) as a flag; nil when missing, noted when unusable.
    static func flag(_ raw: String?, field: String, notes: inout ItemDiagnostics) -> Bool? {
        switch text(raw) {
        case nil: return nil
        case "1", "true": return true
        case "0", "false": return false
        default:
            notes.note(.unparsableFlag, field: field, value: raw, "\(field) is neither 1 nor 0; it is stored as missing.")
            return nil
        }
    }

    /// Unix seconds written as text; nil when missing, noted when unparsable or implausible
    /// (the far-future sentinels pass when `allowSentinel`).
    static func timestamp(_ raw: String?, field: String, notes: inout ItemDiagnostics, allowSentinel: Bool = false) -> Date? {
        guard let text = text(raw) else { return nil }
        guard let seconds = Int64(text) else {
            notes.note(.unparsableTimestamp, field: field, value: raw, "\(field) is not Unix seconds; it is stored as missing.")
            return nil
        }
        let value = TimeInterval(seconds)
        guard plausibleSeconds.contains(value) || (allowSentinel && value >= openEndedThreshold && value <= 253_402_300_799) else {
            notes.note(.implausibleTimestamp, field: field, value: raw,
                       "\(field) \(text) is outside 2000…2100; it is stored as missing.")
            return nil
        }
        return Date(timeIntervalSince1970: value)
    }
}
