import FeedCore
import Pipeline

// MARK: - One job, whatever the format

/// The fields of a Saramin job, as slash paths that JSON objects and XML elements answer alike:
/// `"location":{"code":"101010","name":"서울 > 강남구"}` and
/// `<location code="101010">서울 &gt; 강남구</location>` both give `position/location/code`, and
/// the name as `position/location/name` (JSON) or as the element's own text `position/location`
/// (XML).
enum SaraminField {
    /// `{code, name}` fields, each read as `path/code` and `path/name` or `path`.
    static let codedFields = [
        "position/industry", "position/location", "position/job-type", "position/job-mid-code", "position/job-code",
        "position/job-category", "position/required-education-level", "salary", "close-type",
    ]

    /// Every field the mapping reads.
    static let schema = FieldSchema([
        "id", "url", "active", "keyword",
        "posting-timestamp", "modification-timestamp", "opening-timestamp", "expiration-timestamp",
        "company/detail/name", "company/detail/href", "company/name", "company/name/href",
        "position/title",
        "position/experience-level", "position/experience-level/code", "position/experience-level/min",
        "position/experience-level/max", "position/experience-level/name",
    ] + codedFields.flatMap { [$0, $0 + "/code", $0 + "/name"] })
}

extension ItemFields {
    /// The code of the `{code, name}` field at `path`.
    func code(of path: String) -> String? { self[path + "/code"] }

    /// The name of the `{code, name}` field at `path`: its `name` member, else its own text.
    func name(of path: String) -> String? { self[path + "/name"] ?? self[path] }
}

// MARK: - Raw strings

extension WireValue {
    /// The raw-string rules of Saramin: values are strings (some numbers), text may arrive
    /// HTML-escaped (`서울 &gt; 강남구`), and `""` or `null` mean missing.
    static let saramin = WireValue(decodesHTMLEntities: true)
}
