import Foundation
import Yams

/// The bounds a pipeline file must keep before its YAML is parsed at all.
///
/// A YAML parser expands aliases: nine lines of anchors and aliases (a "billion laughs") become
/// billions of values, and nesting thousands of levels deep exhausts the stack. Pipeline files are
/// a few dozen lines of plain settings, so feedline refuses what they never need, from the text
/// alone, before the parser sees it:
/// - more than `maximumBytes` bytes;
/// - anchors (`&name`) and aliases (`*name`), in any position where YAML reads them as such
///   (an `&` or `*` inside a quoted string, a comment or a block scalar, or after the start of a
///   plain value such as `Tom & Jerry`, is text and stays allowed; a continuation line of a
///   multi-line plain value that starts with `&` or `*` is refused too: quote such a value);
/// - nesting deeper than `maximumDepth` levels (block indentation levels, `- `/`? ` entries
///   on one line and flow brackets together; an over-estimate, never an under-estimate).
/// Without aliases the parsed document is no larger than the text, so these three bound its
/// time and memory.
public enum PipelineFileBounds {
    public static let maximumBytes = 64 * 1024
    public static let maximumDepth = 24

    /// Why a text is refused, as the end of a sentence that starts with the file's name.
    public struct Violation: Error, Equatable, Sendable {
        public var message: String
        public var line: Int?
    }

    /// Checks `bytes`; nil when the file is within bounds.
    public static func check(_ bytes: Data) -> Violation? {
        guard bytes.count <= maximumBytes else {
            return Violation(message: "is \(TerminalProgress.grouped(bytes.count)) bytes; pipeline files are limited to \(maximumBytes / 1024) KiB.", line: nil)
        }
        return scan(Array(bytes))
    }

    private enum Quote { case none, single, double }

    private static func scan(_ text: [UInt8]) -> Violation? {
        var quote = Quote.none
        var flowDepth = 0
        var indentStack: [Int] = []
        var blockScalarParent: Int?       // indentation of the line that opened a `|`/`>` scalar
        var lineNumber = 0
        var start = 0
        while start <= text.count {
            var end = start
            while end < text.count && text[end] != 10 { end += 1 }
            let line = text[start..<end]
            lineNumber += 1
            defer { start = end + 1 }
            if start == text.count { break }

            var indent = 0
            for byte in line { if byte == 32 { indent += 1 } else { break } }
            let blank = line.allSatisfy { $0 == 32 || $0 == 9 || $0 == 13 }
            if let parent = blockScalarParent {
                if blank || indent > parent { continue }  // block scalar content: text
                blockScalarParent = nil
            }
            if blank && quote == .none { continue }

            // Block nesting: one level per distinct indentation in force (outside flow collections).
            if quote == .none && flowDepth == 0 && !(line.dropFirst(indent).first == UInt8(ascii: "#")) {
                while let last = indentStack.last, last > indent { indentStack.removeLast() }
                if indentStack.last != indent { indentStack.append(indent) }
            }

            var i = line.startIndex + (quote == .none ? indent : 0)
            var nodeStart = quote == .none
            var compact = 0
            while i < line.endIndex {
                let c = line[i]
                let next: UInt8? = i + 1 < line.endIndex ? line[i + 1] : nil
                let nextIsSpace = next == nil || next == 32 || next == 9 || next == 13
                switch quote {
                case .single:
                    if c == UInt8(ascii: "'") {
                        if next == UInt8(ascii: "'") { i += 2; continue }
                        quote = .none; nodeStart = false
                    }
                    i += 1; continue
                case .double:
                    if c == UInt8(ascii: "\\") { i += 2; continue }
                    if c == UInt8(ascii: "\"") { quote = .none; nodeStart = false }
                    i += 1; continue
                case .none:
                    break
                }
                if c == 32 || c == 9 || c == 13 { i += 1; continue }
                if c == UInt8(ascii: "#") && (i == line.startIndex || line[i - 1] == 32 || line[i - 1] == 9) { break }
                if nodeStart {
                    switch c {
                    case UInt8(ascii: "&"), UInt8(ascii: "*"):
                        let kind = c == UInt8(ascii: "&") ? "an anchor (&)" : "an alias (*)"
                        return Violation(message: "uses \(kind) on line \(lineNumber); pipeline files may not use YAML anchors or aliases: write each value out.", line: lineNumber)
                    case UInt8(ascii: "!"):  // a tag: what follows is still the node's start
                        while i < line.endIndex && line[i] != 32 && line[i] != 9 { i += 1 }
                        continue
                    case UInt8(ascii: "|"), UInt8(ascii: ">"):
                        blockScalarParent = indent
                        i = line.endIndex
                        continue
                    case UInt8(ascii: "-") where nextIsSpace, UInt8(ascii: "?") where nextIsSpace:
                        compact += 1
                        i += 1
                        continue
                    case UInt8(ascii: "'"): quote = .single; i += 1; continue
                    case UInt8(ascii: "\""): quote = .double; i += 1; continue
                    default: break
                    }
                }
                switch c {
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    flowDepth += 1; nodeStart = true
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    flowDepth = max(0, flowDepth - 1); nodeStart = false
                case UInt8(ascii: ",") where flowDepth > 0:
                    nodeStart = true
                case UInt8(ascii: ":") where nextIsSpace || (flowDepth > 0 && (next == UInt8(ascii: ",") || next == UInt8(ascii: "]") || next == UInt8(ascii: "}"))):
                    nodeStart = true
                default:
                    nodeStart = false
                }
                let depth = indentStack.count + compact + flowDepth
                if depth > maximumDepth {
                    return Violation(message: "nests deeper than \(maximumDepth) levels (line \(lineNumber)); pipeline files need three.", line: lineNumber)
                }
                i += 1
            }
            if indentStack.count + compact + flowDepth > maximumDepth {
                return Violation(message: "nests deeper than \(maximumDepth) levels (line \(lineNumber)); pipeline files need three.", line: lineNumber)
            }
        }
        return nil
    }
}

