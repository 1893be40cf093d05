import Foundation

/// The second half of `SecretScrubber`: finds a secret in what a reader will *decode* from a
/// body, not only in its bytes, and removes the source bytes it was decoded from.
///
/// A server can spell every character of a key so that no byte form of it appears: XML numeric
/// character references in any case and with any number of leading zeros (`&#x2b;`, `&#0043;`,
/// `&#107;` for a letter), the predefined entities, the key split by a CDATA section or a
/// comment (`ab<![CDATA[cd]]>ef`, `ab<!-- -->cd`), or JSON escapes (`\u004B`, any case,
/// surrogate pairs). The body is decoded the way the readers decode it, remembering which
/// source bytes each decoded byte came from; every decoded occurrence of the key's forms is
/// mapped back to its source span and that span becomes `REDACTED`.
///
/// Escaped forms that no reader decodes are found too, so they reach neither the archive nor a
/// value stored as written: character references inside a CDATA section, each comment's text
/// (decoded on its own after the document: a comment is left out where it stands, so a key
/// split by one is found as well), and `%XX` escapes in any case, letters and digits escaped
/// too, up to three layers deep (`%252B`, or a `%` spelled `&#37;` before `2B`): the decoded
/// text is percent-decoded again while it holds an escape, and every layer is searched.
///
/// Structure survives: markup (`<` of a tag, an unescaped JSON `"`) decodes to a byte no form
/// holds, so an occurrence never spans two values; an escape is replaced whole; a CDATA marker
/// inside a replaced span is written again after `REDACTED`, so the document stays well-formed.
struct DecodedSecretScan {
    /// How a body is decoded.
    enum Syntax { case xml, json }

    /// Where a run of decoded bytes came from, in the text one layer down (the body, for the
    /// first layer).
    struct Piece {
        enum Kind { case verbatim, escape, removed, cdataMarker }
        var decodedStart: Int
        var decodedCount: Int
        var sourceStart: Int
        var sourceEnd: Int
        var kind: Kind
    }

    /// Decoded text and where each of its bytes came from.
    struct Layer {
        var decoded: [UInt8] = []
        var pieces: [Piece] = []

        mutating func verbatim(_ source: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
            guard end > start else { return }
            if let last = pieces.last, last.kind == .verbatim, last.sourceEnd == start {
                pieces[pieces.count - 1].sourceEnd = end
                pieces[pieces.count - 1].decodedCount += end - start
            } else {
                pieces.append(Piece(decodedStart: decoded.count, decodedCount: end - start, sourceStart: start, sourceEnd: end, kind: .verbatim))
            }
            decoded.append(contentsOf: UnsafeBufferPointer(rebasing: source[start..<end]))
        }

        mutating func construct(_ bytes: [UInt8], _ start: Int, _ end: Int, _ kind: Piece.Kind) {
            pieces.append(Piece(decodedStart: decoded.count, decodedCount: bytes.count, sourceStart: start, sourceEnd: end, kind: kind))
            decoded.append(contentsOf: bytes)
        }

        /// The index of the piece holding decoded byte `d` (pieces that decode to nothing hold none).
        private func piece(holding d: Int) -> Int {
            var low = 0, high = pieces.count - 1
            while low < high {
                let mid = (low + high + 1) / 2
                if pieces[mid].decodedStart <= d { low = mid } else { high = mid - 1 }
            }
            // Several pieces may start at `d`: the last of them decodes to something.
            while pieces[low].decodedCount == 0 || d >= pieces[low].decodedStart + pieces[low].decodedCount { low -= 1 }
            return low
        }

        /// The span `[start, end)` one layer down that a decoded range came from: an escape is
        /// taken whole, and whatever lies between (a comment, a CDATA marker) is inside.
        func sourceSpan(ofDecoded range: Range<Int>) -> Range<Int> {
            let first = pieces[piece(holding: range.lowerBound)], last = pieces[piece(holding: range.upperBound - 1)]
            let start = first.kind == .verbatim ? first.sourceStart + (range.lowerBound - first.decodedStart) : first.sourceStart
            let end = last.kind == .verbatim ? last.sourceStart + (range.upperBound - last.decodedStart) : last.sourceEnd
            return start..<end
        }
    }

    /// A byte that no form of a secret holds (not UTF-8): what markup decodes to.
    static let boundary: UInt8 = 0xFF
    /// Percent-decoding layers above the first, at most.
    static let percentLayers = 3

    /// The body as a reader decodes it; then the same text percent-decoded, layer by layer.
    var layers: [Layer]

    /// Decodes `source` as `syntax`.
    init(_ source: UnsafeBufferPointer<UInt8>, syntax: Syntax) {
        var first = Layer()
        first.decoded.reserveCapacity(source.count)
        switch syntax {
        case .xml: Self.decodeXML(source, into: &first)
        case .json: Self.decodeJSON(source, into: &first)
        }
        layers = [first]
        while layers.count <= Self.percentLayers, let next = Self.percentDecoded(layers[layers.count - 1].decoded) {
            layers.append(next)
        }
    }

