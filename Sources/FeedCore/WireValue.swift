import Foundation

/// The raw-string rules of a feed's values, applied by every mapping before a value is typed:
/// surrounding whitespace is trimmed; an empty value, `null` (`NULL`, `Null`) and the feed's own
/// missing markers (AirKorea's `-` and `*`) mean "missing" — nil, never 0 or `""`; HTML entities
/// are decoded where the feed leaves them in its text (Saramin's `서울 &gt; 강남구`).
///
/// One value per feed, declared in the feed's module (`WireValue.airKorea`); the rules themselves
/// live only here.
public struct WireValue: Sendable {
    /// ASCII characters that alone mean "missing", besides the empty value and `null`.
    @usableFromInline let missingCharacters: [UInt8]
    /// Whether HTML entities are decoded (`&gt;` → `>`, repeated escaping undone).
    public let decodesHTMLEntities: Bool

    /// - Parameters:
    ///   - missingCharacters: ASCII characters that alone mean "missing" (`"-*"`).
    ///   - decodesHTMLEntities: whether text values have their HTML entities decoded.
    public init(missingCharacters: String = "", decodesHTMLEntities: Bool = false) {
        self.missingCharacters = Array(missingCharacters.utf8.filter { $0 < 0x80 })
        self.decodesHTMLEntities = decodesHTMLEntities
    }

    /// Empty values and `null` mean missing; nothing else.
    public static let standard = WireValue()

    // MARK: - Values

    /// The value with surrounding whitespace removed, or nil when it is a missing marker; no
    /// entity decoding. The common case (no padding) costs no allocation.
    @inlinable
    public func present(_ raw: String?) -> Substring? {
        guard let raw else { return nil }
        // Most values need no trimming: judged on the bytes in place (a Substring's UTF-8 view
        // is indexed one checked step at a time, which cost more than the rest of the mapping).
        if let verdict = raw.utf8.withContiguousStorageIfAvailable({ untrimmedVerdict($0) }), let isPresent = verdict {
            return isPresent ? Substring(raw) : nil
        }
        var text = Substring(raw)
        if let first = text.utf8.first, let last = text.utf8.last,
           Self.mayBeSpace(first) || Self.mayBeSpaceEnd(last) {
            text = text.trimmingWhitespace()
        }
        return isMissingMarker(text) ? nil : text
    }

    /// A text value: trimmed, entities decoded where the feed needs it, nil when missing.
    @inlinable
    public func text(_ raw: String?) -> String? {
        guard let text = present(raw) else { return nil }
        return decodesHTMLEntities ? Self.decodingHTMLEntities(String(text)) : String(text)
    }

    /// Free text: like `text`, with CR LF (and a lone CR) folded to LF so XML (whose parser
    /// normalises line ends) and JSON give the same string.
    public func prose(_ raw: String?) -> String? {
        guard let text = text(raw) else { return nil }
        return text.utf8.contains(13) ? text.replacingCRLF() : text
    }

    /// A comma-joined list split into its entries (`,` or `，`): trimmed, entities decoded,
    /// empty and missing entries dropped, in published order. Commas inside brackets
    /// (`컴퓨터공학(소프트웨어,하드웨어)`) do not split.
    /// - Parameter droppingRepeats: keep only the first of equal entries.
    public func list(_ raw: String?, droppingRepeats: Bool = false) -> [String] {
        guard let text = text(raw) else { return [] }
        var entries: [String] = []
        var seen: Set<String> = []
        var current = ""
        var depth = 0
        func flush() {
            if let entry = present(current), !droppingRepeats || seen.insert(String(entry)).inserted { entries.append(String(entry)) }
            current = ""
        }
        for character in text {
            switch character {
            case "(", "[", "（": depth += 1; current.append(character)
            case ")", "]", "）": depth = max(0, depth - 1); current.append(character)
            case "," where depth == 0, "，" where depth == 0: flush()
            default: current.append(character)
            }
        }
        flush()
        return entries
    }

    /// A whole number written as text (`"444"`, `"444.0"`), or nil.
    public func integer(_ raw: String?) -> Int? {
        guard let text = present(raw) else { return nil }
        if let n = Int(text) { return n }
        if let d = Double(text), d.isFinite, d == d.rounded(), d.magnitude < 1e15 { return Int(d) }
        return nil
    }

