import App
import FeedCore
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import GRDB
import Pipeline
import PropertyBased
import Testing
import TestSupport

/// A key a server echoes so that no byte form of it appears, but every reader decodes it back:
/// XML character references for every character (any case, leading zeros), the key split by a
/// CDATA section or a comment, JSON `\uXXXX` escapes for every character. The scrub removes
/// what a reader would decode, so the key reaches neither the database, the archive, the
/// output, `run.error` nor `status`, and the document stays well-formed.
@Suite(.serialized) struct SecretDecodingTests {
    /// Letters, digits and characters that every escaping changes.
    static let key = "Zq7SECRETk3y+/="
    /// What must never come out of a run: the key's longest run of letters, as decoded.
    static let marker = "SECRETk3y"

    // MARK: - Hostile spellings, written by the test (not by the code under test)

    static func decimalReferences(_ text: String, zeros: Int) -> String {
        text.unicodeScalars.map { "&#" + String(repeating: "0", count: zeros) + "\($0.value);" }.joined()
    }

    static func hexReferences(_ text: String, upper: Bool) -> String {
        text.unicodeScalars.map { "&#x" + String($0.value, radix: 16, uppercase: upper) + ";" }.joined()
    }

    static func jsonEscapes(_ text: String, upper: Bool) -> String {
        text.unicodeScalars.map { scalar in
            let hex = String(scalar.value, radix: 16, uppercase: upper)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }.joined()
    }

    /// The key as sent on the wire (percent-encoded once) and as decoded.
    static let spellings = [key, FeedRequest.percentEncode(key)]

    static var xmlForms: [String] {
        spellings.flatMap { text in [
            decimalReferences(text, zeros: 0),
            decimalReferences(text, zeros: 3),
            hexReferences(text, upper: false),
            hexReferences(text, upper: true),
            "Zq7SEC<![CDATA[RETk]]>3y&#43;&#x2f;&#0061;",
            "Zq7SECR<!-- split -->ETk3y+/=",
            "Zq7<![CDATA[SECRETk3y+/=]]>",
            "Zq7S<!---->ECR<![CDATA[ETk3]]>y&#x2B;<!-- x -->/&#00061;",
        ] }
    }

    static var jsonForms: [String] {
        spellings.flatMap { [jsonEscapes($0, upper: false), jsonEscapes($0, upper: true)] } + [
            "Zq7SECRET\\u006B3y+\\/=",
            "\\u005Aq7SECRETk3y\\u002b\\/\\u003d",
        ]
    }

    // MARK: - The scrub itself

