import Foundation
import Pipeline

/// What a JSON document held outside its items: scalar leaves by slash path (e.g.
/// `response/header/resultCode`, `list/…` never: arrays of items are not leaves), `null` kept
/// as nil, and which item arrays were found.
public struct JSONEnvelope: Sendable {
    public var leaves: [String: String?]
    /// Paths of the item arrays found (`""` for a top-level array).
    public var itemArrays: Set<String>
    public var itemCount: Int
    /// The top-level object's keys, in document order (empty for a top-level array).
    public var rootKeys: [String]
    /// Slash paths of the objects found outside items (`""` for a top-level object, `jobs`),
    /// so an empty object is told from an absent one.
    public var objects: Set<String>
    /// The fields the items carried and their kinds, for schema-drift detection.
    public var census: FieldCensus
}

/// A single-pass JSON reader for "item" payloads: it validates the whole document, hands
/// each object of the arrays at `itemPaths` to the caller as `ItemFields` (scalars as strings,
/// `null` as nil, nested objects/arrays recorded in `typeMismatches` unless the schema names
/// fields inside them by path, `position/title`), and returns the scalar leaves found elsewhere.
/// No object graph is built, so it is several times faster than Foundation's JSON parser and its
/// memory is the mapped file plus one item.
///
/// A document that ends before it is complete (a cut-off download) is malformed, worded as
/// "The JSON is not well-formed (Unexpected end of file during JSON parse.)." — the sentence
/// recorded in the feeds' golden files.
public struct JSONItemReader: Sendable {
    public let schema: FieldSchema
    /// Slash paths of arrays whose elements are items (`response/body/items`, `list`, `""`).
    public let itemPaths: Set<String>
    /// Slash paths where a single object (not an array) is one item (`{"item": {…}}` wrappers).
    public let singleItemPaths: Set<String>
    /// Nesting limit; deeper documents are refused rather than recursed into.
    public let maxDepth: Int

    public init(schema: FieldSchema, itemPaths: Set<String>, singleItemPaths: Set<String> = [], maxDepth: Int = 64) {
        self.schema = schema
        self.itemPaths = itemPaths
        self.singleItemPaths = singleItemPaths
        self.maxDepth = maxDepth
    }

    /// Reads a payload's bytes when they are at hand, else its file (`read(file:…)`).
    public func read(_ source: PayloadSource, onItem: (ItemFields) throws -> Void, onNonObject: (Int) -> Void = { _ in }) throws -> JSONEnvelope {
        guard let bytes = source.bytes else { return try read(file: source.file, onItem: onItem, onNonObject: onNonObject) }
        return try read(data: bytes, context: source.file.lastPathComponent, onItem: onItem, onNonObject: onNonObject)
    }

    /// Reads `file`. `onItem` gets each item object; `onNonObject` each array element that is
    /// not an object (its position).
    public func read(file: URL, onItem: (ItemFields) throws -> Void, onNonObject: (Int) -> Void = { _ in }) throws -> JSONEnvelope {
        let data: Data
        do { data = try Data(contentsOf: file, options: .alwaysMapped) } catch {
            throw FeedError(.malformed, .terminal, "Cannot read the payload file.", context: file.path)
        }
        return try read(data: data, context: file.lastPathComponent, onItem: onItem, onNonObject: onNonObject)
    }

    /// One element of a page's item list, as `readPage` keeps it.
    public enum PageElement {
        case item(ItemFields)
        /// An array element that is not an object, at this position.
        case notObject(position: Int)
    }

    /// `readPage(_:)`, its errors naming `context` (the payload's URL or file) as where.
    public func readPage(_ source: PayloadSource, context: String?) throws -> (envelope: JSONEnvelope, elements: [PageElement]) {
        do { return try readPage(source) } catch var error as FeedError {
            error.context = context
            throw error
        }
    }

