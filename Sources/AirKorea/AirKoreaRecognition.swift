import FeedCore
import Foundation
import Pipeline

/// Judges which AirKorea operation a payload holds from its first bytes, by the item fields it
/// carries (the field sets are distinctive), for current and legacy envelopes alike.
///
/// Legacy items echo every request field with an empty value (`"sidoName": ""`, `"dmX": ""`),
/// so the rules ask whether a field is *filled*, not merely present.
struct AirKoreaRecognition {
    /// Whether a field appears in the head, and with a value.
    enum Presence: Comparable { case absent, empty, filled }

    let text: String
    let isXML: Bool

    init(head: Data, format: PayloadFormat) {
        text = String(decoding: head, as: UTF8.self)
        isXML = Self.sniff(head) ?? format == .xml
    }

    /// The format the bytes are actually in (`<` → XML, `{`/`[` → JSON), whatever was asked;
    /// nil when the head is empty or neither.
    static func sniff(_ head: Data) -> PayloadFormat? {
        var bytes = head[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let first = bytes.first(where: { !WireValue.isSpace($0) }) else { return nil }
        switch first {
        case UInt8(ascii: "<"): return .xml
        case UInt8(ascii: "{"), UInt8(ascii: "["): return .json
        default: return nil
        }
    }

    /// The operations feedline reads, by the item fields that make each (`Recognition.judge`):
    /// a field named as written must appear (legacy items echo request fields empty), one named
    /// `filled:…` must carry a value. A field that only another operation's items carry,
    /// filled, rules a shape out, so items with the fields of two operations are refused rather
    /// than read as whichever is tried first. Realtime items are split into by-province and
    /// by-station afterwards (`realtimeOperation()`).
    static let shapes: [PayloadShape] = {
        let forecast = "filled:informCode", monthly = "filled:msurMm", daily = "filled:msurDt", alert = "filled:issueGbn"
        let measured = "filled:pm10Value", listed = "filled:dmX", located = "filled:umdName"
        return [
            PayloadShape(AirKoreaEndpoint.forecast.operation, requires: [["informGrade", "informCode"]],
                         excludes: [monthly, daily, alert, measured, listed, located]),
            PayloadShape(AirKoreaEndpoint.stationMonthlyStatistics.operation, requires: [["msurMm"]], excludes: [forecast, daily, alert, listed, located]),
            PayloadShape(AirKoreaEndpoint.stationDailyStatistics.operation, requires: [["msurDt"]], excludes: [forecast, monthly, alert, listed, located]),
            PayloadShape(AirKoreaEndpoint.pmAlerts.operation, requires: [["issueGbn"], ["districtName"]],
                         excludes: [forecast, monthly, daily, measured, listed, located]),
            PayloadShape(AirKoreaEndpoint.realtimeByProvince.operation, requires: [["pm10Value"], ["dataTime"]],
                         excludes: [forecast, monthly, daily, alert, listed, located], name: "realtime measurements"),
            PayloadShape(AirKoreaEndpoint.stations.operation, requires: [["filled:dmX", "filled:dmY", "filled:year"]],
                         excludes: [forecast, monthly, daily, alert, measured, located]),
            PayloadShape(AirKoreaEndpoint.tmCoordinates.operation, requires: [["filled:umdName"], ["filled:tmX"]],
                         excludes: [forecast, monthly, daily, alert, measured, listed]),
            PayloadShape(AirKoreaEndpoint.nearbyStations.operation, requires: [["tm"], ["stationName"]],
                         excludes: [forecast, monthly, daily, alert, measured, listed, located]),
        ]
    }()

    /// Whether the head holds field `name` (`filled:name`: with a value).
    func has(_ name: String) -> Bool {
        name.hasPrefix("filled:") ? presence(String(name.dropFirst(7))) == .filled : presence(name) != .absent
    }

    /// The canonical operation, or nil when the head is not an AirKorea payload.
    func operation() -> String? { recognition().operation }

    /// What the head is to the AirKorea feed.
    ///
    /// Error envelopes and empty pages have no items to judge by; they are answered with
    /// `getCtprvnRltmMesureDnsty`, whose decoder (like every other) raises the typed error or
    /// yields no records. Items of an AirKorea operation feedline does not read (the CAI
    /// service, the 시도/시군구 averages …) are answered with that operation's name, which the
    /// decoder refuses by name. Items of one of `shapes` are that operation; items of none (or
    /// of several) in a success envelope are refused, naming the shapes they resemble; anything
    /// else is not AirKorea's.
    func recognition() -> Recognition {
        let shapeless = AirKoreaEndpoint.realtimeByProvince.operation
        if contains("OpenAPI_ServiceResponse") || contains("returnReasonCode") { return .shape(shapeless) }
        if let unsupported = unsupportedOperation() { return .shape(unsupported.operation) }
        if presence("resultCode") == .filled, let code = firstValue("resultCode"), !AirKoreaErrorCode.isSuccess(code) {
            return .shape(shapeless)
        }
        let judged = Recognition.judge(Self.shapes, what: "The AirKorea items", has: has)
        if let operation = judged.operation {
            return .shape(operation == AirKoreaEndpoint.realtimeByProvince.operation ? realtimeOperation() : operation)
        }
        if presence("resultCode") == .filled && (contains("NORMAL_CODE") || contains("NORMAL SERVICE") || presence("totalCount") != .absent) {
            // A success envelope: empty pages are any operation's; items that match none of the
            // operations (or several) are refused.
            return hasItems() ? judged : .shape(shapeless)
        }
        return .foreign
    }

    /// By province: items name their province (current) or at least their station (legacy).
    /// By station: items name no station (ver < 1.4, legacy) or name it with its stationCode
    /// (ver 1.4).
    func realtimeOperation() -> String {
        if presence("sidoName") == .filled || (presence("stationName") == .filled && presence("stationCode") != .filled) {
            return AirKoreaEndpoint.realtimeByProvince.operation
        }
        return AirKoreaEndpoint.realtimeByStation.operation
    }

    /// The AirKorea operation feedline does not read whose items the head holds, if any: judged
    /// by fields only that operation carries (filled, since legacy items echo request fields
    /// empty), and by the CAI service's success code `200`.
    func unsupportedOperation() -> UnsupportedAirKoreaOperation? {
        for candidate in UnsupportedAirKoreaOperation.all where candidate.signature.contains(where: { presence($0) == .filled }) {
            return candidate
        }
        if presence("resultCode") == .filled, let code = firstValue("resultCode"), Int(code) == 200 {
            // Only the CAI service answers success as 200 (its spec table says 00).
            return UnsupportedAirKoreaOperation.named("getMsrstnKhaiRltmDnsty")
        }
        return nil
    }

    /// Whether the head shows at least one item: an `<item>` element, or an object inside the
    /// JSON `items` (list or `{"item": …}`) or the legacy `list`.
    func hasItems() -> Bool {
        if isXML { return contains("<item>") || contains("<item ") }
        for key in ["\"items\"", "\"list\""] {
            var searchStart = text.startIndex
            while let hit = find(key, from: searchStart) {
                searchStart = hit.upperBound
                var rest = text[hit.upperBound...].drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
                guard rest.first == ":" else { continue }
                rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
                guard let opening = rest.first, opening == "[" || opening == "{" else { continue }
                let inside = rest.dropFirst().drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
                if opening == "[" ? inside.first == "{" : inside.first == "\"" { return true }
            }
        }
        return false
    }

    private func contains(_ needle: String) -> Bool { find(needle, from: text.startIndex) != nil }

    /// The first occurrence of `needle` at or after `start`, compared as UTF-8 bytes with glibc's
    /// `memmem` (`ByteSearch`). Foundation's `range(of:)` converts to UTF-16; a byte loop, then
    /// `memchr` for the needle's first byte (a quote or `<`, found thousands of times per head)
    /// and `memcmp` at each, cost one to two percent of a whole load's CPU: every page's head is
    /// searched for dozens of names, most of them absent.
    private func find(_ needle: String, from start: String.Index) -> Range<String.Index>? {
        let bytes = text.utf8
        let from = bytes.distance(from: bytes.startIndex, to: start)
        var key = needle
        let hit: Int?? = key.withUTF8 { key in
            bytes.withContiguousStorageIfAvailable { hay -> Int? in
                guard from <= hay.count else { return nil }
                return ByteSearch.firstOffset(of: key, in: UnsafeBufferPointer(rebasing: hay[from...])).map { from + $0 }
            }
        }
        guard let hit = hit ?? text[start...].range(of: needle).map({ bytes.distance(from: bytes.startIndex, to: $0.lowerBound) }) else {
            return nil
        }
        let lower = bytes.index(bytes.startIndex, offsetBy: hit)
        return lower..<bytes.index(lower, offsetBy: needle.utf8.count)
    }

    /// The strongest presence of field `name` over all its occurrences in the head.
    func presence(_ name: String) -> Presence {
        var best = Presence.absent
        var searchStart = text.startIndex
        let key = isXML ? "<\(name)" : "\"\(name)\""
        while let hit = find(key, from: searchStart) {
            searchStart = hit.upperBound
            guard let value = valueAfter(hit.upperBound) else { continue }
            best = max(best, value.isEmpty ? .empty : .filled)
            if best == .filled { break }
        }
        return best
    }

    /// The first filled value of field `name`, if any.
    private func firstValue(_ name: String) -> String? {
        var searchStart = text.startIndex
        let key = isXML ? "<\(name)" : "\"\(name)\""
        while let hit = find(key, from: searchStart) {
            searchStart = hit.upperBound
            if let value = valueAfter(hit.upperBound), !value.isEmpty { return value }
        }
        return nil
    }

    /// The value that follows a field's key at `index`: "" for an empty element, `null` or `""`;
    /// nil when the key was only a prefix of a longer name or an object/array follows.
    private func valueAfter(_ index: String.Index) -> String? {
        var rest = text[index...]
        if isXML {
            if rest.hasPrefix("/>") { return "" }
            guard rest.first == ">" else { return nil }
            rest = rest.dropFirst()
            let value = rest.prefix { $0 != "<" }
            return String(Substring(value).trimmingASCIISpace())
        }
        rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard rest.first == ":" else { return nil }
        rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        if rest.hasPrefix("null") { return "" }
        if rest.first == "\"" {
            return String(rest.dropFirst().prefix { $0 != "\"" })
        }
        if rest.first == "{" || rest.first == "[" { return nil }
        return String(rest.prefix { $0 != "," && $0 != "}" && $0 != "]" && !$0.isWhitespace })
    }
}
