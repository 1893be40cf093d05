import Foundation

/// The member names of one object in the first bytes of a JSON payload, for positive
/// recognition (`Recognition.judge`): the fields that make a shape are the members of the item
/// itself, never a name met anywhere in the head (`"name"` in `meta`, `"parameter"` inside a
/// sensor's `latest`).
public enum HeadFields: Equatable, Sendable {
    /// The path leads nowhere in the head (a member is missing, or holds a scalar).
    case absent
    /// The path ends in an empty array: a page without items.
    case empty
    /// The object's member names, in order; fewer when the head ends inside the object.
    case members([String])

    /// Whether the object holds member `name`.
    public func has(_ name: String) -> Bool {
        if case .members(let names) = self { return names.contains(name) }
        return false
    }

    /// The object at `path` in the JSON `head`: each step names a member, and an array on the
    /// way stands for its first element (`["results"]` is the first result of a page; `[]` the
    /// whole answer, or its first element when it is an array). A truncated or malformed head
    /// gives what was read up to there.
    public static func json(_ head: Data, path: [String]) -> HeadFields {
        scan(head) { $0.find(path[...], depth: 0) }
    }

    /// The first element of the array at `path` (`.absent` when the value there is no array).
    public static func jsonFirstElement(_ head: Data, path: [String]) -> HeadFields {
        scan(head) { scanner in
            guard scanner.reach(path[...], depth: 0) else { return .absent }
            scanner.skipSpace()
            guard scanner.current == UInt8(ascii: "[") else { return .absent }
            return scanner.find([], depth: path.count)
        }
    }

