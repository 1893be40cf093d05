import Foundation

/// A byte scanner for the plain XML that feeds answer with — UTF-8, elements, attributes, text,
/// the five predefined entities, character references and comments — that reports the same
/// events libxml2's SAX2 parser would, at a fraction of its cost.
///
/// It never decides that a document is bad. At anything outside that subset, and at anything
/// that might not be well-formed (a DOCTYPE, CDATA, a processing instruction, a namespace, an
/// encoding other than UTF-8, an `&` or a line break in an attribute value, a bad byte, a tag
/// that does not match, a document that ends early), it stops and says how far it got; the
/// reader then lets libxml2 parse the document from the start, skipping the items already
/// delivered (`XMLItemReader`). So every document libxml2 refuses is still refused with
/// libxml2's words, and the scanner only ever finishes documents libxml2 reads the same way
/// (checked against libxml2 on generated documents by `XMLScannerDifferentialTests`).
struct XMLScanner {
    /// Documents larger than this go to libxml2, which refuses a text node over 10,000,000 bytes
    /// (the scanner, reading only documents below that size, cannot meet one).
    static let maximumDocument = 9_000_000
    /// libxml2 refuses documents nested deeper than 256 levels with its own message; the scanner
    /// leaves such documents to it.
    static let maximumDepth = 200
    /// libxml2 refuses names longer than 50,000 bytes; the scanner leaves long names to it.
    static let maximumName = 1_000

    enum Outcome: Equatable {
        /// The document was read to its end, or the state stopped the parse (its `failure` says why).
        case finished
        /// The scanner met something it leaves to libxml2.
        case handOver
    }

    /// Bytes that end a run of plain text: `<`, `&`, `]` (a possible `]]>`), CR (line ends are
    /// normalised), control characters XML does not allow, and every non-ASCII byte (checked as
    /// UTF-8 one character at a time).
    private static let textStops: [Bool] = (0..<256).map { byte in
        byte < 0x20 && byte != 0x09 && byte != 0x0A || byte == 0x0D || byte == 0x26 || byte == 0x3C || byte == 0x5D || byte >= 0x80
    }

    private let p: UnsafePointer<UInt8>
    private let n: Int
    private var i = 0
    private var open: [(start: Int, count: Int)] = []

    private init(_ document: UnsafeBufferPointer<UInt8>) {
        p = document.baseAddress ?? UnsafePointer(bitPattern: 1)!
        n = document.count
        open.reserveCapacity(8)
    }

    /// Scans `document` into `state`.
    static func scan(_ document: UnsafeBufferPointer<UInt8>, into state: UnsafeMutablePointer<SAXState>) -> Outcome {
        guard document.count > 0, document.count <= maximumDocument else { return .handOver }
        var scanner = XMLScanner(document)
        return scanner.run(state)
    }

    // MARK: - Document structure

    private mutating func run(_ state: UnsafeMutablePointer<SAXState>) -> Outcome {
        if startsWith("<?xml") {
            guard declaration() else { return .handOver }
        }
        // Prolog: whitespace and comments before the root element.
        guard misc() else { return .handOver }
        guard i < n, p[i] == UInt8(ascii: "<") else { return .handOver }
        guard startTag(state) else { return .handOver }
        if state.pointee.stopped { return .finished }

        while !open.isEmpty {
            guard i < n else { return .handOver }  // ends inside the root: libxml2 says how
            if p[i] == UInt8(ascii: "<") {
                guard i + 1 < n else { return .handOver }
                switch p[i + 1] {
                case UInt8(ascii: "/"): guard endTag(state) else { return .handOver }
                case UInt8(ascii: "!"): guard startsWith("<!--"), comment() else { return .handOver }
                case UInt8(ascii: "?"): return .handOver
                default: guard startTag(state) else { return .handOver }
                }
                if state.pointee.stopped { return .finished }
            } else {
                guard text(state) else { return .handOver }
                if state.pointee.stopped { return .finished }
            }
        }
        // Epilog: only whitespace and comments may follow the root element.
        guard misc(), i == n else { return .handOver }
        return .finished
    }

