import AirKorea
import App
import Foundation
import Testing
import TestSupport

/// Hostile documents served over real HTTP as the one page of a live run: each ends in an
/// error or in rows plus diagnostics — never a crash, a hang (time is bounded), a value outside
/// the schema's ranges, an expanded entity or a file read from disk.
@Suite struct HostileInputTests {
    /// What a document should lead to.
    enum Expect: Sendable {
        /// The run fails (exit 1) saying this.
        case error(String)
        /// The run loads `rows` rows with at least `diagnostics` diagnostics.
        case loads(rows: Int, diagnostics: Int)
        /// No crash and no hang; whatever loads stays within the schema (`rowsAtMost`).
        case survives(rowsAtMost: Int)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var body: @Sendable () -> Data
        var expect: Expect
        var closeDelimited = false
        var testDescription: String { name }
    }

    static let header = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<response><header><resultCode>00</resultCode><resultMsg>NORMAL_CODE</resultMsg></header><body><items>"
    static let footer = "</items><numOfRows>10000</numOfRows><pageNo>1</pageNo><totalCount>1</totalCount></body></response>\n"

    static func item(_ station: String, pm10: String = "30", dataTime: String = "2024-03-06 15:00", extra: String = "") -> String {
        "<item><stationName>\(station)</stationName><sidoName>서울</sidoName><dataTime>\(dataTime)</dataTime><pm10Value>\(pm10)</pm10Value><pm25Value>12</pm25Value><pm10Grade>2</pm10Grade>\(extra)</item>"
    }

    /// `count` valid items each carrying `filler` bytes in a field feeds do not read.
    static func bigXML(count: Int, filler: Int) -> Data {
        var data = Data(header.utf8)
        let pad = String(repeating: "x", count: filler)
        for i in 0..<count { data.append(Data(item("H\(i)", pm10: String(20 + i % 80), extra: "<memo>\(pad)</memo>").utf8)) }
        data.append(Data(footer.utf8))
        return data
    }

    static func bigJSON(count: Int, filler: Int) -> Data {
        let pad = String(repeating: "y", count: filler)
        var data = Data("{\"response\":{\"header\":{\"resultCode\":\"00\",\"resultMsg\":\"NORMAL_CODE\"},\"body\":{\"totalCount\":\(count),\"pageNo\":1,\"numOfRows\":10000,\"items\":[".utf8)
        for i in 0..<count {
            if i > 0 { data.append(UInt8(ascii: ",")) }
            data.append(Data("{\"stationName\":\"J\(i)\",\"sidoName\":\"서울\",\"dataTime\":\"2024-03-06 15:00\",\"pm10Value\":\"\(20 + i % 80)\",\"pm25Value\":\"9\",\"memo\":\"\(pad)\"}".utf8))
        }
        data.append(Data("]}}}".utf8))
        return data
    }

