import FeedCore
import Pipeline

// MARK: - The fields each operation answers with

/// What each OpenAQ operation's results carry (`Feed.answerShape`), for schema drift: the field
/// sets the mapping reads (`OpenAQMapping.sensorSchema`, `latestSchema`, `hourlySchema`), with
/// their JSON kinds — names, units, labels and ISO times text, ids, counts and coordinates
/// numbers; measured values (`value`, `summary/…`) and `flagInfo/hasFlags` also as strings, as
/// the quirk fixtures send them and the mapping reads them — and the objects nothing reads.
/// Locations are read as a tree, not items: they are not compared.
enum OpenAQAnswerFields {
    /// The kinds a field of these schemas takes, by its last path step.
    static func kinds(_ path: String) -> FieldKinds {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        if ["utc", "local", "name", "units", "displayName", "label", "interval", "expectedInterval", "observedInterval",
            "timezone", "locality", "code"].contains(name) { return .text }
        if name == "hasFlags" { return [.bool, .text] }
        if path == "value" || path.hasPrefix("summary/") { return [.number, .text] }
        return .number
    }

    static func shape(_ schema: FieldSchema, required: [String], objects: [String] = []) -> AnswerShape {
        AnswerShape(schema.names.map { AnswerField($0, kinds($0), required: required.contains($0)) } + objects.map { AnswerField($0, .object) })
    }

    /// The declared shape of each operation's results, by canonical operation name.
    static let shapes: [String: AnswerShape] = [
        OpenAQEndpoint.sensors.operation: shape(OpenAQMapping.sensorSchema, required: ["id", "parameter/id"],
                                                objects: ["coverage", "latest", "summary"]),
        OpenAQEndpoint.latest.operation: shape(OpenAQMapping.latestSchema, required: ["sensorsId", "value", "datetime/utc"]),
        OpenAQEndpoint.hours.operation: shape(OpenAQMapping.hourlySchema, required: ["value", "period/datetimeFrom/utc"],
                                              objects: ["coordinates"]),
    ]
}

extension OpenAQFeed {
    public func answerShape(operation: String) -> AnswerShape? {
        OpenAQEndpoint.named(operation).flatMap { OpenAQAnswerFields.shapes[$0.operation] }
    }
}
