import App
import FeedCore
import Foundation
import Pipeline
import Testing
import TestSupport

/// A UTF-16 or UTF-32 answer would pass the key scrub unseen (it reads UTF-8 bytes) while
/// libxml2 decodes it, key and all, into the database. Such answers are refused, live before
/// anything is archived and on replay alike; single-byte encodings an XML declaration names
/// keep loading.
@Suite(.serialized) struct PayloadEncodingTests {
    static let key = "Wide7KEYsecret9"
    static let pipeline = "source: airkorea\noperation: realtime-by-province\nparameters:\n  sidoName: 서울\nformat: xml\npage_size: 10\n"

    /// An AirKorea page naming `encoding` in its declaration, with the key echoed in a value.
    static func page(declaring encoding: String) -> String {
        let xml = String(decoding: AirKoreaPages.xml(AirKoreaPages.items(first: 0, count: 2), pageNo: 1, numOfRows: 10, totalCount: 2), as: UTF8.self)
        return xml.replacingOccurrences(of: "encoding=\"UTF-8\"", with: "encoding=\"\(encoding)\"")
            .replacingOccurrences(of: "<mangName>도시대기</mangName>", with: "<mangName>도시대기 \(key)</mangName>")
    }

    struct Wide: CustomStringConvertible, Sendable {
        var description: String
        var bytes: Data
        var named: String
    }

    static let wide: [Wide] = [
        Wide(description: "UTF-16LE with BOM", bytes: Data([0xFF, 0xFE]) + page(declaring: "UTF-16").data(using: .utf16LittleEndian)!, named: "UTF-16 (little-endian, byte order mark)"),
        Wide(description: "UTF-16BE with BOM", bytes: Data([0xFE, 0xFF]) + page(declaring: "UTF-16").data(using: .utf16BigEndian)!, named: "UTF-16 (big-endian, byte order mark)"),
        Wide(description: "UTF-16LE without BOM", bytes: page(declaring: "UTF-16").data(using: .utf16LittleEndian)!, named: "UTF-16 (NUL bytes between characters)"),
        Wide(description: "UTF-32LE with BOM", bytes: Data([0xFF, 0xFE, 0, 0]) + page(declaring: "UTF-32").data(using: .utf32LittleEndian)!, named: "UTF-32 (little-endian, byte order mark)"),
    ]

    func live(_ body: Data, pipeline: String = Self.pipeline, name: String = "airkorea", variable: String = "AIRKOREA_SERVICE_KEY",
              contentType: String = "text/xml") async throws -> (status: App.ExitStatus, printed: String, env: TestEnvironment) {
        let server = try LoopbackServer { _ in .respond(status: 200, contentType: contentType, body: body) }
        defer { server.stop() }
        var env = try TestEnvironment()
        env.variables[variable] = Self.key
        env.airKoreaBase = server.baseURL
        env.careerBase = server.baseURL
        let pipelines = try env.writePipeline(name, pipeline)
        let status = await env.feedline.run(names: [name], source: .live, paths: env.paths(pipelines: pipelines))
        return (status, env.out.text + env.err.text + env.logs.text, env)
    }

    @Test("a live UTF-16 or UTF-32 answer is refused, named, before it is archived: the key reaches neither the database nor the archive",
          arguments: wide)
    func liveWideAnswerIsRefused(_ wide: Wide) async throws {
        let (status, printed, env) = try await live(wide.bytes)
        defer { env.dir.remove() }
        #expect(status != .success)
        #expect(printed.contains("The payload is \(wide.named)"), "\(printed.prefix(800))")
        #expect(try env.db.value("SELECT count(*) FROM measurement") == "0")
        #expect(try env.db.value("SELECT count(*) FROM run WHERE error LIKE '%\(Self.key)%'") == "0")
        let left = String(decoding: allBytes(under: env.dir.url), as: UTF8.self)
        #expect(!left.contains(Self.key), "the key is in a file the run left")
        let archived = (try? FileManager.default.subpathsOfDirectory(atPath: env.dir.path("archive").path)) ?? []
        #expect(!archived.contains { $0.hasSuffix(".xml") }, "a refused answer is not archived: \(archived)")
        // Not retried: the answer would be the same.
        #expect(!printed.contains("transient"), "\(printed.prefix(800))")
    }

