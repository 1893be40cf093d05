import FeedCore
import Foundation
import PropertyBased
import Testing

/// `XMLItemReader` reads plain documents with its own scanner and hands everything else to
/// libxml2. These properties hold it to libxml2: on generated documents — well-formed, odd and
/// broken — the default reader delivers exactly what libxml2 alone delivers (the same items,
/// envelope and error), and the scanner really does read the plain ones itself.
@Suite struct XMLScannerDifferentialTests {
    let schema = FieldSchema(["stationName", "pm10Value", "dataTime", "position/title", "position/location", "position/location/code", "kind"])

    /// What a read produced, in a comparable form.
    struct Reading: Equatable, CustomStringConvertible {
        var items: [String] = []
        var outcome = ""
        var parser: XMLParserKind?
        var description: String { "\(outcome)\n" + items.joined(separator: "\n") }
    }

    func read(_ bytes: [UInt8], with parser: XMLParserKind) -> Reading {
        var reading = Reading()
        do {
            let envelope = try XMLItemReader(schema: schema, parser: parser).read(data: Data(bytes)) { item in
                reading.items.append("\(item.position) \(item.values) \(item.notes) \(item.typeMismatches)")
            }
            reading.outcome = "\(envelope.rootElement) \(envelope.itemCount) \(envelope.leaves.sorted { $0.key < $1.key })"
            reading.parser = envelope.parser
        } catch {
            reading.outcome = "error: \(error)"
        }
        return reading
    }

    /// Compares the two readings of `bytes`; returns the parser the default reader ended with.
    @discardableResult
    func compare(_ bytes: [UInt8], _ comment: @autoclosure () -> String = "") -> XMLParserKind? {
        let alone = read(bytes, with: .libxml2)
        let reader = read(bytes, with: .scanner)
        #expect(reader.items == alone.items && reader.outcome == alone.outcome,
                "\(comment())\ndocument: \(String(decoding: bytes, as: UTF8.self).debugDescription)\nlibxml2: \(alone)\nreader: \(reader)")
        return reader.parser
    }

    @Test func theReaderDeliversWhatLibxml2DeliversOnGeneratedDocuments() {
        var scanned = 0, total = 0
        seededPropertyCheck(count: 3000, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            var generator = DocumentGenerator(seed: UInt64(seed))
            let bytes = generator.document()
            total += 1
            if compare(bytes, "seed \(seed)") == .scanner { scanned += 1 }
        }
        // Plenty of generated documents are plain enough for the scanner; the test would prove
        // nothing if every one went to libxml2.
        #expect(scanned * 3 > total, "the scanner read \(scanned) of \(total) documents itself")
    }

    @Test func plainDocumentsAreScannedAndOddOnesHandedOver() {
        let plain = """
            <?xml version="1.0" encoding="UTF-8"?>
            <response><header><resultCode>00</resultCode><resultMsg>NORMAL SERVICE.</resultMsg></header>
            <body><items><item><stationName>중구</stationName><pm10Value>41</pm10Value><dataTime>2026-11-25 14:00</dataTime>\
            <kind>a &amp; b &lt;c&gt; &#65;&#x1F600;&quot;&apos;</kind></item>
            <item><stationName a="1" b='2'>종로구</stationName><pm10Value/><!-- note --></item></items></body></response>
            """
        #expect(compare(Array(plain.utf8)) == .scanner)
        #expect(read(Array(plain.utf8), with: .scanner).items.first?.contains("a & b <c> A😀") == true)
        // Each of these is left to libxml2 (read or refused there), with the same result.
        let handedOver = [
            plain.replacingOccurrences(of: "UTF-8", with: "EUC-KR"),
            plain.replacingOccurrences(of: "<!-- note -->", with: "<![CDATA[x]]>"),
            plain.replacingOccurrences(of: "<!-- note -->", with: "<?pi x?>"),
            plain.replacingOccurrences(of: "a=\"1\"", with: "a=\"x&amp;y\""),
            plain.replacingOccurrences(of: "<header>", with: "<!DOCTYPE x><header>"),
            plain.replacingOccurrences(of: "</kind>", with: "</knid>"),
            plain.replacingOccurrences(of: "&amp;", with: "&nbsp;"),
            plain.replacingOccurrences(of: "41", with: "4]]>1"),
            plain.replacingOccurrences(of: "41", with: "4\u{1}1"),
            plain.replacingOccurrences(of: "<item>", with: "<x:item xmlns:x=\"u\">"),
            String(plain.dropLast(20)),
        ]
        for document in handedOver {
            #expect(compare(Array(document.utf8), document) == .libxml2 || read(Array(document.utf8), with: .scanner).outcome.hasPrefix("error"),
                    "\(document)")
        }
        // Bytes that are not UTF-8, and a character reference to a surrogate.
        #expect(compare(Array(plain.utf8) + [0xFF]) == nil)
        #expect(compare(Array(plain.replacingOccurrences(of: "&#65;", with: "&#xD800;").utf8)) == nil)
        // CR LF and a lone CR read as LF, as XML says.
        let lines = Array("<response><header><resultMsg>a\r\nb\rc</resultMsg></header></response>".utf8)
        #expect(compare(lines) == .scanner)
        #expect(read(lines, with: .scanner).outcome.contains("a\\nb\\nc"))
    }

    @Test func itemsDeliveredBeforeAHandOverAreNotDeliveredTwice() {
        // The scanner reads two items, then meets CDATA and hands over: libxml2 starts again and
        // delivers only the third.
        let document = "<response><items><item><kind>1</kind></item><item><kind>2</kind></item><item><kind><![CDATA[3]]></kind></item></items></response>"
        let reading = read(Array(document.utf8), with: .scanner)
        #expect(reading.parser == .libxml2)
        #expect(reading.items.count == 3 && reading.items == read(Array(document.utf8), with: .libxml2).items)
    }
}

