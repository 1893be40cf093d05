import Foundation
import Pipeline

/// An API key as read from the environment, made safe to send: surrounding white space removed,
/// and exactly one layer of percent-encoding on the wire.
///
/// data.go.kr hands out each key twice, once percent-encoded (`abc%2Bdef%3D%3D`) and once decoded
/// (`abc+def==`); users paste either. A key that is already a clean percent-encoded string
/// (unreserved characters and valid `%XX` escapes only) is sent as is; anything else is
/// percent-encoded, so a raw `%`, `&` or `=` can never end the parameter early or inject another
/// one, and a key is never encoded twice.
public struct APIKey: Sendable {
    /// The key as configured, trimmed.
    public let configured: String

    /// Reads and normalises a key; nil when it is empty after trimming.
    public init?(_ raw: String) {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        configured = trimmed
    }

    /// Whether the key is already percent-encoded: only RFC 3986 unreserved characters and
    /// `%XX` escapes, with at least one escape.
    public var isPercentEncoded: Bool {
        let bytes = Array(configured.utf8)
        var sawEscape = false
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "%") {
                guard i + 2 < bytes.count, Self.isHex(bytes[i + 1]), Self.isHex(bytes[i + 2]) else { return false }
                sawEscape = true
                i += 3
                continue
            }
            guard Self.isUnreserved(b) else { return false }
            i += 1
        }
        return sawEscape
    }

    /// The key as it goes into a query string.
    public var queryValue: String {
        isPercentEncoded ? configured : FeedRequest.percentEncode(configured)
    }

    /// The key as it goes into an HTTP header; nil when it holds a control character (a line
    /// break there would start a new header).
    public var headerValue: String? {
        configured.unicodeScalars.contains { $0.properties.generalCategory == .control } ? nil : configured
    }

    /// The key with one layer of percent-encoding undone (itself when it is not encoded).
    public var decoded: String {
        isPercentEncoded ? (configured.removingPercentEncoding ?? configured) : configured
    }

    static func isHex(_ b: UInt8) -> Bool {
        (b >= 48 && b <= 57) || (b >= 65 && b <= 70) || (b >= 97 && b <= 102)
    }

    static func isUnreserved(_ b: UInt8) -> Bool {
        (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122)
            || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~")
    }
}

/// Removes every written form of a secret from bytes and text before they are archived,
/// parsed, printed or logged.
///
/// A server may echo a key in any form it passed through: as sent, percent-decoded,
/// percent-encoded with upper- or lower-case hex, with `+` for a space, JSON-escaped (`\/`,
/// `\u002B`) or XML/HTML-escaped (`&amp;`, `&#43;`, `&#x2B;`). The forms are derived once per key;
/// a body is first searched for the longest run of letters and digits the key contains (every
/// form keeps those runs verbatim), so a body without the key costs one byte search.
///
/// Then what a reader will decode is checked too (`DecodedSecretScan`): a key spelled with
/// character references for every letter, split by a CDATA section or a comment, or written
/// with `\uXXXX` escapes has no byte form, but decodes to the key. That pass runs only when
/// the body holds something that can hide a character (`&#`, a comment or CDATA section, a
/// `\u` or `%XX` escape, or an entity or escape for a character the key has), so a body
/// without any costs a few more byte searches.
public struct SecretScrubber: Sendable {
    /// What replaces a secret.
    public static let replacement = "REDACTED"

    /// Every form, longest first (so a longer form is replaced before a shorter one inside it).
    public let forms: [[UInt8]]
    private let anchor: [UInt8]
    /// The forms a reader's decoded text may hold (as sent, percent-decoded, form-decoded, and
    /// their percent-encodings), searched for in decoded text.
    let decodedForms: [[UInt8]]
    /// Whether a form holds a character that an XML entity (`&amp;` …) or a JSON escape other
    /// than `\u` (`\/`, `\"`, `\n` …) can stand for.
    private let hasEntityCharacter: Bool
    private let hasEscapeCharacter: Bool