    /// `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` at the very start, encoding and
    /// standalone optional. Any other declaration goes to libxml2.
    private mutating func declaration() -> Bool {
        i = 5
        var pseudoAttributes: [(label: String, value: String)] = []
        while true {
            let hadSpace = skipSpace()
            if startsWith("?>") { i += 2; break }
            guard hadSpace, let name = name(), let quote = valueOpening() else { return false }
            let start = i
            while i < n, p[i] != quote {
                guard p[i] >= 0x20, p[i] < 0x80 else { return false }
                i += 1
            }
            guard i < n else { return false }
            pseudoAttributes.append((Self.ascii(p + name.start, name.count), Self.ascii(p + start, i - start)))
            i += 1
        }
        var rest = pseudoAttributes[...]
        guard rest.popFirst().map({ $0 == ("version", "1.0") }) == true else { return false }
        if rest.first?.label == "encoding" {
            guard rest.popFirst()!.value.lowercased() == "utf-8" else { return false }
        }
        if rest.first?.label == "standalone" {
            guard ["yes", "no"].contains(rest.popFirst()!.value) else { return false }
        }
        return rest.isEmpty
    }

    private static func ascii(_ start: UnsafePointer<UInt8>, _ count: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    }

    /// Whitespace and comments (outside the root element).
    private mutating func misc() -> Bool {
        while true {
            skipSpace()
            guard startsWith("<!--") else { return true }
            guard comment() else { return false }
        }
    }

    /// `<!-- … -->`: its text must be characters XML allows and hold no `--`.
    private mutating func comment() -> Bool {
        i += 4
        while i < n {
            let byte = p[i]
            if byte == UInt8(ascii: "-") {
                guard i + 1 < n else { return false }
                if p[i + 1] == UInt8(ascii: "-") {
                    guard i + 2 < n, p[i + 2] == UInt8(ascii: ">") else { return false }
                    i += 3
                    return true
                }
                i += 1
            } else if byte >= 0x80 {
                guard let length = Self.characterLength(p, i, n) else { return false }
                i += length
            } else {
                guard byte >= 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D else { return false }
                i += 1
            }
        }
        return false
    }

    /// `<name attr="value" …>` or `<name …/>`, at `i` (on the `<`).
    private mutating func startTag(_ state: UnsafeMutablePointer<SAXState>) -> Bool {
        i += 1
        guard let element = name(), open.count < Self.maximumDepth else { return false }
        var attributes: [XMLAttribute] = []
        var empty = false
        while true {
            let hadSpace = skipSpace()
            guard i < n else { return false }
            if p[i] == UInt8(ascii: ">") { i += 1; break }
            if p[i] == UInt8(ascii: "/") {
                guard i + 1 < n, p[i + 1] == UInt8(ascii: ">") else { return false }
                i += 2
                empty = true
                break
            }
            guard hadSpace, let attribute = attribute() else { return false }
            attributes.append(attribute)
        }
        if attributes.count > 1 {
            for a in 1..<attributes.count {
                for b in 0..<a where attributes[a].name.elementsEqual(attributes[b].name) { return false }
            }
        }
        let name = UnsafeBufferPointer(start: p + element.start, count: element.count)
        attributes.withUnsafeBufferPointer { state.pointee.start(name, attributes: $0) }
        if empty {
            if !state.pointee.stopped { state.pointee.end() }
        } else {
            open.append(element)
        }
        return true
    }

