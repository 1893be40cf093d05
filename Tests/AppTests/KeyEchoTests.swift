import App
import FeedCore
import Foundation
import GRDB
import Pipeline
import Testing
import TestSupport

/// Servers that echo the API key back, in every form a key can take on its way through a web
/// stack: nothing of it may reach the output, the logs, the archive or the database, for any
/// feed that takes a key, whichever form the key was configured in.
@Suite(.serialized) struct KeyEchoTests {
    /// Decoded form: characters that percent-, JSON- and XML-escaping all change, and a space.
    static let decoded = "SENTINEL+rel/Key=9d&41 c7"
    static let encoded = FeedRequest.percentEncode(decoded)  // SENTINEL%2Brel%2FKey%3D9d%2641%20c7

    /// Every echoed form, written out by hand (not derived by the code under test).
    static let echoes = [
        decoded,                                              // as sent decoded / percent-decoded
        encoded,                                              // as configured encoded (upper hex)
        "SENTINEL%2brel%2fKey%3d9d%2641%20c7",                // lower hex
        "SENTINEL%2Brel%2FKey%3D9d%2641+c7",                  // form encoding: + for space
        "SENTINEL+rel/Key=9d&41+c7",                          // + for space, otherwise decoded
        "SENTINEL+rel\\/Key=9d&41 c7",                        // JSON-escaped
        "SENTINEL\\u002Brel\\u002FKey\\u003D9d\\u002641\\u0020c7",  // JSON \u escapes
        "SENTINEL+rel/Key=9d&amp;41 c7",                      // XML/HTML-escaped
        "SENTINEL&#43;rel&#47;Key&#61;9d&#38;41&#32;c7",      // numeric character references
    ]