/// Builds random documents from pieces that sit on the scanner's borders: entities, character
/// references, CR, controls, bad UTF-8, CDATA, comments, attributes, namespaces, nesting,
/// mismatched and truncated tags.
struct DocumentGenerator {
    var state: UInt64
    /// Half the documents are plain (what feeds send); the other half may hold any hazard.
    var hazards = false

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    mutating func next() -> UInt64 {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return state
    }

    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    /// A hazard's chance: none in a plain document.
    mutating func risk(_ percent: Int) -> Bool { hazards && chance(percent) }
    mutating func pick<T>(_ options: [T]) -> T { options[below(options.count)] }

    /// Texts, mostly harmless, sometimes on an edge.
    mutating func text() -> [UInt8] {
        let plain = ["41", "중구", " 12.5 ", "2026-11-25 14:00", "-", "", "a b", "\n  ", "\t", "NORMAL SERVICE."]
        let odd = ["&amp;", "&lt;x&gt;", "&quot;&apos;", "&#65;", "&#x1F600;", "&#0;", "&#xD800;", "&#xFFFE;", "&#X41;", "&bogus;",
                   "&#1114112;", "&#x10FFFF;", "&", "a&b", "\r\n", "\r", "]]>", "]]", "]", ">", "\u{1}", "\u{7F}", "\u{85}",
                   "<![CDATA[c<d]]>", "<!-- c -->", "<!-- a -- b -->", "<?pi x?>", "\u{FEFF}", "\u{10FFFF}"]
        var out: [UInt8] = []
        for _ in 0..<below(3) + 1 {
            if !risk(20) { out += Array(pick(plain).utf8) } else { out += Array(pick(odd).utf8) }
        }
        if risk(3) { out += pick([[0xFF], [0xC0, 0x80], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBE], [0xF4, 0x90, 0x80, 0x80]]) }
        return out
    }

    mutating func attributes() -> String {
        guard chance(20) else { return "" }
        if !risk(50) { return pick([" code=\"1\"", " code='2' kind=\"x\"", " code=\"서울 > 강남구\"", " code = \"3\""]) }
        return pick([" code=\"1\"", " code='2' kind=\"x\"", " code=\"a&amp;b\"", " code=\"a\tb\"", " code=\"<\"", " code=\"1\" code=\"2\"",
                     " xmlns:x=\"u\"", " x:code=\"1\"", " code = \"3\"", " code=\"4\"kind=\"5\"", " code=4", " code=\"서울\""])
    }

    mutating func name() -> String {
        !risk(5) ? pick(["stationName", "pm10Value", "dataTime", "kind", "position", "other", "title"]) : pick(["x:kind", "한글", "_a.b-c", "a1"])
    }

    mutating func element(depth: Int) -> [UInt8] {
        let tag = name()
        if chance(5) { return Array("<\(tag)\(attributes())/>".utf8) }
        var out = Array("<\(tag)\(attributes())>".utf8)
        if depth < 3 && chance(15) {
            for _ in 0..<below(3) + 1 { out += element(depth: depth + 1) }
        } else {
            out += text()
        }
        let close = risk(2) ? pick(["other", "\(tag) ", "\(tag)x"]) : tag
        out += Array("</\(close)>".utf8)
        return out
    }

    mutating func document() -> [UInt8] {
        hazards = chance(50)
        var out: [UInt8] = []
        if chance(70) {
            let plainDeclarations = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<?xml version='1.0'?>", "<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"yes\"?>"]
            out += Array((!hazards ? pick(plainDeclarations) : pick(["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<?xml version='1.0'?>", "<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"yes\"?>",
                               "<?xml version=\"1.0\" encoding=\"EUC-KR\"?>", "<?xml version=\"1.1\"?>", "<?xml encoding=\"UTF-8\"?>", " <?xml version=\"1.0\"?>",
                               "\u{FEFF}<?xml version=\"1.0\"?>", "<?xml version=\"1.0\"?>", "<?xml  version = \"1.0\"  ?>"])).utf8) + [0x0A]
        }
        if risk(10) { out += Array(pick(["<!-- prolog -->", "<!-- a -- b -->", "<!DOCTYPE response>", "<?pi?>"]).utf8) }
        out += Array("<response\(attributes())><header><resultCode>00</resultCode><resultMsg>".utf8) + text() + Array("</resultMsg></header><body><items>\n".utf8)
        for _ in 0..<below(5) {
            out += Array("<item\(attributes())>".utf8)
            for _ in 0..<below(6) { out += element(depth: 0) }
            if risk(5) { out += text() }
            out += Array("</item>\n".utf8)
        }
        out += Array("</items><totalCount>3</totalCount></body></response>".utf8)
        if risk(10) { out += Array(pick(["\n", "<!-- epilog -->", "x", "<extra/>", "  \n"]).utf8) }
        if risk(5) { out = Array(out.prefix(below(out.count + 1))) }
        if risk(3), !out.isEmpty { out[below(out.count)] = UInt8(below(256)) }
        return out
    }
}
