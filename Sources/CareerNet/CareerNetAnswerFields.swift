import FeedCore
import Pipeline

// MARK: - The fields each operation answers with

/// What each CareerNet operation's items carry (`Feed.answerShape`), for schema drift: the
/// field set the decoder reads (every value a string, in XML and JSON alike), with the field
/// every real item has (`keyField`) required.
extension CareerNetEndpoint {
    /// The declared shape of this operation's items.
    var answerShape: AnswerShape { Self.answerShapes[operation] ?? AnswerShape([]) }

    static let answerShapes: [String: AnswerShape] = Dictionary(uniqueKeysWithValues: all.map { endpoint in
        (endpoint.operation, AnswerShape(endpoint.schema.names, kinds: .text, required: [endpoint.keyField]))
    })
}

extension CareerNetFeed {
    public func answerShape(operation: String) -> AnswerShape? {
        CareerNetEndpoint.named(operation)?.answerShape
    }
}
