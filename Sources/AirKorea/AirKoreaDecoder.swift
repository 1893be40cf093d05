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

    /// - Parameter head: the first bytes of `source` (already read for sniffing).
    func decode<Sink: RecordSink>(_ source: PayloadSource, head: Data, format: PayloadFormat, into sink: inout Sink) throws -> PageSummary {
        let file = source.file
        do {
            var gate = ForeignItemGate()
            let summary: PageSummary
            switch format {
            case .xml: summary = try decodeXML(source, gate: &gate, into: &sink)
            case .json: summary = try decodeJSON(source, gate: &gate, into: &sink)
            }
            if gate.onlyForeign {
                throw FeedError(.unrecognised, .terminal,
                                "The payload's \(gate.held.count) item\(gate.held.count == 1 ? "" : "s") carry none of the fields \(endpoint.operation) reads "
                                    + "(\(endpoint.schema.names.prefix(4).joined(separator: ", ")) …), so it is not a page of that operation: "
                                    + "perhaps an AirKorea service feedline does not support. Nothing of it is loaded.",
                                context: origin)
            }
            if let note = Self.missingItems(summary) { sink.diagnose(note) }
            return summary
        } catch var error as FeedError
                    where error.kind == .malformed && [nil, file.lastPathComponent, file.path].contains(error.context) {
            // The readers name the file (or nothing); name the request instead.
            error.context = origin
            if format == .xml, let root = XMLItemReader.unclosedRoot(of: source, head: head),
               ["response", "OpenAPI_ServiceResponse"].contains(root) {
                // libxml2 words a cut-off document as "Extra content at the end of the document".
                error.message = "The XML document ends before its root element <\(root)> is closed (a truncated download?)."
            }
            throw error
        }
    }

    /// An `items-missing` diagnostic for a first page that holds no items although its
    /// `totalCount` says there are some: how the monthly statistics operation answers a range of
    /// months (feedline asks month by month; a replayed payload can still show it). The page
    /// itself loads (nothing), so the run succeeds and the diagnostic says what happened.
    static func missingItems(_ summary: PageSummary) -> Diagnostic? {
        guard summary.itemCount == 0, let total = summary.reportedTotal, total > 0, (summary.pageNo ?? 1) <= 1 else { return nil }
        return Diagnostic(code: .itemsMissing,
                          message: "The page reports totalCount \(total) but holds no items; nothing is loaded from it. (The monthly statistics operation answers a range of months this way: ask one month per request.)",
                          location: "page \(summary.pageNo ?? 1)", value: String(total))
    }

    // MARK: - XML

    private func decodeXML<Sink: RecordSink>(_ source: PayloadSource, gate: inout ForeignItemGate, into sink: inout Sink) throws -> PageSummary {
        let reader = XMLItemReader(schema: endpoint.schema)
        let envelope = try reader.read(source) { item in
            try gate.admit(item) { ready in
                var outcome = endpoint.mapItem(ready, page)
                if !ready.notes.isEmpty { outcome.diagnostics = ready.readerDiagnostics() + outcome.diagnostics }
                try deliver(outcome, to: &sink)
            }
        }
        sink.observe(envelope.census)
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
    private func decodeJSON<Sink: RecordSink>(_ source: PayloadSource, gate: inout ForeignItemGate, into sink: inout Sink) throws -> PageSummary {
        let reader = JSONItemReader(schema: endpoint.schema, itemPaths: Self.jsonItemPaths,
                                    singleItemPaths: ["response/body/items/item"])
        var nonObjects: [Int] = []
        let envelope = try reader.read(source, onItem: { item in
            try gate.admit(item) { ready in
                var outcome = endpoint.mapItem(ready, page)
                if !ready.typeMismatches.isEmpty || !ready.notes.isEmpty { outcome.diagnostics = ready.readerDiagnostics() + outcome.diagnostics }
                try deliver(outcome, to: &sink)
            }
        }, onNonObject: { nonObjects.append($0) })
        sink.observe(envelope.census)
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

    /// Holds back the items that carry none of the endpoint's fields until an item that does
    /// shows the page is the endpoint's; then they are mapped in order (and skipped with the
    /// mapping's diagnostics). A page whose every item is foreign is another operation's (an
    /// unsupported service's) and is refused instead of being mapped item by skipped item.
    struct ForeignItemGate {
        private(set) var held: [ItemFields] = []
        private var sawOwn = false

        /// Calls `map` with the items to map now, in page order (none while only foreign items came).
        mutating func admit(_ item: ItemFields, _ map: (ItemFields) throws -> Void) rethrows {
            if sawOwn { return try map(item) }
            let foreign = item.typeMismatches.isEmpty && item.notes.isEmpty && item.values.allSatisfy { $0 == nil }
            if foreign {
                held.append(item)
                return
            }
            sawOwn = true
            let waiting = held
            held = []
            for earlier in waiting { try map(earlier) }
            try map(item)
        }

        /// Whether items came and none of them was the endpoint's.
        var onlyForeign: Bool { !sawOwn && !held.isEmpty }
    }

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