    // MARK: - Decoding

    private static func starts(_ source: UnsafeBufferPointer<UInt8>, at i: Int, with prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard i + count <= source.count else { return false }
        return prefix.withUTF8Buffer { p in (0..<count).allSatisfy { source[i + $0] == p[$0] } }
    }

    private static func find(_ needle: StaticString, in source: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        needle.withUTF8Buffer { SecretScrubber.find(Array($0), in: source, from: from) }
    }

    /// `source[start..<end]` with character references decoded (CDATA and comment text).
    private static func decodeReferences(_ source: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, into text: inout Layer) {
        var run = start, i = start
        while i < end {
            if source[i] == UInt8(ascii: "&"), let (scalar, after) = reference(source, at: i), after <= end {
                text.verbatim(source, run, i)
                text.construct(Array(String(Character(scalar)).utf8), i, after, .escape)
                i = after; run = i
            } else {
                i += 1
            }
        }
        text.verbatim(source, run, end)
    }

    private static func decodeXML(_ source: UnsafeBufferPointer<UInt8>, into text: inout Layer) {
        let n = source.count
        var run = 0, i = 0
        var comments: [Range<Int>] = []
        while i < n {
            let byte = source[i]
            if byte == UInt8(ascii: "&"), let (scalar, end) = reference(source, at: i) {
                text.verbatim(source, run, i)
                text.construct(Array(String(Character(scalar)).utf8), i, end, .escape)
                i = end; run = i
            } else if byte == UInt8(ascii: "<") {
                text.verbatim(source, run, i)
                if starts(source, at: i, with: "<!--") {
                    let close = find("-->", in: source, from: i + 4)
                    let end = close.map { $0 + 3 } ?? n
                    text.construct([], i, end, .removed)
                    comments.append((i + 4)..<(close ?? n))
                    i = end
                } else if starts(source, at: i, with: "<![CDATA[") {
                    text.construct([], i, i + 9, .cdataMarker)
                    guard let close = find("]]>", in: source, from: i + 9) else {
                        decodeReferences(source, i + 9, n, into: &text)
                        i = n; run = n
                        continue
                    }
                    decodeReferences(source, i + 9, close, into: &text)
                    text.construct([], close, close + 3, .cdataMarker)
                    i = close + 3
                } else {
                    text.construct([boundary], i, i + 1, .escape)
                    i += 1
                }
                run = i
            } else {
                i += 1
            }
        }
        text.verbatim(source, run, n)
        for comment in comments {
            text.construct([boundary], comment.lowerBound, comment.lowerBound, .escape)
            decodeReferences(source, comment.lowerBound, comment.upperBound, into: &text)
        }
    }

    /// `&name;` (the five predefined entities) or `&#N;` / `&#xH;` (any case, any number of
    /// leading zeros) at `i`: the character and the index after the `;`.
    static func reference(_ source: UnsafeBufferPointer<UInt8>, at i: Int) -> (Unicode.Scalar, Int)? {
        let limit = min(source.count, i + 64)
        var j = i + 1
        while j < limit, source[j] != UInt8(ascii: ";") { j += 1 }
        guard j < limit else { return nil }
        let body = UnsafeBufferPointer(rebasing: source[(i + 1)..<j])
        switch body.count {
        case 2 where body.elementsEqual("lt".utf8): return ("<", j + 1)
        case 2 where body.elementsEqual("gt".utf8): return (">", j + 1)
        case 3 where body.elementsEqual("amp".utf8): return ("&", j + 1)
        case 4 where body.elementsEqual("quot".utf8): return ("\"", j + 1)
        case 4 where body.elementsEqual("apos".utf8): return ("'", j + 1)
        default: break
        }
        guard body.count >= 2, body[0] == UInt8(ascii: "#") else { return nil }
        let hex = body[1] == UInt8(ascii: "x") || body[1] == UInt8(ascii: "X")
        let digits = body.dropFirst(hex ? 2 : 1)
        guard !digits.isEmpty else { return nil }
        var value: UInt32 = 0
        for digit in digits {
            guard let d = hexValue(digit), hex || d < 10 else { return nil }
            value = value * (hex ? 16 : 10) + d
            guard value <= 0x10FFFF else { return nil }
        }
        return Unicode.Scalar(value).map { ($0, j + 1) }
    }

