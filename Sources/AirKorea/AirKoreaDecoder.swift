import Foundation
import Domain
import FeedCore
import Pipeline

/// Parses one AirKorea payload — XML through the streaming `XMLItemReader`, JSON through the
/// one-pass `JSONItemReader` — detects the two error layers, and hands every item to the
/// endpoint's one mapping function, so both formats give the same records.
///
/// Items stream into the sink as they are read. An XML document that turns out to be truncated
/// or malformed *after* some items throws once the end is reached, so the records already
/// delivered belong to a failed page: the caller (the load stage's transaction) must discard
/// them.
struct AirKoreaDecoder {
    let endpoint: AirKoreaEndpoint
    let page: PageContext
    /// Where the payload came from, for error messages (redacted URL or file name).
    let origin: String
    /// When the payload was fetched: data timed more than `futureAllowance` after it is refused.
    let fetchedAt: Date

    /// How far past the fetch a measurement or release time may lie (clock skew, time zones):
    /// one day. Later times (`9999-12-31 24:00`) are refused with a `future-time` diagnostic, so
    /// they never become "the newest data".
    static let futureAllowance: TimeInterval = 86_400

    /// - Parameter head: the first bytes of `file` (already read for sniffing).
    func decode<Sink: RecordSink>(file: URL, head: Data, format: PayloadFormat, into sink: inout Sink) throws -> PageSummary {
        do {
            switch format {
            case .xml: return try decodeXML(file: file, into: &sink)
            case .json: return try decodeJSON(file: file, into: &sink)
            }
        } catch var error as FeedError
                    where error.kind == .malformed && [nil, file.lastPathComponent, file.path].contains(error.context) {
            // The readers name the file (or nothing); name the request instead.
            error.context = origin
            if format == .xml, let root = XMLItemReader.unclosedRoot(of: file, head: head),
               ["response", "OpenAPI_ServiceResponse"].contains(root) {
                // libxml2 words a cut-off document as "Extra content at the end of the document".
                error.message = "The XML document ends before its root element <\(root)> is closed (a truncated download?)."
            }
            throw error
        }
    }

    // MARK: - XML

    private func decodeXML<Sink: RecordSink>(file: URL, into sink: inout Sink) throws -> PageSummary {
        let reader = XMLItemReader(schema: endpoint.schema)
        let envelope = try reader.read(file: file) { item in
            var outcome = endpoint.mapItem(item, page)
            if !item.notes.isEmpty { outcome.diagnostics = item.readerDiagnostics() + outcome.diagnostics }
            try deliver(outcome, to: &sink)
        }
        let leaves = envelope.leaves
        func leaf(_ name: String) -> String? {
            leaves.first { $0.key == name || $0.key.hasSuffix("/" + name) }?.value
        }

        if envelope.rootElement == "OpenAPI_ServiceResponse" {
            throw AirKoreaErrorCode.error(layer: .gateway, code: leaf("returnReasonCode") ?? "",
                                          reportedName: leaf("returnAuthMsg"), detail: leaf("errMsg"), context: origin)
        }
        if let code = leaf("header/resultCode"), !AirKoreaErrorCode.isSuccess(code) {
            throw AirKoreaErrorCode.error(layer: .provider, code: code, reportedName: leaf("header/resultMsg"),
                                          detail: nil, context: origin)
        }
        if envelope.rootElement != "response" && envelope.itemCount == 0 {
            throw FeedError(.malformed, .terminal,
                            "The XML root <\(envelope.rootElement)> is neither an AirKorea <response> nor a data.go.kr <OpenAPI_ServiceResponse>.",
                            context: origin)
        }
        return PageSummary(itemCount: envelope.itemCount,
                           reportedTotal: leaf("body/totalCount").flatMap(Self.integer(text:)),
                           pageNo: leaf("body/pageNo").flatMap(Self.integer(text:)),
                           numOfRows: leaf("body/numOfRows").flatMap(Self.integer(text:)))
    }

    // MARK: - JSON

    /// Where items sit in the JSON generations: the current envelope (`response/body/items`,
    /// or `{"item": …}` inside it as other data.go.kr services write), the legacy list, or a
    /// bare array.
    private static let jsonItemPaths: Set<String> = ["", "list", "response/body/items", "response/body/items/item"]