    /// Reads a payload whole and returns its items in order, for decoders that must judge the
    /// envelope (an error answer, a cut-off document) before mapping anything, so a bad page
    /// never leaves part of itself delivered. Memory is one page of field strings.
    public func readPage(_ source: PayloadSource) throws -> (envelope: JSONEnvelope, elements: [PageElement]) {
        var elements: [PageElement] = []
        let envelope = try read(source, onItem: { elements.append(.item($0)) },
                                onNonObject: { elements.append(.notObject(position: $0)) })
        return (envelope, elements)
    }

    public func read(data: Data, context: String = "payload", onItem: (ItemFields) throws -> Void,
                     onNonObject: (Int) -> Void = { _ in }) throws -> JSONEnvelope {
        try withoutActuallyEscaping(onItem) { onItem in
          try withoutActuallyEscaping(onNonObject) { onNonObject in
           try data.withUnsafeBytes { raw -> JSONEnvelope in
            var parser = Parser(bytes: raw.bindMemory(to: UInt8.self), reader: self, onItem: onItem, onNonObject: onNonObject)
            do {
                try parser.document()
            } catch let error as Parser.SyntaxError {
                if error.offset >= raw.count, !error.isEmptyDocument {
                    throw FeedError(.malformed, .terminal, Self.truncatedMessage, context: context)
                }
                throw FeedError(.malformed, .terminal, "The JSON is not well-formed: \(error.message) at byte \(error.offset).", context: context)
            }
            return JSONEnvelope(leaves: parser.leaves, itemArrays: parser.itemArrays, itemCount: parser.itemCount, rootKeys: parser.rootKeys,
                                objects: parser.objects, census: parser.census.census())
           }
          }
        }
    }

    /// What a document that ends too early is said to be.
    static let truncatedMessage = "The JSON is not well-formed (Unexpected end of file during JSON parse.)."

    private struct Parser {
        struct SyntaxError: Error {
            var message: String
            var offset: Int
            var isEmptyDocument = false
        }

        let bytes: UnsafeBufferPointer<UInt8>
        let reader: JSONItemReader
        let onItem: (ItemFields) throws -> Void
        let onNonObject: (Int) -> Void
        var i = 0
        var path: [String] = []
        var leaves: [String: String?] = [:]
        var itemArrays: Set<String> = []
        var itemCount = 0
        var rootKeys: [String] = []
        var objects: Set<String> = []
        var scratch: [UInt8] = []
        /// Item keys by their place in an item, as last seen (see `itemKey`), with the census
        /// index of a key outside the schema (-1 for schema keys).
        var keyCache: [(raw: [UInt8], key: String, slot: Int?, extra: Int)] = []
        /// The fields items carried (`FieldCensus`).
        var census: FieldCensusBuilder

        init(bytes: UnsafeBufferPointer<UInt8>, reader: JSONItemReader, onItem: @escaping (ItemFields) throws -> Void,
             onNonObject: @escaping (Int) -> Void) {
            self.bytes = bytes; self.reader = reader; self.onItem = onItem; self.onNonObject = onNonObject
            census = FieldCensusBuilder(schema: reader.schema, format: .json)
        }

        func fail(_ message: String) -> SyntaxError { SyntaxError(message: message, offset: i) }

        mutating func skipSpace() {
            while i < bytes.count {
                switch bytes[i] {
                case 0x20, 0x0A, 0x0D, 0x09: i += 1
                default: return
                }
            }
        }

        mutating func document() throws {
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
            skipSpace()
            guard i < bytes.count else {
                var error = fail("the document is empty")
                error.isEmptyDocument = true
                throw error
            }
            try value(depth: 0, isRoot: true)
            skipSpace()
            guard i == bytes.count else { throw fail("unexpected content after the document") }
        }

        var currentPath: String { path.joined(separator: "/") }

