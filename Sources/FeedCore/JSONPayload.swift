import Foundation
import Pipeline

/// Helpers for JSON payloads: parse with a clear error, reach into objects, and turn item
/// objects into `ItemFields` (scalars become strings, `null` becomes nil).
public enum JSONPayload {
    /// Parses the bytes of `file` (or `data`) as JSON.
    public static func parse(file: URL) throws -> Any {
        let data: Data
        do {
            data = try Data(contentsOf: file, options: .mappedIfSafe)
        } catch {
            throw FeedError(.malformed, .terminal, "Cannot read the payload file.", context: file.path)
        }
        return try parse(data: data, context: file.lastPathComponent)
    }

    public static func parse(data: Data, context: String = "payload") throws -> Any {
        guard !data.isEmpty else { throw FeedError(.malformed, .terminal, "The payload is empty.", context: context) }
        do {
            return try JSONSerialization.jsonObject(with: data, options: [])
        } catch {
            throw FeedError(.malformed, .terminal, "The JSON is not well-formed (\(describe(error))).", context: context)
        }
    }

    /// Follows `path` through nested objects.
    public static func value(_ root: Any, _ path: String...) -> Any? {
        var node: Any? = root
        for key in path {
            guard let object = node as? [String: Any] else { return nil }
            node = object[key]
        }
        return node
    }

    /// A scalar as a string: strings as they are, numbers in their shortest form, booleans as
    /// `true`/`false`, `null` and absent as nil. Objects and arrays are not scalars (nil).
    public static func scalar(_ value: Any?) -> String? {
        switch value {
        case nil, is NSNull: return nil
        case let s as String: return s
        case let n as NSNumber:
            if String(cString: n.objCType) == "c" { return n.boolValue ? "true" : "false" }
            if let i = Int(exactly: n.doubleValue), !n.stringValue.contains(".") { return String(i) }
            return n.stringValue
        default: return nil
        }
    }

    /// The fields of one item object, by schema.
    public static func fields(of object: [String: Any], schema: FieldSchema, position: Int) -> ItemFields {
        var item = ItemFields(schema: schema, position: position)
        for (key, raw) in object {
            guard let i = schema.position(of: key) else { continue }
            if raw is [Any] || raw is [String: Any] {
                item.typeMismatches.append(key)
                continue
            }
            let (value, note) = bounded(scalar(raw), field: key, limit: schema.limits[i])
            item.values[i] = value
            if let note { item.notes.append(note) }
        }
        item.notes.sort { $0.field < $1.field }  // object members come in no fixed order
        return item
    }

    /// A value held to `limit` UTF-8 bytes (nil and a `.tooLong` note when longer) with any
    /// U+0000 removed (and a `.nulRemoved` note). `JSONSerialization` refuses lone surrogates
    /// itself, so a document holding one is malformed.
    public static func bounded(_ value: String?, field: String, limit: Int) -> (String?, FieldNote?) {
        guard let value else { return (nil, nil) }
        let bytes = value.utf8.count
        if bytes > limit { return (nil, FieldNote(field: field, kind: .tooLong(bytes: bytes, limit: limit))) }
        if value.utf8.contains(0) {
            return (String(value.unicodeScalars.filter { $0 != "\u{0}" }.map(Character.init)), FieldNote(field: field, kind: .nulRemoved))
        }
        return (value, nil)
    }

    static func describe(_ error: Error) -> String {
        let ns = error as NSError
        if let detail = ns.userInfo[NSDebugDescriptionErrorKey] as? String { return detail }
        return ns.localizedDescription
    }
}
