import Foundation
import FeedCore
import Pipeline

/// Parses one AirKorea payload — XML through the streaming `XMLItemReader`, JSON through
/// `JSONPayload` — detects the two error layers, and hands every item to the endpoint's one
/// mapping function, so both formats give the same records.
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
            if format == .xml, let root = Self.rootElement(of: head), ["response", "OpenAPI_ServiceResponse"].contains(root),
               !Self.closes(file, root: root) {
                // libxml2 words a cut-off document as "Extra content at the end of the document".
                error.message = "The XML document ends before its root element <\(root)> is closed (a truncated download?)."
            }
            throw error
        }
    }

    /// The name of the first element in `head`, skipping the XML declaration, comments and
    /// processing instructions.
    static func rootElement(of head: Data) -> String? {
        var index = head.startIndex
        while let open = head[index...].firstIndex(of: UInt8(ascii: "<")) {
            let next = head.index(after: open)
            guard next < head.endIndex else { return nil }
            if head[next] == UInt8(ascii: "?") || head[next] == UInt8(ascii: "!") {
                index = next
                continue
            }
            let name = head[next...].prefix { byte in
                !WireValue.isSpace(byte) && byte != UInt8(ascii: ">") && byte != UInt8(ascii: "/")
            }
            return name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
        }
        return nil
    }

    /// Whether `file` ends (trailing whitespace aside) with `</root>`.
    static func closes(_ file: URL, root: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: file.path) else { return false }
        defer { try? handle.close() }
        let size = handle.seekToEndOfFile()
        handle.seek(toFileOffset: size > 512 ? size - 512 : 0)
        let tail = [UInt8](handle.readDataToEndOfFile())
        let end = tail.lastIndex { !WireValue.isSpace($0) }.map { $0 + 1 } ?? 0
        return tail[..<end].reversed().starts(with: "</\(root)>".utf8.reversed())
    }

    // MARK: - XML

    private func decodeXML<Sink: RecordSink>(file: URL, into sink: inout Sink) throws -> PageSummary {
        let reader = XMLItemReader(schema: endpoint.schema)
        let envelope = try reader.read(file: file) { item in
            try deliver(endpoint.mapItem(item, page), to: &sink)
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

    /// The parts of a JSON payload a decoder needs, whatever its generation.
    private struct JSONPage {
        var items: [Any]
        var totalCount: Int?
        var pageNo: Int?
        var numOfRows: Int?
    }

    private func decodeJSON<Sink: RecordSink>(file: URL, into sink: inout Sink) throws -> PageSummary {
        let json = try page(of: JSONPayload.parse(file: file))
        for (position, element) in json.items.enumerated() {
            guard let object = element as? [String: Any] else {
                sink.diagnose(Diagnostic(code: "type-mismatch", message: "The item is not a JSON object; it is skipped.",
                                         location: "item \(position)"))
                continue
            }
            let item = JSONPayload.fields(of: object, schema: endpoint.schema, position: position)
            var outcome = endpoint.mapItem(item, page)
            if !item.typeMismatches.isEmpty {
                outcome.diagnostics = item.typeMismatches.sorted().map { field in
                    Diagnostic(code: "type-mismatch", message: "\(field) is an object or array where a string was expected; it is treated as missing.",
                               location: "item \(position) \(field)")
                } + outcome.diagnostics
            }
            try deliver(outcome, to: &sink)
        }
        return PageSummary(itemCount: json.items.count, reportedTotal: json.totalCount, pageNo: json.pageNo, numOfRows: json.numOfRows)
    }

    /// Finds the items and paging numbers in the current envelope (`{"response":{"body":…,
    /// "header":…}}`), the legacy one (`{"list":[…],"totalCount":N,"parm":{…}}`, whose echo
    /// objects — including a leaked `serviceKey` — are never read beyond `pageNo`/`numOfRows`),
    /// or a bare item array; throws the typed error for error envelopes.
    private func page(of root: Any) throws -> JSONPage {
        if let items = root as? [Any] {
            return JSONPage(items: items)
        }
        guard let object = root as? [String: Any] else {
            throw FeedError(.malformed, .terminal, "The JSON is neither an object nor an array of items.", context: origin)
        }
        if let response = object["response"] as? [String: Any] {
            let header = response["header"] as? [String: Any]
            if let code = JSONPayload.scalar(header?["resultCode"]), !AirKoreaErrorCode.isSuccess(code) {
                throw AirKoreaErrorCode.error(layer: .provider, code: code, reportedName: JSONPayload.scalar(header?["resultMsg"]),
                                              detail: nil, context: origin)
            }
            guard let body = response["body"] as? [String: Any] else {
                if header != nil { return JSONPage(items: []) }
                throw FeedError(.malformed, .terminal, "The JSON response has neither a body nor a header.", context: origin)
            }
            return JSONPage(items: Self.itemList(body["items"]),
                            totalCount: Self.integer(json: body["totalCount"]),
                            pageNo: Self.integer(json: body["pageNo"]),
                            numOfRows: Self.integer(json: body["numOfRows"]))
        }
        if let gateway = object["OpenAPI_ServiceResponse"] as? [String: Any] {
            let header = gateway["cmmMsgHeader"] as? [String: Any] ?? gateway
            throw AirKoreaErrorCode.error(layer: .gateway, code: JSONPayload.scalar(header["returnReasonCode"]) ?? "",
                                          reportedName: JSONPayload.scalar(header["returnAuthMsg"]),
                                          detail: JSONPayload.scalar(header["errMsg"]), context: origin)
        }
        if let list = object["list"] as? [Any] {
            let parm = object["parm"] as? [String: Any]
            return JSONPage(items: list, totalCount: Self.integer(json: object["totalCount"]),
                            pageNo: Self.integer(json: parm?["pageNo"]), numOfRows: Self.integer(json: parm?["numOfRows"]))
        }
        throw FeedError(.malformed, .terminal,
                        "The JSON is neither an AirKorea response ({\"response\":{\"body\",\"header\"}}), a legacy list ({\"list\":[…]}) nor an array of items.",
                        context: origin)
    }

    /// `items` as AirKorea writes it (an array), or as other data.go.kr services do
    /// (`{"item": [...]}` or `{"item": {...}}`); null, `""` or absent is no items.
    private static func itemList(_ value: Any?) -> [Any] {
        if let array = value as? [Any] { return array }
        if let wrapper = value as? [String: Any], let inner = wrapper["item"] {
            if let array = inner as? [Any] { return array }
            return [inner]
        }
        return []
    }

    // MARK: - Shared

    private func deliver<Sink: RecordSink>(_ outcome: ItemOutcome, to sink: inout Sink) throws {
        for diagnostic in outcome.diagnostics { sink.diagnose(diagnostic) }
        if let record = outcome.record { try sink.accept(record) }
    }

    private static func integer(json value: Any?) -> Int? {
        JSONPayload.scalar(value).flatMap(integer(text:))
    }

    private static func integer(text: String) -> Int? {
        Int(Substring(text).trimmingASCIISpace())
    }
}