        /// Any value outside items.
        mutating func value(depth: Int, isRoot: Bool = false) throws {
            guard depth < reader.maxDepth else { throw fail("nesting deeper than \(reader.maxDepth) levels") }
            skipSpace()
            guard i < bytes.count else { throw fail("unexpected end of document") }
            switch bytes[i] {
            case UInt8(ascii: "{"):
                if reader.singleItemPaths.contains(currentPath) {
                    itemArrays.insert(currentPath)
                    try item(position: 0, depth: depth + 1)
                    itemCount += 1
                    return
                }
                objects.insert(currentPath)
                i += 1
                skipSpace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return }
                while true {
                    skipSpace()
                    let key = try string()
                    if isRoot { rootKeys.append(key) }
                    skipSpace()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':' after a key") }
                    i += 1
                    path.append(key)
                    try value(depth: depth + 1)
                    path.removeLast()
                    skipSpace()
                    guard i < bytes.count else { throw fail("unexpected end inside an object") }
                    if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                    if bytes[i] == UInt8(ascii: "}") { i += 1; return }
                    throw fail("expected ',' or '}' in an object")
                }
            case UInt8(ascii: "["):
                let here = currentPath
                if reader.itemPaths.contains(here) {
                    itemArrays.insert(here)
                    try itemArray(depth: depth)
                    return
                }
                i += 1
                skipSpace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return }
                var index = 0
                while true {
                    path.append(String(index))
                    try value(depth: depth + 1)
                    path.removeLast()
                    index += 1
                    skipSpace()
                    guard i < bytes.count else { throw fail("unexpected end inside an array") }
                    if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                    if bytes[i] == UInt8(ascii: "]") { i += 1; return }
                    throw fail("expected ',' or ']' in an array")
                }
            default:
                // An over-long envelope value reads as absent.
                if case .value(let text) = try boundedScalar(limit: FieldLimit.standard) { leaves[currentPath] = .some(text) }
            }
        }

        /// An array whose elements are items.
        mutating func itemArray(depth: Int) throws {
            i += 1  // [
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return }
            var position = 0
            var fields = ItemFields(schema: reader.schema, position: 0)  // reused for every item
            while true {
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end inside the items") }
                if bytes[i] == UInt8(ascii: "{") {
                    fields.reset(position: position)
                    try members(into: &fields, under: nil, depth: depth + 1)
                    try onItem(fields)
                } else {
                    try skipValue(depth: depth + 1)
                    onNonObject(position)
                }
                position += 1
                itemCount += 1
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end inside the items") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return }
                throw fail("expected ',' or ']' between items")
            }
        }

        /// A lone item object (an `item` member that is an object, not an array).
        mutating func item(position: Int, depth: Int) throws {
            var fields = ItemFields(schema: reader.schema, position: position)
            try members(into: &fields, under: nil, depth: depth)
            try onItem(fields)
        }

        /// The members of an item object, or (nested schemas) of an object inside one at the
        /// slash path `prefix`, into `fields`.
        mutating func members(into fields: inout ItemFields, under prefix: String?, depth: Int) throws {
            i += 1  // {
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return }
            var ordinal = 0
            if prefix == nil { census.items += 1 }
            while true {
                skipSpace()
                let key: String, slot: Int?, extra: Int
                if let prefix {
                    key = prefix + "/" + (try string())
                    slot = reader.schema.position(of: key)
                    extra = slot == nil ? census.extra(key) : -1
                } else {
                    (key, slot, extra) = try itemKey(ordinal: ordinal)
                }
                ordinal += 1
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':' after a key") }
                i += 1
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end inside an item") }
                if bytes[i] == UInt8(ascii: "{"), reader.schema.isNested, reader.schema.isContainer(key) {
                    guard depth + 1 < reader.maxDepth else { throw fail("nesting deeper than \(reader.maxDepth) levels") }
                    census.saw(extra: extra >= 0 ? extra : census.extra(key), kind: .object, value: nil)
                    try members(into: &fields, under: key, depth: depth + 1)
                } else if bytes[i] == UInt8(ascii: "{") || bytes[i] == UInt8(ascii: "[") {
                    let kind: FieldKinds = bytes[i] == UInt8(ascii: "{") ? .object : .list
                    let start = i
                    try skipValue(depth: depth + 1)
                    if let slot {
                        fields.typeMismatches.append(key)
                        census.saw(slot: slot, kind: kind, value: census.wantsSample(slot: slot, kind: kind) ? sampleText(start..<i) : nil)
                    } else {
                        census.saw(extra: extra, kind: kind, value: census.wantsSample(extra: extra, kind: kind) ? sampleText(start..<i) : nil)
                    }
                } else if let slot {
                    let kind = Self.scalarKind(bytes[i])
                    switch try boundedScalar(limit: reader.schema.limit(at: slot)) {
                    case .value(let text):
                        if fields.values[slot] != nil { fields.notes.append(FieldNote(field: key, kind: .repeated)) }
                        fields.values[slot] = text
                        if sawNul { fields.notes.append(FieldNote(field: key, kind: .nulRemoved)) }
                        if sawLoneSurrogate { fields.notes.append(FieldNote(field: key, kind: .loneSurrogate)) }
                        census.saw(slot: slot, kind: kind, value: text)
                    case .tooLong(let length):
                        fields.notes.append(FieldNote(field: key, kind: .tooLong(bytes: length, limit: reader.schema.limit(at: slot))))
                        census.saw(slot: slot, kind: kind, value: nil)
                    }
                } else {
                    // Not a field we read: validated, never kept (a value is read only to sample
                    // a kind the census has not seen for it yet).
                    let kind = Self.scalarKind(bytes[i])
                    let limit = census.wantsSample(extra: extra, kind: kind) ? FieldCensus.sampleLength * 4 : 0
                    if case .value(let text) = try boundedScalar(limit: limit), limit > 0 {
                        census.saw(extra: extra, kind: kind, value: text)
                    } else {
                        census.saw(extra: extra, kind: kind, value: nil)
                    }
                }
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end inside an item") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return }
                throw fail("expected ',' or '}' in an item")
            }
        }

        /// The key at `ordinal` in an item and its schema slot. Items of a page repeat the same
        /// keys in the same order, so the raw key bytes are compared with those seen at the same
        /// place in earlier items before any String is made or hashed.
        mutating func itemKey(ordinal: Int) throws -> (key: String, slot: Int?, extra: Int) {
            if ordinal < keyCache.count, i < bytes.count, bytes[i] == UInt8(ascii: "\"") {
                let cached = keyCache[ordinal]
                let end = i + 1 + cached.raw.count
                if end < bytes.count, bytes[end] == UInt8(ascii: "\""),
                   cached.raw.withUnsafeBytes({ $0.isEmpty || memcmp($0.baseAddress!, bytes.baseAddress! + i + 1, $0.count) == 0 }) {
                    i = end + 1
                    return (cached.key, cached.slot, cached.extra)
                }
            }
            let start = i
            let key = try string()
            let slot = reader.schema.position(of: key)
            let extra = slot == nil ? census.extra(key) : -1
            // Only plain keys (no escapes) are remembered: the cached bytes must be the key's text.
            let raw = Array(bytes[(start + 1)..<(i - 1)])
            if !raw.contains(UInt8(ascii: "\\")) {
                let entry = (raw: raw, key: key, slot: slot, extra: extra)
                if ordinal < keyCache.count { keyCache[ordinal] = entry } else if ordinal == keyCache.count { keyCache.append(entry) }
            }
            return (key, slot, extra)
        }

        /// The kind of the scalar starting with `byte`: empty for `null`.
        static func scalarKind(_ byte: UInt8) -> FieldKinds {
            switch byte {
            case UInt8(ascii: "\""): .text
            case UInt8(ascii: "t"), UInt8(ascii: "f"): .bool
            case UInt8(ascii: "n"): []
            default: .number
            }
        }

        /// The bytes at `range` as a sample (an object or array's JSON text), cut to length.
        func sampleText(_ range: Range<Int>) -> String {
            let cut = range.lowerBound..<min(range.upperBound, range.lowerBound + FieldCensus.sampleLength * 4)
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[cut]), as: UTF8.self)
        }

        /// Validates and skips any value.
        mutating func skipValue(depth: Int) throws {
            let saved = path
            path = ["\u{0}skip"]  // never an item path or a leaf anyone reads
            defer { path = saved }
            var ignoredLeaves = leaves
            swap(&ignoredLeaves, &leaves)
            defer { swap(&ignoredLeaves, &leaves) }
            var ignoredObjects: Set<String> = []
            swap(&ignoredObjects, &objects)
            defer { swap(&ignoredObjects, &objects) }
            try value(depth: depth)
        }

        /// A scalar read with a byte limit: its text, or its length when longer than `limit`.
        enum BoundedScalar { case value(String?), tooLong(Int) }

        /// Set by the last string read: a `\u0000` was removed / a lone surrogate replaced.
        var sawNul = false
        var sawLoneSurrogate = false

        /// A scalar as text — strings unescaped, numbers verbatim, true/false, null → nil — unless
        /// it is longer than `limit` UTF-8 bytes: then only its length, and no String is made.
        mutating func boundedScalar(limit: Int) throws -> BoundedScalar {
            sawNul = false
            sawLoneSurrogate = false
            switch bytes[i] {
            case UInt8(ascii: "\""): return try string(limit: limit)
            case UInt8(ascii: "n"): try literal("null"); return .value(nil)
            case UInt8(ascii: "t"): try literal("true"); return 4 <= limit ? .value("true") : .tooLong(4)
            case UInt8(ascii: "f"): try literal("false"); return 5 <= limit ? .value("false") : .tooLong(5)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let digits = try number()
                return digits.count <= limit ? .value(String(decoding: UnsafeBufferPointer(rebasing: bytes[digits]), as: UTF8.self)) : .tooLong(digits.count)
            default: throw fail("unexpected character")
            }
        }

        /// `null`, `true` or `false`, compared in place (a third of a page's values are `null`).
        mutating func literal(_ word: StaticString) throws {
            let count = word.utf8CodeUnitCount
            guard i + count <= bytes.count else { throw fail("unexpected end of document") }
            let expected = word.utf8Start
            for k in 0..<count where bytes[i + k] != expected[k] { throw fail("invalid literal") }
            i += count
        }

        /// Validates a number and returns where its text lies.
        mutating func number() throws -> Range<Int> {
            let start = i
            if bytes[i] == UInt8(ascii: "-") { i += 1 }
            var digits = 0
            while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1; digits += 1 }
            guard digits > 0 else { throw fail("invalid number") }
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
                i += 1
                var fraction = 0
                while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1; fraction += 1 }
                guard fraction > 0 else { throw fail("invalid number") }
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                i += 1
                if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                var exponent = 0
                while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1; exponent += 1 }
                guard exponent > 0 else { throw fail("invalid number") }
            }
            return start..<i
        }

        /// An object key: a string of at most `FieldLimit.standard` bytes (a longer key is a
        /// malformed document, not data).
        mutating func string() throws -> String {
            guard case .value(let text?) = try string(limit: FieldLimit.standard) else {
                throw fail("a key longer than \(FieldLimit.standard) bytes")
            }
            return text
        }

        mutating func string(limit: Int) throws -> BoundedScalar {
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a string") }
            i += 1
            let start = i
            var escaped = false
            while i < bytes.count {
                let b = bytes[i]
                if b == UInt8(ascii: "\"") { break }
                if b == UInt8(ascii: "\\") { escaped = true; i += 2; continue }
                if b < 0x20 { throw fail("control character in a string") }
                i += 1
            }
            guard i < bytes.count else { throw fail("unterminated string") }
            let end = i
            i += 1
            let raw = UnsafeBufferPointer(rebasing: bytes[start..<end])
            // JSON text is UTF-8 (RFC 8259): invalid bytes make the document malformed rather
            // than being silently replaced by U+FFFD.
            guard isValidUTF8(raw) else { throw fail("invalid UTF-8 in a string") }
            if !escaped { return raw.count <= limit ? .value(String(decoding: raw, as: UTF8.self)) : .tooLong(raw.count) }
            return try unescape(raw, limit: limit)
        }

        /// Undoes escapes into `scratch`, which never grows past `limit` (+ one character): a
        /// longer string is only measured. `\u0000` is dropped (`sawNul`); an unpaired surrogate
        /// becomes U+FFFD (`sawLoneSurrogate`).
        mutating func unescape(_ raw: UnsafeBufferPointer<UInt8>, limit: Int) throws -> BoundedScalar {
            scratch.removeAll(keepingCapacity: true)
            var k = 0
            func hex4(_ at: Int) -> UInt32? {
                guard at + 4 <= raw.count else { return nil }
                var v: UInt32 = 0
                for j in at..<(at + 4) {
                    let c = raw[j]
                    let d: UInt32
                    switch c {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
                    case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
                    case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
                    default: return nil
                    }
                    v = v << 4 | d
                }
                return v
            }
            var length = 0
            func put(_ byte: UInt8) {
                length += 1
                if length <= limit { scratch.append(byte) }
            }
            while k < raw.count {
                let b = raw[k]
                guard b == UInt8(ascii: "\\") else { put(b); k += 1; continue }
                guard k + 1 < raw.count else { throw fail("bad escape") }
                let e = raw[k + 1]
                k += 2
                switch e {
                case UInt8(ascii: "\""): put(0x22)
                case UInt8(ascii: "\\"): put(0x5C)
                case UInt8(ascii: "/"): put(0x2F)
                case UInt8(ascii: "b"): put(0x08)
                case UInt8(ascii: "f"): put(0x0C)
                case UInt8(ascii: "n"): put(0x0A)
                case UInt8(ascii: "r"): put(0x0D)
                case UInt8(ascii: "t"): put(0x09)
                case UInt8(ascii: "u"):
                    guard var scalar = hex4(k) else { throw fail("bad \\u escape") }
                    k += 4
                    if (0xD800...0xDBFF).contains(scalar) {
                        if k + 6 <= raw.count, raw[k] == UInt8(ascii: "\\"), raw[k + 1] == UInt8(ascii: "u"),
                           let low = hex4(k + 2), (0xDC00...0xDFFF).contains(low) {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                            k += 6
                        } else {
                            scalar = 0xFFFD
                            sawLoneSurrogate = true
                        }
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        scalar = 0xFFFD
                        sawLoneSurrogate = true
                    }
                    if scalar == 0 { sawNul = true; continue }
                    for byte in String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8 { put(byte) }
                default: throw fail("bad escape")
                }
            }
            return length <= limit ? .value(String(decoding: scratch, as: UTF8.self)) : .tooLong(length)
        }
    }
}

