import FeedCore
import Foundation
import Pipeline

/// Parses one Saramin `job-search` page — JSON through `JSONPayload`, XML through the streaming
/// `SaraminXMLReader` — detects error answers, and hands every job to the one mapping
/// function, so both formats give the same records.
///
/// Result shapes: JSON `{"jobs":{"count":N,"start":N,"total":"N","job":[…]}}`; XML
/// `<job-search><jobs count=… start=… total=…><job>…</job>…</jobs></job-search>` (the envelope
/// numbers as attributes or child elements). Anything without `jobs` is an error answer (typed
/// error) or not a Saramin payload (`.malformed`), never an empty success.
struct SaraminDecoder {
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

    // MARK: - JSON

    private func decodeJSON<Sink: RecordSink>(file: URL, into sink: inout Sink) throws -> PageSummary {
        let root = try JSONPayload.parse(file: file)
        guard let object = root as? [String: Any] else {
            throw FeedError(.malformed, .terminal, "The JSON is not an object: it is not a Saramin job-search answer.", context: origin)
        }
        guard let jobs = object["jobs"] as? [String: Any] else {
            try throwErrorAnswer(WireNode.json(object))
            throw FeedError(.malformed, .terminal, "The JSON has no jobs object: it is not a Saramin job-search answer.", context: origin)
        }
        let list = WireNode.json(jobs["job"])?.elements ?? []
        for (position, job) in list.enumerated() {
            try deliver(SaraminJobMapping.map(job, position: position), to: &sink)
        }
        return summary(of: WireNode.json(jobs), itemCount: list.count)
    }

    // MARK: - XML

    private func decodeXML<Sink: RecordSink>(file: URL, into sink: inout Sink) throws -> PageSummary {
        var position = 0
        let envelope = try SaraminXMLReader().read(file: file, context: origin) { job in
            defer { position += 1 }
            try deliver(SaraminJobMapping.map(job, position: position), to: &sink)
        }
        guard let jobs = envelope.jobs else {
            try throwErrorAnswer(envelope.root)
            throw FeedError(.malformed, .terminal,
                            "The XML root <\(envelope.rootElement)> holds no <jobs>: it is not a Saramin job-search answer.", context: origin)
        }
        return summary(of: jobs, itemCount: envelope.jobCount)
    }

    // MARK: - Shared

    /// The page numbers of a `jobs` node: `total` (a string), `start` (the page), `count`.
    private func summary(of jobs: WireNode?, itemCount: Int) -> PageSummary {
        func number(_ key: String) -> Int? {
            SaraminText.value(jobs?[key]?.text).flatMap { Int($0) }
        }
        return PageSummary(itemCount: itemCount, reportedTotal: number("total"), pageNo: number("start"), numOfRows: number("count"))
    }

    /// Throws the typed error when `node` (the document's root) is an error answer.
    private func throwErrorAnswer(_ node: WireNode?) throws {
        guard let node else { return }
        let candidates: [(node: WireNode?, nested: Bool)] = [(node["result"], true), (node["error"], true), (node, false)]
        for (candidate, nested) in candidates {
            guard let candidate else { continue }
            let code = SaraminText.value(candidate["code"]?.text ?? candidate["errorCode"]?.text)
            var message = SaraminText.value(candidate["message"]?.text ?? candidate["msg"]?.text ?? candidate["errorMessage"]?.text)
            if message == nil, nested { message = SaraminText.value(candidate.text) }
            if code != nil || message != nil {
                throw SaraminAPIError.error(code: code, message: message, context: origin)
            }
        }
    }

    private func deliver<Sink: RecordSink>(_ outcome: SaraminOutcome, to sink: inout Sink) throws {
        for diagnostic in outcome.diagnostics { sink.diagnose(diagnostic) }
        if let record = outcome.record { try sink.accept(record) }
    }
}
