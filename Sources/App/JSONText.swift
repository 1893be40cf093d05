import Foundation

/// The one way feedline writes JSON text: Foundation's `JSONEncoder` (keys sorted, `/` not
/// escaped), for whole documents and for the string literals of documents assembled in order.
enum JSONText {
    /// `value` as JSON, keys sorted.
    static func encode<Value: Encodable>(_ value: Value) -> String {
        // Encoding strings, numbers and the report structures cannot fail; a failure would be a
        // non-finite Double, which the callers map to null before encoding.
        let data = (try? encoder.encode(value)) ?? Data("null".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// `text` as a JSON string literal, quotes included.
    static func string(_ text: String) -> String { encode(text) }

    /// Shared: the CLI encodes on one thread at a time, and building an encoder costs more than
    /// encoding a short string.
    nonisolated(unsafe) private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