    /// Reads a JSON payload in one pass (`JSONItemReader`), delivering items as they come, then
    /// judges the envelope: provider and gateway error layers, paging numbers. The legacy
    /// list's echo objects (`parm`, `…Vo`, which can leak a `serviceKey`) are never read beyond
    /// `pageNo`/`numOfRows`.
    private func decodeJSON<Sink: RecordSink>(file: URL, into sink: inout Sink) throws -> PageSummary {
        let reader = JSONItemReader(schema: endpoint.schema, itemPaths: Self.jsonItemPaths,
                                    singleItemPaths: ["response/body/items/item"])
        var nonObjects: [Int] = []
        let envelope = try reader.read(file: file, onItem: { item in
            var outcome = endpoint.mapItem(item, page)
            if !item.typeMismatches.isEmpty || !item.notes.isEmpty { outcome.diagnostics = item.readerDiagnostics() + outcome.diagnostics }
            try deliver(outcome, to: &sink)
        }, onNonObject: { nonObjects.append($0) })
        for position in nonObjects {
            sink.diagnose(.notAnObject(position: position))
        }
        let leaves = envelope.leaves
        func leaf(_ path: String) -> String? { leaves[path] ?? nil }

        if envelope.rootKeys.contains("response") {
            if let code = leaf("response/header/resultCode"), !AirKoreaErrorCode.isSuccess(code) {
                throw AirKoreaErrorCode.error(layer: .provider, code: code, reportedName: leaf("response/header/resultMsg"),
                                              detail: nil, context: origin)
            }
            let hasBody = leaves.keys.contains { $0.hasPrefix("response/body/") } || !envelope.itemArrays.isEmpty
            let hasHeader = leaves.keys.contains { $0.hasPrefix("response/header/") }
            guard hasBody || hasHeader else {
                throw FeedError(.malformed, .terminal, "The JSON response has neither a body nor a header.", context: origin)
            }
            return PageSummary(itemCount: envelope.itemCount,
                               reportedTotal: leaf("response/body/totalCount").flatMap(Self.integer(text:)),
                               pageNo: leaf("response/body/pageNo").flatMap(Self.integer(text:)),
                               numOfRows: leaf("response/body/numOfRows").flatMap(Self.integer(text:)))
        }
        if envelope.rootKeys.contains("OpenAPI_ServiceResponse") {
            let prefix = leaves.keys.contains { $0.hasPrefix("OpenAPI_ServiceResponse/cmmMsgHeader/") }
                ? "OpenAPI_ServiceResponse/cmmMsgHeader/" : "OpenAPI_ServiceResponse/"
            throw AirKoreaErrorCode.error(layer: .gateway, code: leaf(prefix + "returnReasonCode") ?? "",
                                          reportedName: leaf(prefix + "returnAuthMsg"), detail: leaf(prefix + "errMsg"), context: origin)
        }
        if envelope.itemArrays.contains("list") {
            return PageSummary(itemCount: envelope.itemCount, reportedTotal: leaf("totalCount").flatMap(Self.integer(text:)),
                               pageNo: leaf("parm/pageNo").flatMap(Self.integer(text:)),
                               numOfRows: leaf("parm/numOfRows").flatMap(Self.integer(text:)))
        }
        if envelope.itemArrays.contains("") {
            return PageSummary(itemCount: envelope.itemCount)
        }
        if envelope.rootKeys.isEmpty && envelope.itemArrays.isEmpty && leaves[""] != nil {
            throw FeedError(.malformed, .terminal, "The JSON is neither an object nor an array of items.", context: origin)
        }
        throw FeedError(.malformed, .terminal,
                        "The JSON is neither an AirKorea response ({\"response\":{\"body\",\"header\"}}), a legacy list ({\"list\":[…]}) nor an array of items.",
                        context: origin)
    }

    // MARK: - Shared

    private func deliver<Sink: RecordSink>(_ outcome: ItemOutcome, to sink: inout Sink) throws {
        for diagnostic in outcome.diagnostics { sink.diagnose(diagnostic) }
        guard let record = outcome.record else { return }
        if let refusal = futureRefusal(record) {
            sink.diagnose(refusal)
            return
        }
        try sink.accept(record)
    }

    /// A `future-time` diagnostic when `record` is timed more than a day after the fetch.
    func futureRefusal(_ record: FeedRecord) -> Diagnostic? {
        let limit = fetchedAt.addingTimeInterval(Self.futureAllowance)
        // The observed hour is read in place: only a refused record is copied out.
        if let slot = record.value.observedSlot {
            guard slot.end > limit, let m = record.as(HourlyMeasurement.self) else { return nil }
            return Diagnostic(code: .futureTime,
                              message: "dataTime \(m.dataTime) is more than a day after the payload was fetched (\(iso8601UTC(fetchedAt))); the item is skipped.",
                              location: "\(m.stationName) \(m.dataTime)", value: m.dataTime)
        }
        if record.recordType == Forecast.self, let f = record.as(Forecast.self) {
            guard let released = HourSlot(date: f.releaseDate, hour: f.releaseHour)?.start, released > limit else { return nil }
            return Diagnostic(code: .futureTime,
                              message: "The forecast release \(f.releaseDate) \(f.releaseHour)시 is more than a day after the payload was fetched (\(iso8601UTC(fetchedAt))); it is skipped.",
                              location: "\(f.informCode) \(f.forecastDate)", value: "\(f.releaseDate) \(f.releaseHour)")
        }
        return nil
    }

    private static func integer(text: String) -> Int? {
        Int(Substring(text).trimmingASCIISpace())
    }
}