    static let cases: [Case] = [
        Case(name: "50 MB XML document", body: { bigXML(count: 5_000, filler: 10_000) }, expect: .loads(rows: 5_000, diagnostics: 0)),
        Case(name: "20 MB JSON document", body: { bigJSON(count: 2_000, filler: 10_000) }, expect: .loads(rows: 2_000, diagnostics: 0)),
        Case(name: "50 MB XML cut in half", body: { let d = bigXML(count: 5_000, filler: 10_000); return d.prefix(d.count / 2) },
             expect: .error("truncated"), closeDelimited: true),
        Case(name: "deeply nested XML", body: {
            Data((header + String(repeating: "<a>", count: 100_000) + String(repeating: "</a>", count: 100_000) + footer).utf8)
        }, expect: .survives(rowsAtMost: 0)),
        Case(name: "deeply nested XML inside an item", body: {
            Data((header + "<item><stationName>D</stationName><dataTime>2024-03-06 15:00</dataTime><pm10Value>"
                  + String(repeating: "<b>", count: 50_000) + String(repeating: "</b>", count: 50_000) + "</pm10Value></item>" + footer).utf8)
        }, expect: .survives(rowsAtMost: 1)),
        Case(name: "deeply nested JSON", body: {
            Data(("{\"response\":{\"body\":{\"items\":" + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}}}").utf8)
        }, expect: .error("JSON")),
        Case(name: "billion laughs", body: {
            var doctype = "<!DOCTYPE response [<!ENTITY lol0 \"lol\">"
            for i in 1...9 { doctype += "<!ENTITY lol\(i) \"" + String(repeating: "&lol\(i - 1);", count: 10) + "\">" }
            doctype += "]>"
            return Data(("<?xml version=\"1.0\"?>" + doctype + header.dropFirst(39) + item("&lol9;") + footer).utf8)
        }, expect: .error("DOCTYPE")),
        Case(name: "external entity", body: {
            Data(("<?xml version=\"1.0\"?><!DOCTYPE response [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>" + header.dropFirst(39)
                  + item("&xxe;") + footer).utf8)
        }, expect: .error("DOCTYPE")),
        Case(name: "invalid UTF-8 in XML", body: {
            var d = Data((header + "<item><stationName>").utf8)
            d.append(contentsOf: [0xC3, 0x28, 0xFF, 0xFE, 0xA0])
            d.append(Data(("</stationName><dataTime>2024-03-06 15:00</dataTime><pm10Value>3</pm10Value></item>" + footer).utf8))
            return d
        }, expect: .error("not well-formed")),
        Case(name: "invalid UTF-8 in JSON", body: {
            var d = Data("{\"response\":{\"header\":{\"resultCode\":\"00\"},\"body\":{\"items\":[{\"stationName\":\"".utf8)
            d.append(contentsOf: [0xC3, 0x28, 0xFF, 0xFE])
            d.append(Data("\",\"dataTime\":\"2024-03-06 15:00\",\"pm10Value\":\"3\"}]}}}".utf8))
            return d
        }, expect: .error("JSON")),
        Case(name: "NUL bytes in XML", body: { Data((header + item("N\u{0}UL") + footer).utf8) }, expect: .error("not well-formed")),
        Case(name: "10k-character fields", body: {
            let long = String(repeating: "종", count: 10_000)
            return Data((header
                         + item(long)                                                  // a very long station name
                         + item("Digits", pm10: String(repeating: "9", count: 10_000))  // a 10k-digit number
                         + item("Time", dataTime: String(repeating: "2", count: 10_000)) // a 10k-character time
                         + footer).utf8)
        }, expect: .survives(rowsAtMost: 2)),
        Case(name: "numbers out of range, negative or not numbers", body: {
            let values = ["-5", "-0.1", "1e309", "99999999", "NaN", "inf", "0x10", "１２", "3.4.5", " 40 ", "1e-400"]
            return Data((header + values.enumerated().map { item("R\($0.offset)", pm10: $0.element) }.joined()
                         + "<item><stationName>G</stationName><dataTime>2024-03-06 15:00</dataTime><pm10Grade>-1</pm10Grade><pm25Grade>9</pm25Grade></item>"
                         + footer).utf8)
        }, expect: .loads(rows: 12, diagnostics: 8)),
    ]

    @Test(arguments: cases)
    func hostileDocument(_ hostile: Case) async throws {
        let body = hostile.body()
        let server = try FaultServer { _ in
            hostile.closeDelimited
                ? .closeDelimited(status: 200, contentType: "text/xml", body: body, bytes: body.count)
                : .respond(status: 200, contentType: "text/xml", body: body)
        }
        defer { server.stop() }
        var env = try RelEnvironment("hostile")
        defer { env.dir.remove() }
        env.baseURL = server.baseURL
        env.timeout = 30
        let pipelines = try env.writePipeline("hostile", Pages.provincePipeline.replacingOccurrences(of: "page_size: 3", with: "page_size: 10000"))

        let started = Date()
        let status = await env.feedline.run(names: ["hostile"], source: .live, paths: env.paths(pipelines: pipelines))
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed < 90, "\(hostile.name) took \(elapsed) s")

        let rows = try DatabaseDump.integer(env.database, "SELECT count(*) FROM measurement")
        let diagnostics = try DatabaseDump.integer(env.database, "SELECT count(*) FROM diagnostic")
        switch hostile.expect {
        case .error(let fragment):
            #expect(status == .failure, "\(hostile.name): \(env.out.text)")
            #expect(env.out.text.contains(fragment), "\(hostile.name): \(env.out.text.prefix(2000))")
            #expect(rows == 0)
        case .loads(let expectedRows, let minimumDiagnostics):
            #expect(status == .success, "\(hostile.name): \(env.out.text.prefix(2000))")
            #expect(rows == expectedRows, "\(hostile.name)")
            #expect(diagnostics >= minimumDiagnostics, "\(hostile.name): \(diagnostics) diagnostics")
        case .survives(let most):
            #expect([.success, .failure].contains(status), "\(hostile.name): \(env.out.text.prefix(2000))")
            #expect(rows <= most, "\(hostile.name)")
            if status == .success && rows > 0 { #expect(diagnostics > 0, "\(hostile.name): odd values must be diagnosed") }
        }
        // Nothing impossible was stored; no entity was expanded, no local file read.
        #expect(try DatabaseDump.integer(env.database, "SELECT count(*) FROM measurement WHERE pm10 < 0 OR pm10 > 10000 OR pm25 < 0") == 0)
        #expect(try DatabaseDump.integer(env.database, "SELECT count(*) FROM measurement WHERE station_name LIKE '%lol%' OR station_name LIKE '%root:%'") == 0)
        #expect(try DatabaseDump.strings(env.database, "PRAGMA integrity_check") == ["ok"])
        #expect(!containsSentinel(Data(env.printed.utf8)))
        #expect(!env.out.text.contains("root:x:0:0"))
    }
}
