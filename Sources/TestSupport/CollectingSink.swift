import FeedCore
import Foundation
import Pipeline

/// A `RecordSink` that keeps what a decoder produced, in arrival order, for tests.
public struct CollectingSink: RecordSink {
    public enum Entry: Equatable {
        case record(FeedRecord)
        case diagnostic(Diagnostic)
    }

    public var entries: [Entry] = []

    public init() {}

    public var records: [FeedRecord] { entries.compactMap { if case .record(let r) = $0 { r } else { nil } } }
    public var diagnostics: [Diagnostic] { entries.compactMap { if case .diagnostic(let d) = $0 { d } else { nil } } }

    public mutating func accept(_ record: FeedRecord) throws { entries.append(.record(record)) }
    public mutating func diagnose(_ diagnostic: Diagnostic) { entries.append(.diagnostic(diagnostic)) }
    /// The fields each page carried, as the decoder's readers counted them.
    public var censuses: [FieldCensus] = []
    public mutating func observe(_ census: FieldCensus) { censuses.append(census) }

    /// Golden lines for everything received, in order.
    public var goldenLines: [String] {
        entries.map {
            switch $0 {
            case .record(let r): Golden.line(r)
            case .diagnostic(let d): Golden.line(d)
            }
        }
    }
}

/// What one decode gave: the sink's entries and either a page summary or an error.
public struct DecodeResult {
    public var sink: CollectingSink
    public var summary: PageSummary?
    public var error: (any Error)?

    public init(sink: CollectingSink, summary: PageSummary?, error: (any Error)?) {
        self.sink = sink; self.summary = summary; self.error = error
    }

    public var feedError: FeedError? { error as? FeedError }

    /// The golden text: records and diagnostics in order, then `page …` or `error …`.
    public var golden: String {
        var lines = sink.goldenLines
        if let summary { lines.append(Golden.line(summary)) }
        if let error { lines.append(Golden.line(error)) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The golden text without its final newline, for joining sections.
    public var goldenSection: String { String(golden.dropLast()) }
}

extension DecodeResult {
    /// Decodes the JSON payload `file` with `feed` as a test sees it: with the request that
    /// fetched it, or without (the operation recognised from the bytes, `fallback` parameters as
    /// a fixture run or `replay --param` gives them); `httpStatus` as the fetch recorded it.
    public static func decoding(_ file: URL, with feed: any Feed, request: FeedRequest?, fallback: [String: String] = [:],
                                fetchedAt: Date, httpStatus: Int? = nil) -> DecodeResult {
        var sink = CollectingSink()
        do {
            let head = (try? FileHandle(forReadingFrom: file).readData(ofLength: 4096)) ?? Data()
            let operation = request?.operation ?? feed.recognise(head: head, format: .json)
            var payload = try PayloadArchive.payload(forFile: file, request: request, source: feed.source, operation: operation,
                                                     format: nil, fetchedAt: fetchedAt)
            payload.httpStatus = httpStatus
            let summary = try feed.decode(payload, context: DecodeContext(request: request, fallbackParameters: fallback), into: &sink)
            return DecodeResult(sink: sink, summary: summary, error: nil)
        } catch {
            return DecodeResult(sink: sink, summary: nil, error: error)
        }
    }
}