/// Reads a bounded YAML document (see `PipelineFileBounds`) into a `Decodable` type with Yams'
/// `YAMLDecoder`. The node tree is composed first and checked for what the decoder would pass
/// over in silence — a key that is a list or mapping, an alias — so nothing in a file is ignored
/// without a word. Fields are decoded as text (`1000`, `true`, `1.3` as written) by the types
/// that read them; a `DecodingError`'s coding path names the field (`YAMLDocument.field(of:)`).
public enum YAMLDocument {
    public struct Problem: Error, CustomStringConvertible {
        public var description: String
    }

    /// The document's node tree, nil when it is empty.
    public static func compose(_ text: String) throws -> Node? {
        guard let node = try Yams.compose(yaml: text) else { return nil }
        try checkKeys(node)
        return node
    }

    /// `node` decoded as `T`.
    public static func decode<T: Decodable>(_ type: T.Type, from node: Node) throws -> T {
        try YAMLDecoder().decode(type, from: node)
    }

    /// The dotted field a decoding error is about (`parameters.stationName`), nil for the document.
    public static func field(of error: Error) -> String? {
        let path: [CodingKey]
        switch error as? DecodingError {
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?, .keyNotFound(_, let context)?, .dataCorrupted(let context)?:
            path = context.codingPath
        default: return nil
        }
        return path.isEmpty ? nil : path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            .replacingOccurrences(of: ".[", with: "[")
    }

    private static func checkKeys(_ node: Node) throws {
        switch node {
        case .scalar: return
        case .alias: throw Problem(description: "YAML aliases are not allowed.")
        case .sequence(let sequence): for member in sequence { try checkKeys(member) }
        case .mapping(let mapping):
            for (key, member) in mapping {
                guard case .scalar = key else {
                    throw Problem(description: "line \((key.mark?.line).map(String.init) ?? "?"): a key must be a plain name, not a list or mapping.")
                }
                try checkKeys(member)
            }
        }
    }
}

/// One YAML scalar as the text it was written as; a list or mapping is a type mismatch.
struct YAMLText: Decodable, Sendable {
    var text: String
    init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer()
        if value.decodeNil() {
            throw DecodingError.valueNotFound(String.self, .init(codingPath: decoder.codingPath, debugDescription: "an empty value"))
        }
        text = try value.decode(String.self)
    }
}

/// A value or a list of values (`stationName: 종로구` or `stationName: [종로구, 중구]`), as text.
struct YAMLTextList: Decodable, Sendable {
    var values: [String]
    init(from decoder: any Decoder) throws {
        if let list = try? decoder.unkeyedContainer() {
            var list = list
            var values: [String] = []
            while !list.isAtEnd { values.append(try list.decode(YAMLText.self).text) }
            self.values = values
        } else {
            values = [try decoder.singleValueContainer().decode(YAMLText.self).text]
        }
    }
}

/// Any key of a mapping, for reading keys a type does not name.
struct YAMLKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
