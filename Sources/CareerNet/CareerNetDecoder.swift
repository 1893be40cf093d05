import FeedCore
import Foundation
import Pipeline

/// Parses one CareerNet page — XML through the streaming `XMLItemReader` (items are the
/// `<content>` elements), JSON through the one-pass `JSONItemReader` — detects error payloads,
/// and hands every item to the endpoint's one mapping function, so both formats give the same
/// records.
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

    func decode<Sink: RecordSink>(_ source: PayloadSource, format: PayloadFormat, into sink: inout Sink) throws -> PageSummary {
        do {
            switch format {
            case .xml: return try decodeXML(source, into: &sink)
            case .json: return try decodeJSON(source, into: &sink)
            }
        } catch var error as FeedError where error.kind == .malformed {
            error.context = origin
            throw error
        }
    }

    // MARK: - XML

    private func decodeXML<Sink: RecordSink>(_ source: PayloadSource, into sink: inout Sink) throws -> PageSummary {
        let reader = XMLItemReader(schema: endpoint.schema, itemElement: "content")
        var reportedTotal: Int?
        let envelope = try reader.read(source) { item in
            try checkForError(message: item["message"], keyValue: item[endpoint.keyField], code: item["code"])
            if reportedTotal == nil { reportedTotal = WireValue.careerNet.integer(item["totalCount"]) }
            var outcome = endpoint.mapItem(item, page)
            outcome.diagnostics = item.readerDiagnostics() + outcome.diagnostics
            try deliver(outcome, to: &sink)
        }
        sink.observe(envelope.census)
        if envelope.itemCount == 0 {
            let message = envelope.leaves.first { $0.key == "message" || $0.key.hasSuffix("/message") }?.value
            if let message, WireValue.careerNet.text(message) != nil {
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

    /// Where items sit: `dataSearch.content` (a list, or one object), a bare `content`, or a
    /// top-level array.
    private static let jsonItemPaths: Set<String> = ["", "content", "dataSearch/content"]

    private func decodeJSON<Sink: RecordSink>(_ source: PayloadSource, into sink: inout Sink) throws -> PageSummary {
        let reader = JSONItemReader(schema: endpoint.schema, itemPaths: Self.jsonItemPaths, singleItemPaths: ["content", "dataSearch/content"])
        // A cut-off document or an error answer must not leave a partly delivered page behind:
        // the page is read and judged whole before any item is mapped.
        let (envelope, elements) = try reader.readPage(source)
        try checkEnvelope(envelope)
        sink.observe(envelope.census)
        for case .item(let item) in elements {
            try checkForError(message: item["message"], keyValue: item[endpoint.keyField], code: item["code"])
        }
        var reportedTotal: Int?
        for element in elements {
            switch element {
            case .notObject(let position):
                sink.diagnose(.notAnObject(position: position))
            case .item(let item):
                if reportedTotal == nil { reportedTotal = WireValue.careerNet.integer(item["totalCount"]) }
                var outcome = endpoint.mapItem(item, page)
                outcome.diagnostics = item.readerDiagnostics() + outcome.diagnostics
                try deliver(outcome, to: &sink)
            }
        }
        return PageSummary(itemCount: envelope.itemCount, reportedTotal: reportedTotal)
    }

    /// Accepts any item-list shape — `{"dataSearch":{"content":…}}`, `{"content":…}`, a
    /// top-level array, `dataSearch` without `content` (an empty list) — and throws the typed
    /// error for a top-level error message and `.malformed` for anything else.
    private func checkEnvelope(_ envelope: JSONEnvelope) throws {
        if envelope.itemArrays.contains("") { return }
        guard envelope.objects.contains("") else {
            throw FeedError(.malformed, .terminal, "The JSON is neither an object nor an array.", context: origin)
        }
        func leaf(_ path: String) -> String? { envelope.leaves[path] ?? nil }
        let container = envelope.objects.contains("dataSearch") ? "dataSearch/" : ""
        let content = container + "content"
        if envelope.itemArrays.contains(content) { return }
        if envelope.leaves.keys.contains(content) {
            if let text = leaf(content), !text.isEmpty {
                throw FeedError(.malformed, .terminal, "dataSearch.content is neither a list nor an object.", context: origin)
            }
            return
        }
        if let message = leaf(container + "message") ?? leaf("message") {
            throw CareerNetAPIError.error(message: message, code: leaf(container + "code"), context: origin)
        }
        if envelope.rootKeys.contains("dataSearch") { return }
        throw FeedError(.malformed, .terminal, "The JSON has no dataSearch.content: it is not a CareerNet list.", context: origin)
    }

    // MARK: - Shared

    /// Throws the typed error when an item is an error answer: a `message` and no key field.
    private func checkForError(message: String?, keyValue: String?, code: String?) throws {
        guard let message = WireValue.careerNet.text(message), WireValue.careerNet.text(keyValue) == nil else { return }
        throw CareerNetAPIError.error(message: message, code: code, context: origin)
    }

    private func deliver<Sink: RecordSink>(_ outcome: ItemOutcome, to sink: inout Sink) throws {
        for diagnostic in outcome.diagnostics { sink.diagnose(diagnostic) }
        if let record = outcome.record { try sink.accept(record) }
    }
}
