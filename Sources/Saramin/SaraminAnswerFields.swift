import FeedCore
import Pipeline

// MARK: - The fields job-search answers with

/// What a `job-search` job carries (`Feed.answerShape`), for schema drift: the fields the mapping
/// reads (`SaraminField.schema`), as both formats send them — a `{code, name}` field is an object
/// in JSON and an element with a `code` attribute and text in XML; experience bounds are
/// numbers; `active` and the experience code come as numbers or strings; everything else is text.
extension SaraminField {
    static let answerShape: AnswerShape = {
        let coded = Set(codedFields + ["position/experience-level"])
        return AnswerShape(schema.names.map { name in
            let kinds: FieldKinds
            if coded.contains(name) || name == "company/name" {
                kinds = [.object, .text]
            } else if ["position/experience-level/min", "position/experience-level/max"].contains(name) {
                kinds = .number
            } else if ["active", "position/experience-level/code"].contains(name) {
                kinds = [.number, .text]
            } else {
                kinds = .text
            }
            return AnswerField(name, kinds, required: ["id", "url", "position/title"].contains(name))
        } + [AnswerField("company/detail", .object)])
    }()
}

extension SaraminFeed {
    public func answerShape(operation: String) -> AnswerShape? {
        operation == Self.jobSearch ? SaraminField.answerShape : nil
    }
}