    @Test func aJSONAnswerInUTF16IsRefused() async throws {
        let fixture = try String(contentsOf: FixturePaths.fixtures.appendingPathComponent("openaq/locations-kr.json"), encoding: .utf8)
            .replacingOccurrences(of: "\"종로구\"", with: "\"종로구 \(Self.key)\"")
        let body = Data([0xFF, 0xFE]) + fixture.data(using: .utf16LittleEndian)!
        let (status, printed, env) = try await live(body, pipeline: "source: openaq\noperation: locations\nparameters:\n  iso: KR\nformat: json\n",
                                                   name: "openaq", variable: "OPENAQ_API_KEY", contentType: "application/json")
        defer { env.dir.remove() }
        #expect(status != .success)
        #expect(printed.contains("The payload is UTF-16 (little-endian, byte order mark)"), "\(printed.prefix(800))")
        #expect(!String(decoding: allBytes(under: env.dir.url), as: UTF8.self).contains(Self.key))
    }

    @Test("replaying a UTF-16 or UTF-32 file is refused the same way; nothing is loaded", arguments: wide)
    func replayedWideFileIsRefused(_ wide: Wide) async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let file = env.dir.path("wide.xml")
        try wide.bytes.write(to: file)
        let status = await env.feedline.replay(inputs: [file.path], sourceHint: "airkorea", parameters: ["sidoName": "서울"], paths: env.paths(), force: false)
        let printed = env.out.text + env.err.text
        #expect(status != .success)
        #expect(printed.contains("The payload is \(wide.named)"), "\(printed.prefix(800))")
        #expect(try env.db.value("SELECT count(*) FROM measurement") ?? "0" == "0")
        #expect(try env.db.value("SELECT count(*) FROM measurement WHERE network LIKE '%\(Self.key)%'") ?? "0" == "0")
    }

    @Test("an ISO-8859-1 answer still loads, live and replayed")
    func singleByteEncodingsKeepWorking() async throws {
        let text = Self.page(declaring: "ISO-8859-1").replacingOccurrences(of: "도시대기 \(Self.key)", with: "Réseau urbain")
            .replacingOccurrences(of: "서울", with: "Seoul")
        let body = try #require(text.data(using: .isoLatin1))
        #expect(body.contains(0xE9))
        let (status, printed, env) = try await live(body)
        defer { env.dir.remove() }
        #expect(status == .success, "\(printed.prefix(800))")
        #expect(try env.db.value("SELECT count(*) FROM measurement WHERE network = 'Réseau urbain'") == "2")

        let replayEnv = try TestEnvironment()
        defer { replayEnv.dir.remove() }
        let file = replayEnv.dir.path("latin1.xml")
        try body.write(to: file)
        let replayed = await replayEnv.feedline.replay(inputs: [file.path], sourceHint: "airkorea", parameters: ["sidoName": "서울"], paths: replayEnv.paths(), force: false)
        #expect(replayed == .success, "\(replayEnv.out.text + replayEnv.err.text)")
        #expect(try replayEnv.db.value("SELECT count(*) FROM measurement WHERE network = 'Réseau urbain'") == "2")
    }

    @Test func detection() {
        #expect(PayloadEncoding.wideEncoding(of: Data("<?xml version=\"1.0\" encoding=\"EUC-KR\"?><a/>".utf8)) == nil)
        #expect(PayloadEncoding.wideEncoding(of: Data("\u{FEFF}<?xml version='1.0' encoding = 'utf-16'?><a/>".utf8)) == "utf-16 (declared by the XML declaration)")
        #expect(PayloadEncoding.wideEncoding(of: Data("{\"a\": 1}".utf8)) == nil)
        #expect(PayloadEncoding.wideEncoding(of: Data([0, 0, 0, 0x7B])) == "UTF-32 (NUL bytes between characters)")
        #expect(PayloadEncoding.wideEncoding(of: Data([0x7B, 0, 0x22, 0])) == "UTF-16 (NUL bytes between characters)")
        #expect(PayloadEncoding.wideEncoding(of: Data()) == nil)
    }
}