    /// A decimal number as JSON and XML feeds write them (`-12.5`, `1e-05`), or nil. Unlike
    /// `Double(_:)` alone it refuses hex floats (`0x10`), `nan`, `inf`, and an exponent that
    /// turns a non-zero value into 0 or infinity (`1e-400`, `1e400`): never a silent zero.
    public static func decimal(_ text: some StringProtocol) -> Double? {
        var mantissaDigits = 0, nonZero = false, seenDot = false, seenExponent = false, exponentDigits = 0
        for (index, byte) in text.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if seenExponent { exponentDigits += 1 } else { mantissaDigits += 1; if byte != UInt8(ascii: "0") { nonZero = true } }
            case UInt8(ascii: "-"), UInt8(ascii: "+"):
                guard index == 0 || (seenExponent && exponentDigits == 0) else { return nil }
            case UInt8(ascii: "."):
                guard !seenDot, !seenExponent else { return nil }
                seenDot = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                guard !seenExponent, mantissaDigits > 0 else { return nil }
                seenExponent = true
            default: return nil
            }
        }
        guard mantissaDigits > 0, !seenExponent || exponentDigits > 0, let value = Double(String(text)), value.isFinite else { return nil }
        return value == 0 && nonZero ? nil : value
    }

    // MARK: - Rules

    /// ASCII space, tab, LF, CR.
    @inlinable
    public static func isSpace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 10 || byte == 13 }

    /// For a value whose ends cannot be whitespace: true when it is present, false when it is a
    /// missing marker; nil when it may need trimming first (then `present` takes the long way).
    @inlinable
    func untrimmedVerdict(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard let first = bytes.first, let last = bytes.last else { return false }
        if Self.mayBeSpace(first) || Self.mayBeSpaceEnd(last) { return nil }
        switch bytes.count {
        case 1: return !missingCharacters.contains(first)
        case 4: return !(bytes.elementsEqual("null".utf8) || bytes.elementsEqual("NULL".utf8) || bytes.elementsEqual("Null".utf8))
        default: return true
        }
    }

    /// Whether `text` (already trimmed) means "missing".
    @inlinable
    public func isMissingMarker(_ text: Substring) -> Bool {
        let bytes = text.utf8
        switch bytes.count {
        case 0: return true
        case 1: return missingCharacters.contains(bytes.first!)
        case 4: return bytes.elementsEqual("null".utf8) || bytes.elementsEqual("NULL".utf8) || bytes.elementsEqual("Null".utf8)
        default: return false
        }
    }

    /// Whether a value whose first UTF-8 byte is `byte` may start with whitespace: ASCII, or
    /// the lead byte of U+0085, U+00A0 (C2), U+1680 (E1), U+2000…U+205F (E2), U+3000 (E3).
    @inlinable
    static func mayBeSpace(_ byte: UInt8) -> Bool {
        byte <= 32 || byte == 0xC2 || byte == 0xE1 || byte == 0xE2 || byte == 0xE3
    }

    /// Whether a value whose last UTF-8 byte is `byte` may end with whitespace: ASCII, or the
    /// last byte of U+0085, U+00A0, U+1680, U+2000…U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
    @inlinable
    static func mayBeSpaceEnd(_ byte: UInt8) -> Bool {
        byte <= 32 || (0x80...0x8A).contains(byte) || byte == 0x85 || byte == 0xA0 || byte == 0xA8 || byte == 0xA9
            || byte == 0xAF || byte == 0x9F
    }

    /// `text` with the HTML entities feeds leave in their text decoded: `&gt;`, `&lt;`,
    /// `&amp;`, `&quot;`, `&#39;`, `&apos;`, `&nbsp;` and numeric references. Repeated escaping
    /// (`&amp;gt;`) is undone too.
    public static func decodingHTMLEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var current = text
        for _ in 0..<3 {
            let next = decodingOnce(current)
            if next == current { break }
            current = next
        }
        return current
    }

    private static let namedEntities: [String: String] = ["gt": ">", "lt": "<", "amp": "&", "quot": "\"", "apos": "'", "nbsp": " "]

    private static func decodingOnce(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let afterAmp = rest.index(after: amp)
            if let semicolon = rest[afterAmp...].prefix(10).firstIndex(of: ";"),
               let replacement = entity(rest[afterAmp..<semicolon]) {
                out += replacement
                rest = rest[rest.index(after: semicolon)...]
                continue
            }
            out += "&"
            rest = rest[afterAmp...]
        }
        return out + rest
    }

    private static func entity(_ name: Substring) -> String? {
        if let named = namedEntities[String(name)] { return named }
        guard name.first == "#" else { return nil }
        let digits = name.dropFirst()
        let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
        return value.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
    }
}

extension Substring {
    /// This text without leading and trailing whitespace (Unicode `White_Space`: ASCII space,
    /// tab and line breaks, U+0085, U+00A0, U+3000, …).
    @inlinable
    public func trimmingWhitespace() -> Substring {
        let scalars = unicodeScalars
        var start = scalars.startIndex, end = scalars.endIndex
        while start < end, Self.isWhitespace(scalars[start]) { start = scalars.index(after: start) }
        while end > start {
            let before = scalars.index(before: end)
            guard Self.isWhitespace(scalars[before]) else { break }
            end = before
        }
        return self[start..<end]
    }

    /// Unicode `White_Space` (PropList.txt, unchanged since Unicode 6.3), as a list rather than
    /// the property tables: the first and last scalar of every field is tested, and the table
    /// lookup for Hangul cost close to a percent of a load (`TrimmingTests` checks every scalar
    /// against `properties.isWhitespace`).
    @inlinable
    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: return true
        default: return false
        }
    }

    /// This text without leading and trailing ASCII spaces, tabs and line breaks (protocol
    /// tokens: codes, labels, parameters).
    public func trimmingASCIISpace() -> Substring {
        var start = startIndex, end = endIndex
        while start < end, let byte = self[start].asciiValue, WireValue.isSpace(byte) { start = index(after: start) }
        while end > start {
            let before = index(before: end)
            guard let byte = self[before].asciiValue, WireValue.isSpace(byte) else { break }
            end = before
        }
        return self[start..<end]
    }
}

extension String {
    /// This text with every CR LF (and lone CR) turned into LF.
    public func replacingCRLF() -> String {
        var out = ""
        out.reserveCapacity(utf8.count)
        var previousWasCR = false
        for scalar in unicodeScalars {
            if scalar == "\r" {
                out.unicodeScalars.append("\n")
                previousWasCR = true
                continue
            }
            if scalar == "\n" && previousWasCR { previousWasCR = false; continue }
            previousWasCR = false
            out.unicodeScalars.append(scalar)
        }
        return out
    }
}