    /// `name="value"` (or single quotes). Values holding `&`, a tab or a line break (which XML
    /// rewrites) go to libxml2, as do namespace declarations.
    private mutating func attribute() -> XMLAttribute? {
        guard let name = name() else { return nil }
        let label = UnsafeBufferPointer(start: p + name.start, count: name.count)
        guard !label.starts(with: "xmlns".utf8), let quote = valueOpening() else { return nil }
        let start = i
        while i < n, p[i] != quote {
            let byte = p[i]
            if byte >= 0x80 {
                guard let length = Self.characterLength(p, i, n) else { return nil }
                i += length
            } else {
                guard byte >= 0x20, byte != UInt8(ascii: "<"), byte != UInt8(ascii: "&") else { return nil }
                i += 1
            }
        }
        guard i < n else { return nil }
        let value = UnsafeBufferPointer(start: p + start, count: i - start)
        i += 1
        return XMLAttribute(name: label, value: value)
    }

    /// `= "` (or `= '`, whitespace allowed around the `=`) after an attribute's name: moves past
    /// the opening quote and returns it.
    private mutating func valueOpening() -> UInt8? {
        skipSpace()
        guard i < n, p[i] == UInt8(ascii: "=") else { return nil }
        i += 1
        skipSpace()
        guard i < n, p[i] == UInt8(ascii: "\"") || p[i] == UInt8(ascii: "'") else { return nil }
        i += 1
        return p[i - 1]
    }

    /// `</name>` (whitespace allowed before the `>`), closing the innermost open element.
    private mutating func endTag(_ state: UnsafeMutablePointer<SAXState>) -> Bool {
        i += 2
        guard let element = name(), let innermost = open.last, element.count == innermost.count,
              memcmp(p + element.start, p + innermost.start, element.count) == 0 else { return false }
        skipSpace()
        guard i < n, p[i] == UInt8(ascii: ">") else { return false }
        i += 1
        open.removeLast()
        state.pointee.end()
        return true
    }

    // MARK: - Text

    /// Text up to the next tag: plain runs are handed over in place; entities and character
    /// references as the characters they stand for; CR LF and a lone CR as LF.
    private mutating func text(_ state: UnsafeMutablePointer<SAXState>) -> Bool {
        var run = i
        while i < n {
            let byte = p[i]
            if !Self.textStops[Int(byte)] { i += 1; continue }
            switch byte {
            case UInt8(ascii: "<"):
                flush(from: run, state)
                return true
            case 0x80...:
                guard let length = Self.characterLength(p, i, n) else { return false }
                i += length
            case UInt8(ascii: "]"):
                if i + 2 < n, p[i + 1] == UInt8(ascii: "]"), p[i + 2] == UInt8(ascii: ">") { return false }
                guard i + 2 < n else { return false }  // a `]]>` cut by the end: libxml2 decides
                i += 1
            case 0x0D:
                flush(from: run, state)
                var lineFeed: UInt8 = 0x0A
                state.pointee.text(&lineFeed, 1)
                i += (i + 1 < n && p[i + 1] == 0x0A) ? 2 : 1
                run = i
            case UInt8(ascii: "&"):
                flush(from: run, state)
                guard reference(state) else { return false }
                run = i
            default:
                return false  // a control character XML does not allow
            }
            if state.pointee.stopped { return true }
        }
        return false  // the document ends in text, inside an element
    }

    private func flush(from run: Int, _ state: UnsafeMutablePointer<SAXState>) {
        if i > run { state.pointee.text(p + run, i - run) }
    }