    /// Text and attribute values of an XML document (nil when it is not well-formed).
    static func xmlText(_ data: Data) -> String? {
        final class Collector: NSObject, XMLParserDelegate {
            var text = ""
            func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
            func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) { text += String(decoding: CDATABlock, as: UTF8.self) }
            func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
                        attributes attributeDict: [String: String] = [:]) {
                text += attributeDict.values.joined(separator: " ")
            }
        }
        let parser = XMLParser(data: data)
        let collector = Collector()
        parser.delegate = collector
        return parser.parse() ? collector.text : nil
    }

    @Test("XML: character references in any case and with leading zeros, CDATA and comment splits are removed; the document stays well-formed",
          arguments: xmlForms)
    func xmlFormsAreRemoved(_ form: String) throws {
        let scrubber = SecretScrubber(secret: Self.key)
        let body = Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?><r><a>before \(form) after</a><b v=\"x \(form.contains("<") ? "" : form) y\">z</b></r>".utf8)
        let before = try #require(Self.xmlText(body), "the test document must be well-formed")
        #expect(before.contains(Self.marker), "the form must decode to the key: \(before)")
        let clean = scrubber.scrub(body)
        let text = try #require(Self.xmlText(clean), "not well-formed after the scrub: \(String(decoding: clean, as: UTF8.self))")
        #expect(!text.contains(Self.marker), "\(text)")
        #expect(text.contains("before REDACTED"), "\(text)")
        #expect(text.contains("after"), "\(text)")
    }

    @Test("JSON: every character \\u-escaped (either case), or some, is removed; the document stays valid", arguments: jsonForms)
    func jsonFormsAreRemoved(_ form: String) throws {
        let scrubber = SecretScrubber(secret: Self.key)
        let body = Data("{\"a\": \"before \(form) after\", \"b\": [\"\(form)\"]}".utf8)
        let decoded = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect("\(decoded)".contains(Self.marker), "the form must decode to the key")
        let clean = scrubber.scrub(body)
        let object = try #require(try? JSONSerialization.jsonObject(with: clean) as? [String: Any],
                                  "not valid JSON after the scrub: \(String(decoding: clean, as: UTF8.self))")
        #expect(object["a"] as? String == "before REDACTED after", "\(object)")
        #expect(object["b"] as? [String] == ["REDACTED"], "\(object)")
    }

    @Test("escaped forms no reader decodes are removed too: references in a comment or inside a CDATA section",
          arguments: [hexReferences(key, upper: false), decimalReferences(key, zeros: 2), hexReferences(FeedRequest.percentEncode(key), upper: true)])
    func escapedFormsInCommentsAndCDATAAreRemoved(_ form: String) throws {
        let scrubber = SecretScrubber(secret: Self.key)
        let body = Data("<?xml version=\"1.0\"?><r><!-- echo: \(form) --><a><![CDATA[x \(form) y]]></a><!--\(form)--></r>".utf8)
        let clean = scrubber.scrub(body)
        let text = String(decoding: clean, as: UTF8.self)
        #expect(!text.contains(form), "\(text)")
        #expect(text == "<?xml version=\"1.0\"?><r><!-- echo: REDACTED --><a><![CDATA[x REDACTED y]]></a><!--REDACTED--></r>", "\(text)")
        #expect(Self.xmlText(clean) == "x REDACTED y")
    }

    /// Every byte of `text` as `%XX`, letters and digits too, hex case alternating.
    static func percentEverything(_ text: String) -> String {
        text.utf8.enumerated().map { index, byte in "%" + String(format: index % 2 == 0 ? "%02X" : "%02x", byte) }.joined()
    }

    static let percentForms = ["Zq7SECRETk3y%2b%2F%3d", "Zq7SECRETk3y%2B%2f%3D", percentEverything(key), percentEverything(FeedRequest.percentEncode(key))]

    @Test("percent-escaped forms no byte form lists (mixed case, every character escaped) are removed, in XML and JSON", arguments: percentForms)
    func percentFormsAreRemoved(_ form: String) throws {
        let scrubber = SecretScrubber(secret: Self.key)
        let xml = scrubber.scrub(Data("<r><a>before \(form) after</a><b v=\"\(form)\"/></r>".utf8))
        #expect(Self.xmlText(xml) == "before REDACTED afterREDACTED", "\(String(decoding: xml, as: UTF8.self))")
        let json = scrubber.scrub(Data("{\"a\": \"before \(form) after\"}".utf8))
        #expect(String(decoding: json, as: UTF8.self) == "{\"a\": \"before REDACTED after\"}")
        let untouched = Data("<r>100%25 %E2%9C%93 %zz %2</r>".utf8)
        #expect(scrubber.scrub(untouched) == untouched)
    }

    /// `byte` as two hex digits, each upper or lower case at random.
    static func hex2<R: RandomNumberGenerator>(_ byte: UInt32, _ rng: inout R, digits: Int = 2) -> String {
        let text = String(byte, radix: 16)
        return (String(repeating: "0", count: max(0, digits - text.count)) + text).map { Bool.random(using: &rng) ? $0.uppercased() : $0.lowercased() }.joined()
    }

    @Test("property: any mix of spellings of the key's characters, in XML or JSON, is replaced whole and the document stays well-formed")
    func anyMixOfSpellingsIsRemoved() throws {
        var rng = Xoshiro(seed: (0x5345_4352_4554_4B45, 0x5900_0000_0000_0001, 0x6465_636F_6465_6400, 0x0000_0000_0000_0032))
        let scrubber = SecretScrubber(secret: Self.key)
        for round in 0..<400 {
            let spelled = Bool.random(using: &rng) ? Self.key : FeedRequest.percentEncode(Self.key)
            var xml = "", json = ""
            for scalar in spelled.unicodeScalars {
                let character = String(scalar)
                switch Int.random(in: 0..<6, using: &rng) {
                case 0: xml += character
                case 1: xml += "&#" + String(repeating: "0", count: Int.random(in: 0...4, using: &rng)) + "\(scalar.value);"
                case 2: xml += "&#x" + Self.hex2(scalar.value, &rng, digits: Int.random(in: 1...5, using: &rng)) + ";"
                case 3: xml += "%" + Self.hex2(scalar.value, &rng)
                case 4: xml += character + "<!--" + String(repeating: "-x", count: Int.random(in: 0...2, using: &rng)) + " -->"
                default: xml += "<![CDATA[" + character + "]]>"
                }
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: json += character
                case 1: json += "\\u" + Self.hex2(scalar.value, &rng, digits: 4)
                case 2: json += "%" + Self.hex2(scalar.value, &rng)
                default: json += character == "/" ? "\\/" : "\\u" + Self.hex2(scalar.value, &rng, digits: 4)
                }
            }
            let xmlClean = scrubber.scrub(Data("<r><a>x\(xml)y</a><b>keep &#x5A;q7 &amp; %41</b></r>".utf8))
            let xmlText = Self.xmlText(xmlClean)
            #expect(xmlText == "xREDACTEDykeep Zq7 & %41", "round \(round): \(xml) -> \(String(decoding: xmlClean, as: UTF8.self))")
            let jsonClean = scrubber.scrub(Data("{\"a\": \"x\(json)y\", \"b\": \"keep \\u005Aq7 %41\"}".utf8))
            let object = try? JSONSerialization.jsonObject(with: jsonClean) as? [String: String]
            #expect(object == ["a": "xREDACTEDy", "b": "keep Zq7 %41"], "round \(round): \(json) -> \(String(decoding: jsonClean, as: UTF8.self))")
        }
    }

    @Test func aSurrogatePairAndOtherEscapesAroundTheKeyDecodeAsTheReaderDoes() throws {
        let scrubber = SecretScrubber(secret: Self.key)
        let body = Data("{\"a\": \"\\ud83d\\ude00\\u00e9\\n\(Self.jsonEscapes(Self.key, upper: true))\\u0000\\t\"}".utf8)
        let object = try #require(try? JSONSerialization.jsonObject(with: scrubber.scrub(body)) as? [String: Any])
        #expect(object["a"] as? String == "😀é\nREDACTED\u{0}\t", "\(object)")
    }

    @Test("a body without the key is returned byte for byte, whatever escapes it holds")
    func bodiesWithoutTheKeyAreUntouched() {
        let scrubber = SecretScrubber(secret: Self.key)
        let xml = Data("<?xml version=\"1.0\"?><r><!-- c --><a>&#x5A;q7&amp;<![CDATA[Zq7SECRET]]>k4y &#0043;</a></r>".utf8)
        let json = Data("{\"a\": \"\\u005Aq7SECRET\\u006B4y \\/ \\\"\"}".utf8)
        #expect(scrubber.scrub(xml) == xml)
        #expect(scrubber.scrub(json) == json)
        #expect(scrubber.scrub("error: \(Self.hexReferences("Zq7SECRETk3z", upper: false))") == "error: \(Self.hexReferences("Zq7SECRETk3z", upper: false))")
    }

    @Test func errorTextsAreScrubbedOfDecodedForms() {
        let scrubber = SecretScrubber(secret: Self.key)
        for form in Self.xmlForms + Self.jsonForms {
            let text = scrubber.scrub("The server said: \(form).")
            #expect(!text.contains(Self.marker) && text.contains("REDACTED"), "\(form) -> \(text)")
        }
    }

    // MARK: - End to end

    /// Runs `pipeline` live against a server answering `body`; returns the exit status, what was
    /// printed and logged (the run, then `status` and `status --json`), and the environment.
    func run(_ name: String, _ pipeline: String, variable: String, body: Data, contentType: String)
        async throws -> (status: App.ExitStatus, printed: String, env: TestEnvironment) {
        let server = try LoopbackServer { _ in .respond(status: 200, contentType: contentType, body: body) }
        defer { server.stop() }
        var env = try TestEnvironment()
        env.variables[variable] = Self.key
        env.airKoreaBase = server.baseURL
        env.careerBase = server.baseURL
        let pipelines = try env.writePipeline(name, pipeline)
        let status = await env.feedline.run(names: [name], source: .live, paths: env.paths(pipelines: pipelines), json: true)
        _ = env.feedline.status(paths: env.paths(pipelines: pipelines), json: false)
        _ = env.feedline.status(paths: env.paths(pipelines: pipelines), json: true)
        return (status, env.out.text + env.err.text + env.logs.text, env)
    }

    /// Every text column of every table that holds `needle` (as `table.column`).
    static func columnsHolding(_ needle: String, in db: TestDatabase) throws -> [String] {
        let queue = try DatabaseQueue(path: db.file.path)
        return try queue.read { db in
            var found: [String] = []
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            for table in tables {
                for column in try db.columns(in: table) {
                    let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \"\(table)\" WHERE CAST(\"\(column.name)\" AS TEXT) LIKE ?",
                                                 arguments: ["%\(needle)%"]) ?? 0
                    if count > 0 { found.append("\(table).\(column.name)") }
                }
            }
            return found
        }
    }

    /// The archived payload files (and their metadata) under the run's archive.
    static func archiveText(_ env: TestEnvironment) -> String {
        String(decoding: allBytes(under: env.dir.url.appendingPathComponent("archive")), as: UTF8.self)
    }

    static let airKoreaPipeline = "source: airkorea\noperation: realtime-by-province\nparameters:\n  sidoName: 서울\nformat: xml\npage_size: 10\n"

    @Test("AirKorea: a key spelled as references or split by CDATA or a comment in station and network fields never reaches the database or the archive",
          arguments: [0, 2, 4, 5, 7])
    func airKoreaValuesCarryingTheKey(_ index: Int) async throws {
        let form = Self.xmlForms[index]
        var page = String(decoding: AirKoreaPages.xml(AirKoreaPages.items(first: 0, count: 3), pageNo: 1, numOfRows: 10, totalCount: 3), as: UTF8.self)
        page = page.replacingOccurrences(of: "<header>", with: "<header><!-- \(Self.hexReferences(Self.key, upper: false)) -->")
        page = page.replacingOccurrences(of: "<mangName>도시대기</mangName>", with: "<mangName>도시대기 \(form)</mangName>")
        page = page.replacingOccurrences(of: "<stationName>S1</stationName>", with: "<stationName>S1 \(form)</stationName>")
        let (status, printed, env) = try await run("airkorea", Self.airKoreaPipeline, variable: "AIRKOREA_SERVICE_KEY",
                                                   body: Data(page.utf8), contentType: "text/xml")
        defer { env.dir.remove() }
        #expect(status == .success, "\(printed.prefix(800))")
        #expect(try Self.columnsHolding(Self.marker, in: env.db) == [])
        #expect(try env.db.value("SELECT count(*) FROM measurement WHERE network LIKE '%REDACTED%'") == "3")
        #expect(!printed.contains(Self.marker))
        let archive = Self.archiveText(env)
        #expect(archive.contains("REDACTED") && !archive.contains(form), "the archive keeps the echo")
        #expect(!archive.contains(Self.hexReferences(Self.key, upper: false)), "the archive keeps the echo in a comment")
    }

    @Test("AirKorea: a key with every character percent-escaped in a network field is stored as REDACTED")
    func airKoreaPercentEscapedKey() async throws {
        let form = Self.percentEverything(Self.key)
        var page = String(decoding: AirKoreaPages.xml(AirKoreaPages.items(first: 0, count: 3), pageNo: 1, numOfRows: 10, totalCount: 3), as: UTF8.self)
        page = page.replacingOccurrences(of: "<mangName>도시대기</mangName>", with: "<mangName>도시대기 \(form)</mangName>")
        let (status, printed, env) = try await run("airkorea", Self.airKoreaPipeline, variable: "AIRKOREA_SERVICE_KEY",
                                                   body: Data(page.utf8), contentType: "text/xml")
        defer { env.dir.remove() }
        #expect(status == .success, "\(printed.prefix(800))")
        #expect(try Self.columnsHolding(String(form.prefix(24)), in: env.db) == [])
        #expect(try env.db.value("SELECT count(*) FROM measurement WHERE network = '도시대기 REDACTED'") == "3")
        #expect(!Self.archiveText(env).contains(form))
    }

    @Test("AirKorea: a code 30 envelope whose message spells the key never prints it, nor stores it in run.error or status",
          arguments: [0, 3, 5, 6])
    func airKoreaErrorEnvelopeCarryingTheKey(_ index: Int) async throws {
        let form = Self.xmlForms[index]
        let gateway = "<OpenAPI_ServiceResponse><cmmMsgHeader><errMsg>SERVICE ERROR \(form)</errMsg><returnAuthMsg>SERVICE_KEY_IS_NOT_REGISTERED_ERROR</returnAuthMsg><returnReasonCode>30</returnReasonCode></cmmMsgHeader></OpenAPI_ServiceResponse>"
        let provider = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><response><header><resultCode>30</resultCode><resultMsg>SERVICE KEY IS NOT REGISTERED ERROR. \(form)</resultMsg></header></response>"
        for body in [gateway, provider] {
            let (status, printed, env) = try await run("airkorea", Self.airKoreaPipeline, variable: "AIRKOREA_SERVICE_KEY",
                                                       body: Data(body.utf8), contentType: "text/xml")
            defer { env.dir.remove() }
            #expect(status != .success)
            #expect(!printed.contains(Self.marker), "\(printed.prefix(1500))")
            #expect(try Self.columnsHolding(Self.marker, in: env.db) == [])
            #expect(try env.db.value("SELECT count(*) FROM run WHERE error IS NOT NULL") != "0", "the failure must be recorded")
            #expect(!Self.archiveText(env).contains(Self.marker))
        }
    }

    @Test("OpenAQ (JSON): a location name with every character \\u-escaped never reaches the database or the archive",
          arguments: [0, 1, 3, 5])
    func jsonValuesCarryingTheKey(_ index: Int) async throws {
        let form = Self.jsonForms[index]
        let fixture = try String(contentsOf: FixturePaths.fixtures.appendingPathComponent("openaq/locations-kr.json"), encoding: .utf8)
        let body = fixture.replacingOccurrences(of: "\"종로구\"", with: "\"종로구 \(form)\"")
        #expect(body != fixture)
        let (status, printed, env) = try await run("openaq", "source: openaq\noperation: locations\nparameters:\n  iso: KR\nformat: json\n",
                                                   variable: "OPENAQ_API_KEY", body: Data(body.utf8), contentType: "application/json")
        defer { env.dir.remove() }
        #expect(status == .success, "\(printed.prefix(800))")
        #expect(try Self.columnsHolding(Self.marker, in: env.db) == [])
        #expect(try env.db.value("SELECT count(*) FROM openaq_location WHERE name = '종로구 REDACTED'") == "1")
        #expect(!printed.contains(Self.marker))
        let archive = Self.archiveText(env)
        #expect(archive.contains("REDACTED") && !archive.contains(form))
    }
}
