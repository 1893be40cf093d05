import FeedCore
import Foundation
import Pipeline

/// Parses one Saramin `job-search` page — JSON through the one-pass `JSONItemReader`, XML
/// through the streaming `XMLItemReader` — detects error answers, and hands every job to the
/// one mapping function, so both formats give the same records.
///
/// Result shapes: JSON `{"jobs":{"count":N,"start":N,"total":"N","job":[…]}}`; XML
/// `<job-search><jobs count=… start=… total=…><job>…</job>…</jobs></job-search>` (the envelope
/// numbers as attributes or child elements). Anything without `jobs` is an error answer (typed
/// error) or not a Saramin payload (`.malformed`), never an empty success.
struct SaraminDecoder {
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
            if format == .xml, let root = XMLItemReader.unclosedRoot(of: source) {
                // libxml2 may word a cut-off document otherwise ("Extra content at the end of the document").
                error.message = "The XML document ends before its root element <\(root)> is closed (truncated?)."
            }
            throw error
        }
    }

    // MARK: - JSON

    private func decodeJSON<Sink: RecordSink>(_ source: PayloadSource, into sink: inout Sink) throws -> PageSummary {
        let reader = JSONItemReader(schema: SaraminField.schema, itemPaths: ["jobs/job"], singleItemPaths: ["jobs/job"])
        // A cut-off document must not leave a partly delivered page behind: the page is read
        // whole before any job is mapped.
        let (envelope, elements) = try reader.readPage(source)
        sink.observe(envelope.census)
        let leaf = { (path: String) -> String? in envelope.leaves[path] ?? nil }
        guard envelope.objects.contains("") else {
            throw FeedError(.malformed, .terminal, "The JSON is not an object: it is not a Saramin job-search answer.", context: origin)
        }
        guard envelope.objects.contains("jobs") else {
            try throwErrorAnswer(leaf)
            throw FeedError(.malformed, .terminal, "The JSON has no jobs object: it is not a Saramin job-search answer.", context: origin)
        }
        for element in elements {
            switch element {
            case .item(let job): try deliver(SaraminJobMapping.map(job), to: &sink)
            case .notObject(let position): sink.diagnose(.notAnObject(position: position, noun: "job"))
            }
        }
        return summary(leaf, itemCount: envelope.itemCount)
    }

    // MARK: - XML

    private func decodeXML<Sink: RecordSink>(_ source: PayloadSource, into sink: inout Sink) throws -> PageSummary {
        let reader = XMLItemReader(schema: SaraminField.schema, itemElement: "job")
        let envelope = try reader.read(source) { job in
            try deliver(SaraminJobMapping.map(job), to: &sink)
        }
        sink.observe(envelope.census)
        let leaves = Self.documentLeaves(of: envelope)
        let leaf = { (path: String) -> String? in leaves[path] }
        guard envelope.itemCount > 0 || leaves.keys.contains(where: { $0 == "jobs" || $0.hasPrefix("jobs/") }) else {
            try throwErrorAnswer(leaf)
            throw FeedError(.malformed, .terminal,
                            "The XML root <\(envelope.rootElement)> holds no <jobs>: it is not a Saramin job-search answer.", context: origin)
        }
        return summary(leaf, itemCount: envelope.itemCount)
    }

    /// The XML envelope's leaves keyed like the JSON ones, below the root element (`jobs/total`,
    /// `code`, `result/message`); a `<jobs>` root stays `jobs`.
    static func documentLeaves(of envelope: XMLEnvelope) -> [String: String] {
        guard envelope.rootElement != "jobs" else { return envelope.leaves }
        let prefix = envelope.rootElement + "/"
        var leaves: [String: String] = [:]
        for (path, value) in envelope.leaves where path.hasPrefix(prefix) { leaves[String(path.dropFirst(prefix.count))] = value }
        return leaves
    }

    // MARK: - Shared

    /// The page numbers of `jobs`: `total` (a string), `start` (the page), `count`.
    private func summary(_ leaf: (String) -> String?, itemCount: Int) -> PageSummary {
        func number(_ key: String) -> Int? { WireValue.saramin.text(leaf("jobs/" + key)).flatMap { Int($0) } }
        return PageSummary(itemCount: itemCount, reportedTotal: number("total"), pageNo: number("start"), numOfRows: number("count"))
    }

    /// Throws the typed error when the document (its leaves by path below the root) is an error
    /// answer: `result{code,message}`, `error{…}` or `error` as text, or a top-level
    /// `code`/`message` (also `errorCode`, `msg`, `errorMessage`).
    private func throwErrorAnswer(_ leaf: (String) -> String?) throws {
        for (container, nested) in [("result", true), ("error", true), ("", false)] {
            let prefix = container.isEmpty ? "" : container + "/"
            let code = WireValue.saramin.text(leaf(prefix + "code") ?? leaf(prefix + "errorCode"))
            var message = WireValue.saramin.text(leaf(prefix + "message") ?? leaf(prefix + "msg") ?? leaf(prefix + "errorMessage"))
            if message == nil, nested { message = WireValue.saramin.text(leaf(container)) }
            if code != nil || message != nil {
                throw SaraminAPIError.error(code: code, message: message, context: origin)
            }
        }
    }

    private func deliver<Sink: RecordSink>(_ outcome: ItemOutcome, to sink: inout Sink) throws {
        for diagnostic in outcome.diagnostics { sink.diagnose(diagnostic) }
        if let record = outcome.record { try sink.accept(record) }
    }
}