    /// `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` `&#N;` `&#xH;`, at `i` (on the `&`).
    private mutating func reference(_ state: UnsafeMutablePointer<SAXState>) -> Bool {
        let start = i + 1
        guard let semicolon = (start..<min(n, start + 12)).first(where: { p[$0] == UInt8(ascii: ";") }) else { return false }
        let body = UnsafeBufferPointer(start: p + start, count: semicolon - start)
        var scalar: UInt32
        switch body.count {
        case 2 where body.elementsEqual("lt".utf8): scalar = 0x3C
        case 2 where body.elementsEqual("gt".utf8): scalar = 0x3E
        case 3 where body.elementsEqual("amp".utf8): scalar = 0x26
        case 4 where body.elementsEqual("quot".utf8): scalar = 0x22
        case 4 where body.elementsEqual("apos".utf8): scalar = 0x27
        default:
            guard body.count >= 2, body[0] == UInt8(ascii: "#") else { return false }
            let hex = body[1] == UInt8(ascii: "x")
            let digits = body.dropFirst(hex ? 2 : 1)
            guard !digits.isEmpty, digits.count <= 7 else { return false }
            scalar = 0
            for digit in digits {
                let value: UInt32
                switch digit {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(digit - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: value = UInt32(digit - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: value = UInt32(digit - UInt8(ascii: "A") + 10)
                default: return false
                }
                scalar = scalar * (hex ? 16 : 10) + value
            }
            guard Self.isXMLCharacter(scalar) else { return false }
        }
        var bytes: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        let count = withUnsafeMutableBytes(of: &bytes) { out -> Int in
            var k = 0
            for unit in Unicode.Scalar(scalar)!.utf8 { out[k] = unit; k += 1 }
            return k
        }
        withUnsafeBytes(of: &bytes) { state.pointee.text($0.baseAddress!.assumingMemoryBound(to: UInt8.self), count) }
        i = semicolon + 1
        return true
    }

    // MARK: - Bytes

    private func startsWith(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        return i + count <= n && memcmp(p + i, literal.utf8Start, count) == 0
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = i
        while i < n, p[i] == 0x20 || p[i] == 0x0A || p[i] == 0x09 || p[i] == 0x0D { i += 1 }
        return i > start
    }

    /// An ASCII name without a colon (`[A-Za-z_][A-Za-z0-9._-]*`) followed by something that
    /// may follow a name; nil for anything else (non-ASCII and prefixed names go to libxml2).
    private mutating func name() -> (start: Int, count: Int)? {
        let start = i
        guard i < n, Self.isNameStart(p[i]) else { return nil }
        i += 1
        while i < n, Self.isNameStart(p[i]) || p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: ".") || (p[i] >= 0x30 && p[i] <= 0x39) { i += 1 }
        guard i < n, i - start <= Self.maximumName else { return nil }
        switch p[i] {
        case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/"), UInt8(ascii: "="): return (start, i - start)
        default: return nil
        }
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || byte == UInt8(ascii: "_")
    }

    /// XML's `Char`: tab, LF, CR, and U+0020 … U+10FFFF without surrogates, U+FFFE and U+FFFF.
    static func isXMLCharacter(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x09, 0x0A, 0x0D, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    /// The length of the well-formed UTF-8 sequence at `i` (whose first byte is ≥ 0x80) when it
    /// encodes a character XML allows; nil otherwise.
    static func characterLength(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> Int? {
        let b0 = p[i]
        func continuation(_ k: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            i + k < n && p[i + k] >= low && p[i + k] <= high
        }
        switch b0 {
        case 0xC2...0xDF:
            return continuation(1) ? 2 : nil
        case 0xE0...0xEF:
            let (low, high): (UInt8, UInt8) = b0 == 0xE0 ? (0xA0, 0xBF) : b0 == 0xED ? (0x80, 0x9F) : (0x80, 0xBF)
            guard continuation(1, low, high), continuation(2) else { return nil }
            // U+FFFE and U+FFFF are not characters: EF BF BE, EF BF BF.
            if b0 == 0xEF && p[i + 1] == 0xBF && p[i + 2] >= 0xBE { return nil }
            return 3
        case 0xF0...0xF4:
            let (low, high): (UInt8, UInt8) = b0 == 0xF0 ? (0x90, 0xBF) : b0 == 0xF4 ? (0x80, 0x8F) : (0x80, 0xBF)
            return continuation(1, low, high) && continuation(2) && continuation(3) ? 4 : nil
        default:
            return nil
        }
    }
}

/// An attribute as the SAX state receives it: its local name and its value's bytes.
struct XMLAttribute {
    var name: UnsafeBufferPointer<UInt8>
    var value: UnsafeBufferPointer<UInt8>
}