    public init(secret: String) {
        let trimmed = secret.trimmingCharacters(in: .whitespacesAndNewlines)
        var raw: Set<String> = [trimmed]
        if let decoded = trimmed.removingPercentEncoding { raw.insert(decoded) }
        if let formDecoded = trimmed.replacingOccurrences(of: "+", with: " ").removingPercentEncoding { raw.insert(formDecoded) }
        for text in raw where text.contains(" ") {
            raw.insert(text.replacingOccurrences(of: " ", with: "+"))
            raw.insert(text.replacingOccurrences(of: " ", with: "%20"))
        }
        var encoded: Set<String> = raw
        for text in raw {
            let upper = FeedRequest.percentEncode(text)
            encoded.insert(upper)
            encoded.insert(Self.lowercasingEscapes(upper))
            if let query = text.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) { encoded.insert(query) }
        }
        for text in encoded where text.contains("%20") {  // form encoding: `+` for a space
            encoded.insert(text.replacingOccurrences(of: "%20", with: "+"))
        }
        var all: Set<String> = []
        for text in encoded {
            all.insert(text)
            all.insert(Self.jsonEscaped(text, slash: true))
            all.insert(Self.jsonEscaped(text, slash: false))
            all.insert(Self.unicodeEscaped(text, upper: true))
            all.insert(Self.unicodeEscaped(text, upper: false))
            all.insert(Self.xmlEscaped(text))
            all.insert(Self.numericReferences(text, hex: false))
            all.insert(Self.numericReferences(text, hex: true))
        }
        all.remove("")
        encoded.remove("")
        decodedForms = encoded.map { Array($0.utf8) }.sorted { $0.count != $1.count ? $0.count > $1.count : $0.lexicographicallyPrecedes($1) }
        hasEntityCharacter = encoded.contains { $0.contains { "&<>\"'".contains($0) } }
        hasEscapeCharacter = encoded.contains { $0.unicodeScalars.contains { "\"\\/".unicodeScalars.contains($0) || $0.value < 0x20 } }
        forms = all.map { Array($0.utf8) }.sorted { $0.count != $1.count ? $0.count > $1.count : $0.lexicographicallyPrecedes($1) }
        // The longest run of letters and digits that every form holds (a run next to an escape
        // may not survive in every form); none of 4 bytes or more means every search is full.
        let runs = raw.flatMap(Self.alphanumericRuns).sorted { $0.count > $1.count }
        let forms = self.forms
        anchor = runs.first { run in
            run.count >= 4 && forms.allSatisfy { form in
                form.withUnsafeBufferPointer { Self.find(run, in: $0, from: 0) != nil }
            }
        } ?? []
    }

    /// Whether `data` holds any byte form of the secret (decoded forms are not looked for).
    public func occurs(in data: Data) -> Bool {
        data.withUnsafeBytes { buffer in
            let bytes = buffer.bindMemory(to: UInt8.self)
            guard anchor.isEmpty || Self.find(anchor, in: bytes, from: 0) != nil else { return false }
            return forms.contains { Self.find($0, in: bytes, from: 0) != nil }
        }
    }

    /// `data` with every form of the secret replaced by `REDACTED`, and every span that an XML or
    /// JSON reader would decode to a form of it; the same bytes when there is none.
    public func scrub(_ data: Data) -> Data {
        scrubDecoded(scrubBytes(data))
    }

    /// `data` with every byte form of the secret replaced.
    func scrubBytes(_ data: Data) -> Data {
        guard occurs(in: data) else { return data }
        var bytes = [UInt8](data)
        let replacement = Array(Self.replacement.utf8)
        for form in forms {
            bytes = bytes.withUnsafeBufferPointer { buffer -> [UInt8] in
                guard var hit = Self.find(form, in: buffer, from: 0) else { return Array(buffer) }
                var out: [UInt8] = []
                out.reserveCapacity(buffer.count)
                var start = 0
                while true {
                    out.append(contentsOf: buffer[start..<hit])
                    out.append(contentsOf: replacement)
                    start = hit + form.count
                    guard let next = Self.find(form, in: buffer, from: start) else { break }
                    hit = next
                }
                out.append(contentsOf: buffer[start...])
                return out
            }
        }
        return Data(bytes)
    }

    /// `data` with every span an XML or JSON reader would decode to a form of the secret replaced
    /// (`DecodedSecretScan`). Decodes only when the bytes hold a construct that can hide a
    /// character of the secret.
    func scrubDecoded(_ data: Data) -> Data {
        var current = data
        for syntax in [DecodedSecretScan.Syntax.xml, .json] where mayHide(current, syntax) {
            let replaced: [UInt8]? = current.withUnsafeBytes { raw in
                let source = raw.bindMemory(to: UInt8.self)
                let scan = DecodedSecretScan(source, syntax: syntax)
                let spans = scan.spans(of: decodedForms)
                return spans.isEmpty ? nil : scan.replacing(spans, in: source, with: Array(Self.replacement.utf8))
            }
            if let replaced { current = Data(replaced) }
        }
        return current
    }

    /// Whether `data` holds a construct that decodes differently from its bytes and could stand
    /// for a character of the secret.
    func mayHide(_ data: Data, _ syntax: DecodedSecretScan.Syntax) -> Bool {
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            // Each needle is looked for by a byte that is rare in a page of data (`&`, `!`, `%`, `\`),
            // not by `memmem`: these searches ran over every live page and cost a tenth of a run's CPU.
            let has = { (needle: String, pivot: Int) in ByteSearch.contains(Array(needle.utf8), pivot: pivot, in: bytes) }
            switch syntax {
            case .xml:
                return has("%", 0) || (has("&", 0) && (hasEntityCharacter || has("&#", 0))) || (has("<!", 1) && (has("<!--", 1) || has("<![CDATA[", 1)))
            case .json: return has("%", 0) || (has("\\", 0) && (hasEscapeCharacter || has("\\u", 0)))
            }
        }
    }

    /// `text` with every form of the secret replaced.
    public func scrub(_ text: String) -> String {
        let data = Data(text.utf8)
        let clean = scrub(data)
        return clean == data ? text : String(decoding: clean, as: UTF8.self)
    }

    // MARK: - Forms

    static func lowercasingEscapes(_ text: String) -> String {
        var bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count {
                for j in (i + 1)...(i + 2) where bytes[j] >= 65 && bytes[j] <= 70 { bytes[j] += 32 }
                i += 3
            } else {
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func jsonEscaped(_ text: String, slash: Bool) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/" where slash: out += "\\/"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Every ASCII character that is not a letter or digit as `\u00XX`.
    static func unicodeEscaped(_ text: String, upper: Bool) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII, !Self.isAlphanumeric(UInt8(scalar.value)) {
                let hex = String(scalar.value, radix: 16, uppercase: upper)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func xmlEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }

    /// Every ASCII character that is not a letter or digit as a numeric character reference.
    static func numericReferences(_ text: String, hex: Bool) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII, !Self.isAlphanumeric(UInt8(scalar.value)) {
                out += hex ? "&#x\(String(scalar.value, radix: 16, uppercase: true));" : "&#\(scalar.value);"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func isAlphanumeric(_ b: UInt8) -> Bool {
        (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122)
    }

    static func alphanumericRuns(_ text: String) -> [[UInt8]] {
        let bytes = Array(text.utf8)
        return bytes.split { !isAlphanumeric($0) }.map(Array.init)
    }

    /// The first index at or after `from` where `needle` starts in `haystack` (`ByteSearch`); nil
    /// for an empty needle.
    static func find(_ needle: [UInt8], in haystack: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        guard !needle.isEmpty, from >= 0, from <= haystack.count else { return nil }
        let rest = UnsafeBufferPointer(rebasing: haystack[from...])
        return needle.withUnsafeBufferPointer { ByteSearch.firstOffset(of: $0, in: rest) }.map { from + $0 }
    }
}
