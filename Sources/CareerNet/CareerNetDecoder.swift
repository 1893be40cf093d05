import FeedCore
import Foundation
import Pipeline

/// Parses one CareerNet page — XML through the streaming `XMLItemReader` (items are the
/// `<content>` elements), JSON through `JSONPayload` — detects error payloads, and hands every
/// item to the endpoint's one mapping function, so both formats give the same records.
///
/// Shapes read: `{"dataSearch":{"content":[…]}}` (also a single `content` object), a bare
/// `{"content":[…]}` or array of items (saved dumps), and `<dataSearch><content>…</content>…`.
/// An item holding a `message` and none of the endpoint's key field is the API's error
/// answer: it becomes a typed `FeedError`, never an empty successful page.
struct CareerNetDecoder {
    let endpoint: CareerNetEndpoint
    let page: CareerNetPage
    /// Where the payload came from, for error messages (redacted URL or file name).
    let origin: String

    func decode<Sink: RecordSink>(file: URL, format: PayloadFormat, into sink: inout Sink) throws -> PageSummary {
        do {
            switch format {
            case .xml: return try decodeXML(file: file, into: &sink)
            case .json: return try decodeJSON(file: file, into: &sink)
            }
        } catch var error as FeedError where error.kind == .malformed {
            error.context = origin
            throw error
        }
    }

    // MARK: - XML

    private func decodeXML<Sink: RecordSink>(file: URL, into sink: inout Sink) throws -> PageSummary {
        let reader = XMLItemReader(schema: endpoint.schema, itemElement: "content")
        var reportedTotal: Int?
        let envelope = try reader.read(file: file) { item in
            try checkForError(message: item["message"], keyValue: item[endpoint.keyField], code: nil)
            if reportedTotal == nil { reportedTotal = CareerNetText.integer(item["totalCount"]) }
            var outcome = endpoint.mapItem(item, page)
            outcome.diagnostics = item.readerDiagnostics + outcome.diagnostics
            try deliver(outcome, to: &sink)
        }
        if envelope.itemCount == 0 {
            let message = envelope.leaves.first { $0.key == "message" || $0.key.hasSuffix("/message") }?.value
            if let message, CareerNetText.value(message) != nil {
                throw CareerNetAPIError.error(message: message, code: nil, context: origin)
            }
            if envelope.rootElement != "dataSearch" {
                throw FeedError(.malformed, .terminal,
                                "The XML root <\(envelope.rootElement)> is not a CareerNet <dataSearch>.", context: origin)
            }
        }
        return PageSummary(itemCount: envelope.itemCount, reportedTotal: reportedTotal)
    }

    // MARK: - JSON

    private func decodeJSON<Sink: RecordSink>(file: URL, into sink: inout Sink) throws -> PageSummary {
        let items = try self.items(of: JSONPayload.parse(file: file))
        // An error answer must not leave a partly delivered page behind: look before mapping.
        for element in items {
            guard let object = element as? [String: Any] else { continue }
            try checkForError(message: JSONPayload.scalar(object["message"]), keyValue: JSONPayload.scalar(object[endpoint.keyField]),
                              code: JSONPayload.scalar(object["code"]))
        }
        var reportedTotal: Int?
        for (position, element) in items.enumerated() {
            guard let object = element as? [String: Any] else {
                sink.diagnose(Diagnostic(code: .typeMismatch, message: "The item is not a JSON object; it is skipped.",
                                         location: "item \(position)"))
                continue
            }
            let item = JSONPayload.fields(of: object, schema: endpoint.schema, position: position)
            if reportedTotal == nil { reportedTotal = CareerNetText.integer(item["totalCount"]) }
            var outcome = endpoint.mapItem(item, page)
            outcome.diagnostics = item.readerDiagnostics + outcome.diagnostics
            try deliver(outcome, to: &sink)
        }
        return PageSummary(itemCount: items.count, reportedTotal: reportedTotal)
    }

    /// The item list of any accepted JSON shape; throws the typed error for a top-level error
    /// object and `.malformed` for anything else.
    private func items(of root: Any) throws -> [Any] {
        if let array = root as? [Any] { return array }
        guard let object = root as? [String: Any] else {
            throw FeedError(.malformed, .terminal, "The JSON is neither an object nor an array.", context: origin)
        }
        let container = (object["dataSearch"] as? [String: Any]) ?? object
        if let content = container["content"] {
            if let list = content as? [Any] { return list }
            if let single = content as? [String: Any] { return [single] }
            if content is NSNull || JSONPayload.scalar(content) == "" { return [] }
            throw FeedError(.malformed, .terminal, "dataSearch.content is neither a list nor an object.", context: origin)
        }
        if let message = JSONPayload.scalar(container["message"]) ?? JSONPayload.scalar(object["message"]) {
            throw CareerNetAPIError.error(message: message, code: JSONPayload.scalar(container["code"]), context: origin)
        }
        if object["dataSearch"] != nil { return [] }
        throw FeedError(.malformed, .terminal, "The JSON has no dataSearch.content: it is not a CareerNet list.", context: origin)
    }

    // MARK: - Shared

    /// Throws the typed error when an item is an error answer: a `message` and no key field.
    private func checkForError(message: String?, keyValue: String?, code: String?) throws {
        guard let message = CareerNetText.value(message), CareerNetText.value(keyValue) == nil else { return }
        throw CareerNetAPIError.error(message: message, code: code, context: origin)
    }

    private func deliver<Sink: RecordSink>(_ outcome: CareerNetOutcome, to sink: inout Sink) throws {
        for diagnostic in outcome.diagnostics { sink.diagnose(diagnostic) }
        if let record = outcome.record { try sink.accept(record) }
    }
}
