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

/// The result of mapping one job: a record (nil when the job is skipped) and what was odd
/// about it. Mapping is pure; the decoder forwards both to the sink.
struct SaraminOutcome {
    var record: FeedRecord?
    var diagnostics: [Diagnostic]
}

/// Turns one Saramin job (JSON object or XML element, as a `WireNode`) into a `JobPosting`.
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

    static func map(_ job: WireNode, position: Int) -> SaraminOutcome {
        let title = SaraminText.value(job["position"]?["title"]?.text)
        var notes = Notes(position: position, subject: nil)
        for (path, flag) in job.flags() { notes.add(flag.diagnostic(location: "job \(position) \(path)")) }
        guard let id = SaraminText.value(job["id"]?.text) else {
            notes.subject = title
            notes.note(.missingValue, field: "id", value: job["id"]?.text, "The job has no id, its only key; it is skipped.")
            return SaraminOutcome(record: nil, diagnostics: notes.diagnostics)
        }
        notes.subject = id
        let position = job["position"]

        var posting = JobPosting(id: id)
        posting.url = SaraminText.value(job["url"]?.text)
        posting.active = flag(job["active"]?.text, field: "active", notes: &notes)
        posting.company = SaraminText.value(job["company"]?["detail"]?["name"]?.text ?? job["company"]?["name"]?.text)
        posting.companyURL = SaraminText.value(job["company"]?["detail"]?["href"]?.text ?? job["company"]?["name"]?["href"]?.text)
        posting.title = title
        posting.industry = codeName(position?["industry"])
        posting.locations = codedList(position?["location"], field: "location", expectPaired: true, notes: &notes)
        posting.jobTypes = codedList(position?["job-type"], field: "job-type", expectPaired: true, notes: &notes)
        posting.jobMidCodes = codedList(position?["job-mid-code"], field: "job-mid-code", expectPaired: true, notes: &notes)
        posting.jobCodes = codedList(position?["job-code"], field: "job-code", expectPaired: false, notes: &notes)
        posting.jobCategories = codedList(position?["job-category"], field: "job-category", expectPaired: false, notes: &notes)
        posting.experience = experience(position?["experience-level"], notes: &notes)
        posting.education = codeName(position?["required-education-level"])
        posting.salary = codeName(job["salary"])
        if let salary = posting.salary, salary.code != nil, salary.name == nil {
            notes.note(.missingValue, field: "salary.name", value: salary.code,
                       "The salary has code \(salary.code ?? "") but no name; the name is stored as missing.")
        }
        posting.keywords = SaraminText.list(job["keyword"]?.text)
        posting.postedAt = timestamp(job["posting-timestamp"]?.text, field: "posting-timestamp", notes: &notes)
        posting.modifiedAt = timestamp(job["modification-timestamp"]?.text, field: "modification-timestamp", notes: &notes)
        posting.opensAt = timestamp(job["opening-timestamp"]?.text, field: "opening-timestamp", notes: &notes)
        posting.closeType = codeName(job["close-type"])
        let expiration = timestamp(job["expiration-timestamp"]?.text, field: "expiration-timestamp", notes: &notes,
                                   allowSentinel: true)
        if let expiration, expiration.timeIntervalSince1970 >= openEndedThreshold {
            posting.openEnded = true
            if posting.closeType?.code == "1" {
                notes.note(.openEndedDeadline, field: "expiration-timestamp", value: job["expiration-timestamp"]?.text,
                           "The posting closes on a deadline (close-type 1) but its expiration is the far-future “no deadline” sentinel; it is stored with no deadline.")
            }
        } else {
            posting.expiresAt = expiration
        }
        return SaraminOutcome(record: .career(.jobPosting(posting)), diagnostics: notes.diagnostics)
    }

    // MARK: - Fields

    /// `{code,name}` (or `<x code="…">name</x>`); nil when both are missing.
    static func codeName(_ node: WireNode?) -> CodeName? {
        guard let node else { return nil }
        let code = SaraminText.value(node["code"]?.text)
        let name = SaraminText.value(node["name"]?.text ?? node.text)
        guard code != nil || name != nil else { return nil }
        return CodeName(code: code, name: name)
    }

    /// A comma-joined `{code,name}` as two lists; a diagnostic when lists expected to pair do not.
    static func codedList(_ node: WireNode?, field: String, expectPaired: Bool, notes: inout Notes) -> CodedList {
        guard let node else { return CodedList() }
        let codes = SaraminText.list(node["code"]?.text)
        let names = SaraminText.list(node["name"]?.text ?? node.text)
        let list = CodedList(codes: codes, names: names)
        if expectPaired, !list.isPaired {
            notes.note(.unpairedCodes, field: field, value: "\(codes.count) codes, \(names.count) names",
                       "\(field) has \(codes.count) codes but \(names.count) names; they are stored unpaired, not zipped.")
        }
        return list
    }

    /// `experience-level`: code, min and max are numbers (or numeric strings), name is text.
    static func experience(_ node: WireNode?, notes: inout Notes) -> ExperienceLevel? {
        guard let node else { return nil }
        let code = integer(node["code"]?.text, field: "experience-level.code", notes: &notes)
        let min = integer(node["min"]?.text, field: "experience-level.min", notes: &notes)
        let max = integer(node["max"]?.text, field: "experience-level.max", notes: &notes)
        let name = SaraminText.value(node["name"]?.text ?? node.text)
        guard code != nil || min != nil || max != nil || name != nil else { return nil }
        return ExperienceLevel(code: code, minYears: min, maxYears: max, name: name)
    }

    /// A non-negative whole number; nil when missing, noted when unusable.
    static func integer(_ raw: String?, field: String, notes: inout Notes) -> Int? {
        guard let text = SaraminText.value(raw) else { return nil }
        guard let value = Int(text), value >= 0 else {
            notes.note(.unparsableNumber, field: field, value: raw, "\(field) is not a whole number ≥ 0; it is stored as missing.")
            return nil
        }
        return value
    }

    /// `1`/`0` (or `true`/`false`) as a flag; nil when missing, noted when unusable.
    static func flag(_ raw: String?, field: String, notes: inout Notes) -> Bool? {
        switch SaraminText.value(raw) {
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
    static func timestamp(_ raw: String?, field: String, notes: inout Notes, allowSentinel: Bool = false) -> Date? {
        guard let text = SaraminText.value(raw) else { return nil }
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

    // MARK: - Diagnostics

    /// Collects the diagnostics of one job, naming it (`job 3 (41232704) salary.name`).
    struct Notes {
        let position: Int
        var subject: String?
        private(set) var diagnostics: [Diagnostic] = []

        init(position: Int, subject: String?) {
            self.position = position
            self.subject = subject
        }

        mutating func add(_ diagnostic: Diagnostic) { diagnostics.append(diagnostic) }

        mutating func note(_ code: DiagnosticCode, field: String?, value: String?, _ message: String) {
            var location = "job \(position)"
            if let subject { location += " (\(subject))" }
            if let field { location += " \(field)" }
            diagnostics.append(Diagnostic(code: code, message: message, location: location, value: value))
        }
    }
}