    /// A feed, a pipeline for it, a good page and an error page, each given the echoes to carry.
    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var variable: String
        /// Where the key goes: a query parameter, or (`keyHeader`) an HTTP header.
        var keyParameter: String
        var keyHeader: String? = nil
        var pipeline: String
        var good: @Sendable (String) -> Data
        var error: @Sendable (String) -> Data
        var description: String { name }
    }

    static func fixture(_ path: String) -> String {
        (try? String(contentsOf: FixturePaths.fixtures.appendingPathComponent(path), encoding: .utf8)) ?? ""
    }

    /// A comment holding every echo, after the XML declaration.
    static func xmlWithComment(_ xml: String, _ echo: String) -> Data {
        let comment = "<!-- echo: \(echo) -->"
        if let end = xml.range(of: "?>") { return Data(xml.replacingCharacters(in: end, with: "?>\n" + comment).utf8) }
        return Data((comment + "\n" + xml).utf8)
    }

    /// A first member `"echo": …` in the top-level JSON object.
    static func jsonWithMember(_ json: String, _ echo: String) -> Data {
        Data(json.replacingOccurrences(of: "{", with: "{\"echo\": \"\(echo)\", ", options: [], range: json.range(of: "{")).utf8)
    }

    static let cases: [Case] = [
        Case(name: "airkorea", variable: "AIRKOREA_SERVICE_KEY", keyParameter: "serviceKey",
             pipeline: "source: airkorea\noperation: realtime-by-province\nparameters:\n  sidoName: 서울\nformat: xml\npage_size: 10\n",
             good: { xmlWithComment(String(decoding: AirKoreaPages.xml(AirKoreaPages.items(first: 0, count: 3), pageNo: 1, numOfRows: 10, totalCount: 3), as: UTF8.self), $0) },
             error: { echo in
                 let body = String(decoding: AirKoreaPages.gatewayError(code: "30", name: "SERVICE_KEY_IS_NOT_REGISTERED_ERROR key=SENTINEL+rel/Key=9d&amp;41 c7"), as: UTF8.self)
                 return xmlWithComment(body, echo)
             }),
        Case(name: "careernet", variable: "CAREERNET_API_KEY", keyParameter: "apiKey",
             pipeline: "source: careernet\noperation: majors\nparameters:\n  gubun: univ_list\nformat: json\npage_size: 1000\n",
             good: { jsonWithMember(fixture("careernet/major-univ_list.json"), $0) },
             error: { echo in
                 jsonWithMember(fixture("careernet/error-invalid-key.json").replacingOccurrences(of: "인증키가 유효하지 않습니다.", with: "인증키가 유효하지 않습니다: \(echo)"), echo)
             }),
        Case(name: "saramin", variable: "SARAMIN_ACCESS_KEY", keyParameter: "access-key",
             pipeline: "source: saramin\noperation: job-search\nparameters:\n  job_mid_cd: \"2\"\nformat: json\npage_size: 110\nmax_pages: 1\n",
             good: { jsonWithMember(fixture("saramin/job-search-sample.json"), $0) },
             error: { echo in
                 jsonWithMember(fixture("saramin/error-invalid-key.json").replacingOccurrences(of: "Invalid access-key", with: "Invalid access-key \(echo)"), echo)
             }),
        Case(name: "openweather", variable: "OPENWEATHER_API_KEY", keyParameter: "appid",
             pipeline: "source: openweather\noperation: air-pollution\nparameters:\n  lat: \"37.5665\"\n  lon: \"126.9780\"\nformat: json\n",
             good: { jsonWithMember(fixture("openweather/air-pollution-current-seoul.json"), $0) },
             error: { echo in
                 jsonWithMember(fixture("openweather/error-401.json").replacingOccurrences(of: "Invalid API key.", with: "Invalid API key \(echo)."), echo)
             }),
        Case(name: "openaq", variable: "OPENAQ_API_KEY", keyParameter: "", keyHeader: "X-API-Key",
             pipeline: "source: openaq\noperation: locations\nparameters:\n  iso: KR\nformat: json\n",
             good: { jsonWithMember(fixture("openaq/locations-kr.json"), $0) },
             error: { echo in
                 jsonWithMember(fixture("openaq/error-401-invalid-key.json").replacingOccurrences(of: "Invalid credentials", with: "Invalid credentials \(echo)"), echo)
             }),
    ]

    /// Runs `feedCase` live against a server answering `body`, with the key configured as
    /// `configured`; returns the exit status, the requests the server received, and every byte
    /// the run left behind (output, logs, archive, database).
    func run(_ feedCase: Case, configured: String, body: Data) async throws -> (App.ExitStatus, [LoopbackServer.Request], Data) {
        let contentType = body.first == UInt8(ascii: "{") ? "application/json" : "text/xml"
        let server = try LoopbackServer { _ in .respond(status: 200, contentType: contentType, body: body) }
        defer { server.stop() }
        var env = try TestEnvironment()
        defer { env.dir.remove() }
        env.variables[feedCase.variable] = configured
        env.airKoreaBase = server.baseURL
        env.careerBase = server.baseURL
        let pipelines = try env.writePipeline(feedCase.name, feedCase.pipeline)
        let status = await env.feedline.run(names: [feedCase.name], source: .live, paths: env.paths(pipelines: pipelines), json: true)
        var left = Data((env.out.text + env.err.text + env.logs.text).utf8)
        left.append(allBytes(under: env.dir.url))
        return (status, server.requests, left)
    }

    @Test("an echoed key is scrubbed in every form, from good pages and error envelopes", arguments: cases)
    func echoedKeyNeverComesBack(_ feedCase: Case) async throws {
        let echo = Self.echoes.joined(separator: " | ")
        for configured in ["  \(Self.decoded)\n", Self.encoded, " \(Self.encoded) "] {
            let (good, requests, goodBytes) = try await run(feedCase, configured: configured, body: feedCase.good(echo))
            #expect(good == .success, "\(feedCase) \(configured): \(String(decoding: goodBytes.prefix(600), as: UTF8.self))")
            if let header = feedCase.keyHeader {
                // A header carries the key as configured, trimmed, and the URL carries none of it.
                let sentKeys = requests.map { $0.headers[header.lowercased()] }
                let trimmed = configured.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(!sentKeys.isEmpty && sentKeys.allSatisfy { $0 == trimmed }, "\(feedCase): sent \(sentKeys)")
                #expect(requests.allSatisfy { !$0.target.contains("SENTINEL") }, "\(feedCase): the key is in a URL")
            } else {
                // Trimmed, encoded exactly once: the server decodes the query back to the key itself.
                let sentKeys = requests.map { $0.query[feedCase.keyParameter] }
                #expect(!sentKeys.isEmpty && sentKeys.allSatisfy { $0 == Self.decoded }, "\(feedCase): sent \(sentKeys)")
            }
            #expect(goodBytes.range(of: Data("SENTINEL".utf8)) == nil, "\(feedCase) \(configured): the key came back out: \(Self.around("SENTINEL", goodBytes))")
            #expect(goodBytes.range(of: Data("REDACTED".utf8)) != nil, "\(feedCase): the echo was not replaced")

            let (failed, _, errorBytes) = try await run(feedCase, configured: configured, body: feedCase.error(echo))
            #expect(failed != .success, "\(feedCase): an invalid-key answer must fail the run")
            #expect(errorBytes.range(of: Data("SENTINEL".utf8)) == nil, "\(feedCase) \(configured): the key came back out of an error")
        }
    }

    static func around(_ needle: String, _ data: Data) -> String {
        guard let hit = data.range(of: Data(needle.utf8)) else { return "" }
        return String(decoding: data[max(data.startIndex, hit.lowerBound - 200)..<min(data.endIndex, hit.upperBound + 200)], as: UTF8.self)
    }

    @Test func aKeyWithARawPercentIsEncodedSoItCannotInjectParameters() async throws {
        let key = "abc%zz&numOfRows=1&x=%41"
        let airkorea = Self.cases[0]
        let (_, requests, _) = try await run(airkorea, configured: key, body: airkorea.good(""))
        let queries = requests.map(\.query)
        #expect(queries.map { $0["serviceKey"] } == [key], "the key must arrive whole, as configured")
        #expect(queries.first?["numOfRows"] == "10" && queries.first?["x"] == nil, "\(queries)")
    }

    @Test func keyForms() {
        let key = APIKey(" \(Self.encoded)\t")!
        #expect(key.configured == Self.encoded && key.isPercentEncoded && key.queryValue == Self.encoded && key.decoded == Self.decoded)
        let plain = APIKey(Self.decoded)!
        #expect(!plain.isPercentEncoded && plain.queryValue == Self.encoded)
        #expect(APIKey("ab%zz")!.queryValue == "ab%25zz")
        #expect(APIKey("   ") == nil)
        #expect(APIKey("abc\r\nX-Evil: 1")?.headerValue == nil)
        let scrubber = SecretScrubber(secret: Self.encoded)
        for echo in Self.echoes {
            #expect(scrubber.scrub("before \(echo) after") == "before REDACTED after", "\(echo)")
        }
        let untouched = Data([0xff, 0xfe, 0x00, 0x41])  // not UTF-8: left byte for byte
        #expect(scrubber.scrub(untouched) == untouched)
    }
}
