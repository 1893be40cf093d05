/// The rule for a cell of a check's sample: at most `maximumBytes` of its text is kept, and a
/// longer value ends in `…(cut, N bytes)`, so a check that returns a huge value (a 100 MB blob)
/// stores a few hundred bytes in `check_result`. `CheckResult` bounds every sample cell it is
/// given, whichever store evaluated the check; the SQLite evaluator also reads at most that much
/// of a column (Storage's `SampleCell.read`), so the whole value is never copied there.
public enum SampleCell {
    /// Bytes of a sample cell's text kept before the mark.
    public static let maximumBytes = 256

    /// `value` bounded: a text longer than `maximumBytes` is cut at a character boundary and
    /// marked; a value already cut by this rule stays as it is.
    public static func bounded(_ value: StoreValue) -> StoreValue {
        guard case .text(let text) = value, text.utf8.count > maximumBytes, !isCut(text) else { return value }
        return .text(text.utf8.withContiguousStorageIfAvailable { cut(UnsafeRawBufferPointer($0), total: $0.count) }
            ?? cut(Array(text.utf8).withUnsafeBytes { UnsafeRawBufferPointer($0) }, total: text.utf8.count))
    }

    /// Whether `text` is a value this rule has cut: at most `maximumBytes`, then
    /// `…(cut, N bytes)` with N at most 20 digits.
    static func isCut(_ text: String) -> Bool {
        guard text.hasSuffix(" bytes)"), let mark = text.range(of: "…(cut, ", options: .backwards) else { return false }
        let digits = text[mark.upperBound...].dropLast(" bytes)".count)
        return !digits.isEmpty && digits.count <= 20 && digits.allSatisfy { $0.isASCII && $0.isNumber }
            && text[..<mark.lowerBound].utf8.count <= maximumBytes
    }

    /// The first bytes of a value of `total` bytes (`prefix` holds at least the bound when the
    /// value is longer), as text: whole when it fits, else cut at a character boundary at most
    /// `maximumBytes` in, followed by the mark.
    public static func cut(_ prefix: UnsafeRawBufferPointer, total: Int) -> String {
        if total <= maximumBytes {
            let text = String(decoding: prefix.prefix(total), as: UTF8.self)
            if text.utf8.count <= maximumBytes { return text }
            return trimmed(text) + "…(cut, \(total) bytes)"
        }
        var end = maximumBytes
        // Step back over UTF-8 continuation bytes, so no character is split.
        while end > 0, prefix[end] & 0xC0 == 0x80 { end -= 1 }
        return trimmed(String(decoding: prefix.prefix(end), as: UTF8.self)) + "…(cut, \(total) bytes)"
    }

    /// `text` shortened by whole characters to at most `maximumBytes` of UTF-8 (bytes that are
    /// not UTF-8, as in a blob, decode to three-byte replacement characters).
    private static func trimmed(_ text: String) -> String {
        var text = text
        while text.utf8.count > maximumBytes { text.removeLast() }
        return text
    }
}
