import Foundation
import Pipeline
import Testing
import TestSupport

/// A document that declares a single-byte or legacy encoding but holds UTF-8 text would load
/// every station name garbled (`ì¤‘êµ¬` for `중구`); it is refused instead. A document that
/// really is in the encoding it declares (EUC-KR) still loads with its names intact.
@Suite("AirKorea declared encodings")
struct DeclaredEncodingTests {
    static func page(declaring encoding: String, station: [UInt8], province: [UInt8]) -> Data {
        var data = Data(#"<?xml version="1.0" encoding="\#(encoding)"?><response><header><resultCode>00</resultCode><resultMsg>NORMAL_CODE</resultMsg></header><body><items><item><stationName>"#.utf8)
        data.append(contentsOf: station)
        data.append(contentsOf: Array("</stationName><sidoName>".utf8))
        data.append(contentsOf: province)
        data.append(contentsOf: Array("</sidoName><mangName>urban</mangName><dataTime>2023-05-14 01:00</dataTime><pm10Value>33</pm10Value><pm25Value>17</pm25Value></item></items><numOfRows>10</numOfRows><pageNo>1</pageNo><totalCount>1</totalCount></body></response>".utf8))
        return data
    }

    static func decode(_ data: Data) throws -> DecodeResult {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("realtime.xml")
        try data.write(to: file)
        return AirKoreaFixtures.decode(file, request: try AirKoreaFixtures.request(for: "realtime-province-seoul.xml"))
    }

    @Test("UTF-8 text declared as ISO-8859-1 or EUC-KR is refused naming the declared encoding", arguments: ["ISO-8859-1", "EUC-KR", "windows-1252"])
    func misdeclaredUTF8IsRefused(encoding: String) throws {
        let result = try Self.decode(Self.page(declaring: encoding, station: Array("종로구".utf8), province: Array("서울".utf8)))
        #expect(result.feedError?.kind == .malformed, "\(String(describing: result.error))")
        #expect(result.feedError?.message.contains("declares encoding \(encoding)") == true, "\(result.feedError?.message ?? "")")
    }

    @Test("a document in the EUC-KR it declares loads with its station name intact")
    func realEUCKRLoads() throws {
        let result = try Self.decode(Self.page(declaring: "EUC-KR", station: [0xC1, 0xBE, 0xB7, 0xCE, 0xB1, 0xB8], province: [0xBC, 0xAD, 0xBF, 0xEF]))
        #expect(result.error == nil, "\(String(describing: result.error))")
        #expect(result.golden.contains("종로구"), "\(result.golden)")
    }
}
