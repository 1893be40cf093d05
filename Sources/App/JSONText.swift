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

    /// Shared: building an encoder costs more than encoding a short string, and its `encode` keeps
    /// no state between calls (Foundation's `JSONEncoder` is `Sendable`), so log handlers on any
    /// thread use it too.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

/// A JSON value for documents assembled as dictionaries and arrays (`[String: Any]` with
/// `NSNull` for null), encoded with `JSONText`.
enum JSONValue: Encodable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
    /// A value that encodes itself (e.g. a run report).
    case encodable(any Encodable)

    /// The value of a tree of `String`, `Int`, `Double` (non-finite → null), `Bool`, `NSNull`,
    /// optionals, arrays, `[String: …]` dictionaries and `Encodable` values; anything else is
    /// written as its description.
    init(any value: Any) {
        // An optional (of any depth) is its wrapped value or null. Checked first: every value
        // also casts to `Optional<Any>`, which would wrap it again and again.
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            self = mirror.children.first.map { JSONValue(any: $0.value) } ?? .null
            return
        }
        switch value {
        case is NSNull: self = .null
        case let v as Bool: self = .bool(v)
        case let v as Int: self = .integer(v)
        case let v as Int32: self = .integer(Int(v))
        case let v as Int64: self = .integer(Int(v))
        case let v as UInt32: self = .integer(Int(v))
        case let v as Double: self = v.isFinite ? .number(v) : .null
        case let v as String: self = .string(v)
        case let v as [String: Any]: self = .object(v.mapValues(JSONValue.init(any:)))
        case let v as [Any]: self = .array(v.map(JSONValue.init(any:)))
        case let v as any Encodable: self = .encodable(v)
        default: self = .string(String(describing: value))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let v): try c.encode(v)
        case .integer(let v): try c.encode(v)
        case .number(let v): try c.encode(v)
        case .string(let v): try c.encode(v)
        case .array(let v): try c.encode(v)
        case .object(let v): try c.encode(v)
        case .encodable(let v): try c.encode(v)
        }
    }
}