    private static func scan(_ head: Data, _ body: (inout Scanner) -> HeadFields) -> HeadFields {
        head.withUnsafeBytes { raw in
            var scanner = Scanner(bytes: raw.bindMemory(to: UInt8.self))
            if scanner.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.index = 3 }
            return body(&scanner)
        }
    }

    /// The names of the child elements of the first `<element>` in the XML `head` (`.absent`
    /// when there is none, `.empty` when it has no children). Comments, CDATA and processing
    /// instructions are passed over; the head may end inside the element.
    public static func xml(_ head: Data, element: String) -> HeadFields {
        let bytes = [UInt8](head)
        let open = Array("<\(element)".utf8)
        var index = 0
        func nameEnd(_ from: Int) -> Int {
            var end = from
            while end < bytes.count, !WireValue.isSpace(bytes[end]), bytes[end] != UInt8(ascii: ">"), bytes[end] != UInt8(ascii: "/") { end += 1 }
            return end
        }
        // The first start tag named exactly `element`.
        while true {
            guard let hit = offset(of: open, in: bytes, from: index) else { return .absent }
            let after = hit + open.count
            index = after
            guard after < bytes.count else { return .absent }
            if nameEnd(after) == after { break }
        }
        guard let close = bytes[index...].firstIndex(of: UInt8(ascii: ">")) else { return .members([]) }
        if close > 0, bytes[close - 1] == UInt8(ascii: "/") { return .empty }
        index = close + 1
        var names: [String] = []
        var depth = 0
        while let lt = bytes[index...].firstIndex(of: UInt8(ascii: "<")), lt + 1 < bytes.count {
            let next = bytes[lt + 1]
            if next == UInt8(ascii: "!") || next == UInt8(ascii: "?") {
                let terminator: [UInt8] = bytes[lt...].starts(with: Array("<!--".utf8)) ? Array("-->".utf8)
                    : bytes[lt...].starts(with: Array("<![CDATA[".utf8)) ? Array("]]>".utf8) : [UInt8(ascii: ">")]
                guard let end = offset(of: terminator, in: bytes, from: lt + 2) else { break }
                index = end + terminator.count
                continue
            }
            guard let gt = bytes[lt...].firstIndex(of: UInt8(ascii: ">")) else { break }
            index = gt + 1
            if next == UInt8(ascii: "/") {
                if depth == 0 { break }
                depth -= 1
                continue
            }
            if depth == 0 { names.append(String(decoding: bytes[(lt + 1)..<nameEnd(lt + 1)], as: UTF8.self)) }
            if bytes[gt - 1] != UInt8(ascii: "/") { depth += 1 }
        }
        return names.isEmpty ? .empty : .members(names)
    }

    /// Where `needle` first occurs in `bytes` at or after `start`.
    private static func offset(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, start <= bytes.count - needle.count else { return nil }
        let haystack = bytes[start...]
        var from = haystack.startIndex
        while let first = haystack[from...].firstIndex(of: needle[0]), first + needle.count <= bytes.count {
            if bytes[first..<(first + needle.count)].elementsEqual(needle) { return first }
            from = first + 1
        }
        return nil
    }

    /// A bounded scan of JSON bytes: never more than `maximumDepth` deep, never past the end.
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        static let maximumDepth = 64

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func find(_ path: ArraySlice<String>, depth: Int) -> HeadFields {
            guard depth < Self.maximumDepth else { return .absent }
            skipSpace()
            switch current {
            case UInt8(ascii: "["):
                index += 1
                skipSpace()
                if current == UInt8(ascii: "]") { return .empty }
                return find(path, depth: depth + 1)
            case UInt8(ascii: "{"):
                index += 1
                if path.isEmpty { return .members(memberNames(depth: depth + 1)) }
                while let key = nextKey() {
                    if key == path.first { return find(path.dropFirst(), depth: depth + 1) }
                    guard skipValue(depth: depth + 1), endOfMember() else { return .absent }
                }
                return .absent
            default:
                return .absent
            }
        }

        /// Moves to the value of the member `path` names (objects only, no array on the way);
        /// false when there is none.
        mutating func reach(_ path: ArraySlice<String>, depth: Int) -> Bool {
            guard let name = path.first else { return true }
            guard depth < Self.maximumDepth else { return false }
            skipSpace()
            guard current == UInt8(ascii: "{") else { return false }
            index += 1
            while let key = nextKey() {
                if key == name { return reach(path.dropFirst(), depth: depth + 1) }
                guard skipValue(depth: depth + 1), endOfMember() else { return false }
            }
            return false
        }

        /// The names of the object's members, the opening brace already read.
        mutating func memberNames(depth: Int) -> [String] {
            var names: [String] = []
            while let key = nextKey() {
                names.append(key)
                guard skipValue(depth: depth), endOfMember() else { break }
            }
            return names
        }

        /// The next member's name and its colon; nil at the object's end or the head's.
        mutating func nextKey() -> String? {
            skipSpace()
            guard current == UInt8(ascii: "\"") else { return nil }
            guard let key = string() else { return nil }
            skipSpace()
            guard current == UInt8(ascii: ":") else { return nil }
            index += 1
            return key
        }

        /// After a member's value: true at a comma (consumed), false at the end of the object.
        mutating func endOfMember() -> Bool {
            skipSpace()
            guard current == UInt8(ascii: ",") else { return false }
            index += 1
            return true
        }

        /// A string's raw text (escapes left as written), the opening quote at `index`.
        mutating func string() -> String? {
            index += 1
            let start = index
            while let byte = current {
                if byte == UInt8(ascii: "\\") { index += 2; continue }
                if byte == UInt8(ascii: "\"") {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                    index += 1
                    return text
                }
                index += 1
            }
            return nil
        }

        /// Skips one value; false when the head ends inside it or it is too deep.
        mutating func skipValue(depth: Int) -> Bool {
            guard depth < Self.maximumDepth else { return false }
            skipSpace()
            guard let byte = current else { return false }
            switch byte {
            case UInt8(ascii: "\""):
                return string() != nil
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let closing = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                index += 1
                skipSpace()
                if current == closing { index += 1; return true }
                while true {
                    if byte == UInt8(ascii: "{") {
                        guard nextKey() != nil else { return false }
                    }
                    guard skipValue(depth: depth + 1) else { return false }
                    skipSpace()
                    guard let next = current else { return false }
                    index += 1
                    if next == closing { return true }
                    guard next == UInt8(ascii: ",") else { return false }
                }
            default:
                while let next = current, next != UInt8(ascii: ","), next != UInt8(ascii: "}"), next != UInt8(ascii: "]") { index += 1 }
                return current != nil
            }
        }
    }
}