    static func hexValue(_ b: UInt8) -> UInt32? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(b - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(b - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    private static func decodeJSON(_ source: UnsafeBufferPointer<UInt8>, into text: inout Layer) {
        let n = source.count
        var run = 0, i = 0
        while i < n {
            let byte = source[i]
            if byte == UInt8(ascii: "\"") {
                text.verbatim(source, run, i)
                text.construct([boundary], i, i + 1, .escape)
                i += 1; run = i
            } else if byte == UInt8(ascii: "\\"), i + 1 < n {
                let simple: UInt8?
                switch source[i + 1] {
                case UInt8(ascii: "\""): simple = UInt8(ascii: "\"")
                case UInt8(ascii: "\\"): simple = UInt8(ascii: "\\")
                case UInt8(ascii: "/"): simple = UInt8(ascii: "/")
                case UInt8(ascii: "b"): simple = 0x08
                case UInt8(ascii: "f"): simple = 0x0C
                case UInt8(ascii: "n"): simple = 0x0A
                case UInt8(ascii: "r"): simple = 0x0D
                case UInt8(ascii: "t"): simple = 0x09
                default: simple = nil
                }
                if let simple {
                    text.verbatim(source, run, i)
                    text.construct([simple], i, i + 2, .escape)
                    i += 2; run = i
                } else if source[i + 1] == UInt8(ascii: "u"), let unit = hex4(source, at: i + 2) {
                    text.verbatim(source, run, i)
                    var end = i + 6
                    var scalar: Unicode.Scalar
                    if (0xD800...0xDBFF).contains(unit), end + 6 <= n, source[end] == UInt8(ascii: "\\"), source[end + 1] == UInt8(ascii: "u"),
                       let low = hex4(source, at: end + 2), (0xDC00...0xDFFF).contains(low) {
                        scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
                        end += 6
                    } else {
                        scalar = Unicode.Scalar(unit) ?? "\u{FFFD}"  // a lone surrogate, as the reader replaces it
                    }
                    // `\u0000` is dropped by the reader.
                    text.construct(unit == 0 ? [] : Array(String(Character(scalar)).utf8), i, end, unit == 0 ? .removed : .escape)
                    i = end; run = i
                } else {
                    i += 1
                }
            } else {
                i += 1
            }
        }
        text.verbatim(source, run, n)
    }

    static func hex4(_ source: UnsafeBufferPointer<UInt8>, at i: Int) -> UInt32? {
        guard i + 4 <= source.count else { return nil }
        var value: UInt32 = 0
        for k in i..<(i + 4) {
            guard let d = hexValue(source[k]) else { return nil }
            value = value * 16 + d
        }
        return value
    }

    /// `text` with its `%XX` escapes (any case) decoded; nil when it holds none.
    static func percentDecoded(_ text: [UInt8]) -> Layer? {
        text.withUnsafeBufferPointer { source -> Layer? in
            guard SecretScrubber.find(Array("%".utf8), in: source, from: 0) != nil else { return nil }
            var layer = Layer()
            var run = 0, i = 0, found = false
            let n = source.count
            while i < n {
                if source[i] == UInt8(ascii: "%"), i + 2 < n, let high = hexValue(source[i + 1]), let low = hexValue(source[i + 2]) {
                    layer.verbatim(source, run, i)
                    layer.construct([UInt8(high * 16 + low)], i, i + 3, .escape)
                    found = true
                    i += 3; run = i
                } else {
                    i += 1
                }
            }
            layer.verbatim(source, run, n)
            return found ? layer : nil
        }
    }

    // MARK: - Mapping back

    /// The body span that decoded range `range` of layer `index` came from.
    func sourceSpan(ofDecoded range: Range<Int>, layer index: Int) -> Range<Int> {
        var span = range
        for level in stride(from: index, through: 0, by: -1) { span = layers[level].sourceSpan(ofDecoded: span) }
        return span
    }

    /// The CDATA markers (`<![CDATA[`, `]]>`) whose source lies inside `span`, in order.
    func cdataMarkers(in span: Range<Int>) -> [Range<Int>] {
        layers[0].pieces.lazy.filter { $0.kind == .cdataMarker && $0.sourceStart >= span.lowerBound && $0.sourceEnd <= span.upperBound }
            .map { $0.sourceStart..<$0.sourceEnd }
    }

    /// Every body span whose decoded text, in any layer, is one of `forms` (overlapping spans
    /// merged), in order.
    func spans(of forms: [[UInt8]]) -> [Range<Int>] {
        var found: [Range<Int>] = []
        for (index, layer) in layers.enumerated() {
            layer.decoded.withUnsafeBufferPointer { text in
                for form in forms {
                    var from = 0
                    while let hit = SecretScrubber.find(form, in: text, from: from) {
                        found.append(sourceSpan(ofDecoded: hit..<(hit + form.count), layer: index))
                        from = hit + 1
                    }
                }
            }
        }
        found.sort { $0.lowerBound < $1.lowerBound }
        var merged: [Range<Int>] = []
        for span in found {
            if let last = merged.last, span.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, span.upperBound)
            } else {
                merged.append(span)
            }
        }
        return merged
    }

    /// `source` with each of `spans` replaced by `replacement` followed by the CDATA markers the
    /// span held (so a section opened or closed inside it stays balanced).
    func replacing(_ spans: [Range<Int>], in source: UnsafeBufferPointer<UInt8>, with replacement: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(source.count)
        var at = 0
        for span in spans {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: source[at..<span.lowerBound]))
            out.append(contentsOf: replacement)
            for marker in cdataMarkers(in: span) { out.append(contentsOf: UnsafeBufferPointer(rebasing: source[marker])) }
            at = span.upperBound
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: source[at...]))
        return out
    }
}
