@testable import AirKorea
import Foundation
import Pipeline
import Testing

@Suite("AirKorea error envelopes")
struct ErrorTests {
    /// code as written → (normalised code, name, retryability)
    static let table: [(String, String, String, Retryability)] = [
        ("01", "01", "APPLICATION_ERROR", .transient),
        ("1", "01", "APPLICATION_ERROR", .transient),
        ("02", "02", "DB_ERROR", .transient),
        ("03", "03", "NODATA_ERROR", .terminal),
        ("04", "04", "HTTP_ERROR", .transient),
        ("05", "05", "SERVICETIMEOUT_ERROR", .transient),
        ("10", "10", "INVALID_REQUEST_PARAMETER_ERROR", .terminal),
        ("11", "11", "NO_MANDATORY_REQUEST_PARAMETERS_ERROR", .terminal),
        ("12", "12", "NO_OPENAPI_SERVICE_ERROR", .terminal),
        ("20", "20", "SERVICE_ACCESS_DENIED_ERROR", .terminal),
        ("21", "21", "TEMPORARILY_DISABLE_THE_SERVICEKEY_ERROR", .terminal),
        ("22", "22", "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR", .transient),
        ("23", "23", "LIMITED_NUMBER_OF_SERVICE_REQUESTS_PER_SECOND_EXCEEDS_ERROR", .transient),
        ("29", "29", "BLACKLIST_IP_ACCESS_ERROR", .terminal),
        ("30", "30", "SERVICE_KEY_IS_NOT_REGISTERED_ERROR", .terminal),
        ("31", "31", "DEADLINE_HAS_EXPIRED_ERROR", .terminal),
        ("32", "32", "UNREGISTERED_IP_ERROR", .terminal),
        ("33", "33", "UNSIGNED_CALL_ERROR", .terminal),
        ("99", "99", "UNKNOWN_ERROR", .transient),
        (" 22 ", "22", "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR", .transient),
        ("022", "22", "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR", .transient),
        ("77", "77", "SOMETHING_NEW", .terminal),
        ("E1", "E1", "SOMETHING_NEW", .terminal),
    ]

    @Test("codes are compared as integers and classified transient or terminal", arguments: table)
    func classification(raw: String, code: String, name: String, retry: Retryability) {
        for layer in [AirKoreaErrorCode.Layer.gateway, .provider] {
            let error = AirKoreaErrorCode.error(layer: layer, code: raw, reportedName: "SOMETHING_NEW", detail: "SERVICE ERROR", context: "x")
            #expect(error.kind == .api(code: code, name: name))
            #expect(error.retryability == retry)
            // Only code 22 (as an integer: ` 22 `, `022`) means the daily quota is used up.
            #expect(error.exhaustsDailyQuota == (code == "22"), "\(raw)")
            #expect(error.message.hasSuffix("."))
            #expect(error.message.contains(code))
        }
    }

    @Test("success codes", arguments: ["00", "0", " 00 ", "000"])
    func success(code: String) {
        #expect(AirKoreaErrorCode.isSuccess(code))
    }

    @Test("non-success codes", arguments: ["01", "22", "", "OK", "NORMAL_CODE"])
    func failure(code: String) {
        #expect(!AirKoreaErrorCode.isSuccess(code))
    }

    /// Gateway and provider envelopes through the whole decoder, XML and JSON, for several codes.
    @Test("error envelopes decode to the typed error whatever format was asked for", arguments: ["01", "1", "04", "05", "10", "12", "20", "22", "23", "30", "31", "99"])
    func envelopes(code: String) throws {
        let expectedCode = code.count == 1 ? "0" + code : code
        let gateway = """
        <OpenAPI_ServiceResponse><cmmMsgHeader><errMsg>SERVICE ERROR</errMsg><returnAuthMsg>WHATEVER</returnAuthMsg>\
        <returnReasonCode>\(code)</returnReasonCode></cmmMsgHeader></OpenAPI_ServiceResponse>
        """
        let providerXML = "<response><header><resultCode>\(code)</resultCode><resultMsg>MSG</resultMsg></header><body><items/></body></response>"
        let providerJSON = #"{"response":{"body":{"totalCount":0,"items":[],"pageNo":1,"numOfRows":10},"header":{"resultMsg":"MSG","resultCode":"\#(code)"}}}"#
        for (text, name, asked) in [(gateway, "g.xml", PayloadFormat.json), (gateway, "g.xml", .xml),
                                    (providerXML, "p.xml", .xml), (providerJSON, "p.json", .json), (providerJSON, "p.json", .xml)] {
            let (url, directory) = try temporaryPayload(text, name: name)
            defer { directory.remove() }
            let result = AirKoreaFixtures.decode(url, operation: "getCtprvnRltmMesureDnsty", format: asked)
            let error = try #require(result.feedError, "\(name) with code \(code) should fail")
            guard case .api(let got, _) = error.kind else {
                Issue.record("expected an API error, got \(error)")
                continue
            }
            #expect(got == expectedCode)
            #expect(result.sink.entries.isEmpty)
        }
    }

    @Test("an empty result is not an error")
    func emptyIsFine() throws {
        let (url, directory) = try temporaryPayload(
            #"{"response":{"body":{"totalCount":0,"items":[],"pageNo":1,"numOfRows":1},"header":{"resultMsg":"NORMAL_CODE","resultCode":"00"}}}"#,
            name: "empty.json")
        defer { directory.remove() }
        let result = AirKoreaFixtures.decode(url, operation: "realtime-by-station")
        #expect(result.error == nil)
        #expect(result.summary?.itemCount == 0)
        #expect(result.summary?.reportedTotal == 0)
    }

    @Test("malformed documents are terminal malformed errors", arguments: [
        ("<response><header><resultCode>00</resultCode></header><body><items><item><pm10Value>3</item></items></body></response>", "a.xml"),
        ("<response><header>", "b.xml"),
        ("", "c.xml"),
        ("", "c.json"),
        ("{\"response\": ", "d.json"),
        ("[1, 2", "e.json"),
        ("\"just a string\"", "f.json"),
        ("{\"something\": {\"else\": 1}}", "g.json"),
        ("<html><body>502 Bad Gateway</body></html>", "h.xml"),
        ("<!DOCTYPE response [<!ENTITY x \"y\">]><response>&x;</response>", "i.xml"),
    ])
    func malformed(text: String, name: String) throws {
        let (url, directory) = try temporaryPayload(text, name: name)
        defer { directory.remove() }
        let result = AirKoreaFixtures.decode(url, operation: "getCtprvnRltmMesureDnsty")
        let error = try #require(result.feedError)
        #expect(error.kind == .malformed)
        #expect(error.retryability == .terminal)
    }

    @Test("an operation that is not AirKorea's cannot be decoded")
    func foreignOperation() throws {
        let url = AirKoreaFixtures.url("empty-result.json")
        let result = AirKoreaFixtures.decode(url, operation: "getWeather")
        #expect(result.feedError?.kind == .unrecognised)
    }
}