/// Whether `bytes` are well-formed UTF-8 (RFC 3629: shortest forms only, no surrogates, nothing
/// above U+10FFFF). A plain loop: `String(validating:)` is generic and not specialised, and cost
/// more than the rest of the JSON parse.
func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var k = 0
    let n = bytes.count
    @inline(__always) func continuation(_ at: Int) -> Bool { at < n && bytes[at] & 0xC0 == 0x80 }
    while k < n {
        let b = bytes[k]
        if b < 0x80 { k += 1; continue }
        switch b {
        case 0xC2...0xDF:
            guard continuation(k + 1) else { return false }
            k += 2
        case 0xE0...0xEF:
            guard k + 2 < n, continuation(k + 1), continuation(k + 2) else { return false }
            let second = bytes[k + 1]
            if b == 0xE0 && second < 0xA0 { return false }   // overlong
            if b == 0xED && second > 0x9F { return false }   // surrogates
            k += 3
        case 0xF0...0xF4:
            guard k + 3 < n, continuation(k + 1), continuation(k + 2), continuation(k + 3) else { return false }
            let second = bytes[k + 1]
            if b == 0xF0 && second < 0x90 { return false }   // overlong
            if b == 0xF4 && second > 0x8F { return false }   // above U+10FFFF
            k += 4
        default:
            return false                                       // 80…C1, F5…FF
        }
    }
    return true
}
