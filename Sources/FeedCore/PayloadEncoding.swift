import Foundation
import Pipeline

/// Which character encodings a payload may be in: UTF-8, or a single-byte encoding an XML
/// declaration names (EUC-KR, ISO-8859-1 …, which the readers hand to libxml2). UTF-16 and
/// UTF-32 are refused — by byte order mark, by the NUL bytes between characters, or by the
/// encoding the XML declaration names — because the secret scrub, the format sniffing and the
/// JSON reader all read bytes as UTF-8: a key in a UTF-16 answer would pass the scrub unseen.
///
/// The same rule for a fetched answer (before it is archived or parsed, `LiveFetcher`) and for
/// a file replayed or loaded as a fixture (`PayloadArchive.payload(forFile:)`), so replay
/// accepts exactly what a live run accepts.
public enum PayloadEncoding {
    /// How many leading bytes the rule looks at (the declaration is at the very start).
    public static let headLength = 256

    /// What `head` (a payload's first bytes) is encoded in, when it is UTF-16 or UTF-32: e.g.
    /// `UTF-16 (little-endian, byte order mark)`. Nil for UTF-8 and single-byte encodings.
    public static func wideEncoding(of head: Data) -> String? {
        let bytes = [UInt8](head.prefix(headLength))
        func starts(_ prefix: [UInt8]) -> Bool { bytes.starts(with: prefix) }
        if starts([0x00, 0x00, 0xFE, 0xFF]) { return "UTF-32 (big-endian, byte order mark)" }
        if starts([0xFF, 0xFE, 0x00, 0x00]) { return "UTF-32 (little-endian, byte order mark)" }
        if starts([0xFE, 0xFF]) { return "UTF-16 (big-endian, byte order mark)" }
        if starts([0xFF, 0xFE]) { return "UTF-16 (little-endian, byte order mark)" }
        let first = Array(bytes.prefix(4))
        if first.count >= 2, first.contains(0) {
            let nuls = first.filter { $0 == 0 }.count
            return nuls >= 3 ? "UTF-32 (NUL bytes between characters)" : "UTF-16 (NUL bytes between characters)"
        }
        if let declared = declaredEncoding(bytes) {
            let name = declared.uppercased().replacingOccurrences(of: "_", with: "-")
            if name.hasPrefix("UTF-16") || name.hasPrefix("UTF16") || name.hasPrefix("UCS-2") || name.hasPrefix("UTF-32")
                || name.hasPrefix("UTF32") || name.hasPrefix("UCS-4") || name == "UNICODE" {
                return "\(RedirectPolicy.shown(declared)) (declared by the XML declaration)"
            }
        }
        return nil
    }

    /// Throws a terminal error naming what was received when `head` is UTF-16 or UTF-32.
    public static func check(_ head: Data, context: String?) throws {
        guard let wide = wideEncoding(of: head) else { return }
        throw FeedError(.malformed, .terminal,
                        "The payload is \(wide); feedline reads UTF-8, or a single-byte encoding an XML declaration names (EUC-KR, ISO-8859-1), and refuses it.",
                        context: context)
    }

    /// The `encoding` of an XML declaration at the start of `bytes` (after a UTF-8 byte order
    /// mark and white space), if there is one.
    static func declaredEncoding(_ bytes: [UInt8]) -> String? {
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        text = String(text.drop { $0.isWhitespace })
        guard text.hasPrefix("<?xml"), let end = text.range(of: "?>") else { return nil }
        let declaration = text[..<end.lowerBound]
        guard let label = declaration.range(of: "encoding") else { return nil }
        var rest = declaration[label.upperBound...].drop { $0.isWhitespace }
        guard rest.first == "=" else { return nil }
        rest = rest.dropFirst().drop { $0.isWhitespace }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        let value = rest.dropFirst().prefix { $0 != quote }
        return String(value)
    }
}
