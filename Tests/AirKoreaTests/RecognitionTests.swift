import AirKorea
import Foundation
import Pipeline
import Testing
import TestSupport

/// Recognition is positive: AirKorea items are an operation only by the fields that make it
/// (every fixture's operation is pinned in `FixtureGoldenTests`); a success envelope whose items
/// match no operation is refused, naming the operations feedline reads.
@Suite("AirKorea recognition")
struct RecognitionTests {
    static let unknownItems = #"{"response":{"header":{"resultCode":"00","resultMsg":"NORMAL_CODE"},"body":{"totalCount":1,"items":[{"code":"11","name":"서울"}],"pageNo":1,"numOfRows":10}}}"#
    static let unknownItemsXML = #"<?xml version="1.0" encoding="UTF-8"?><response><header><resultCode>00</resultCode><resultMsg>NORMAL_CODE</resultMsg></header><body><items><item><code>11</code><name>서울</name></item></items><totalCount>1</totalCount></body></response>"#

    @Test("items of no operation are refused by name")
    func unknownItemsAreRefused() {
        for (body, format) in [(Self.unknownItems, PayloadFormat.json), (Self.unknownItemsXML, .xml)] {
            let recognition = AirKoreaFeed().recognition(head: Data(body.utf8), format: format)
            #expect(RecognitionSamples.isRefusal(recognition, naming: ["AirKorea", "getMinuDustFrcstDspth", "realtime measurements"]), "\(format): \(recognition)")
        }
    }

    /// A forecast item that also carries a daily statistics date: two operations' fields.
    static let twoShapes = #"{"response":{"header":{"resultCode":"00","resultMsg":"NORMAL_CODE"},"body":{"totalCount":1,"items":[{"informCode":"PM10","informGrade":"서울 : 좋음","dataTime":"2024-03-06 17시 발표","msurDt":"2024-03-06","msrstnName":"종로구","pm10Value":"33"}],"pageNo":1,"numOfRows":10}}}"#

    @Test("items with the fields of two operations are refused, not read as the first one tried")
    func twoShapesAreRefused() {
        let recognition = AirKoreaFeed().recognition(head: Data(Self.twoShapes.utf8), format: .json)
        #expect(RecognitionSamples.isRefusal(recognition, naming: ["AirKorea"]), "\(recognition)")
    }

    @Test("no fixture of another feed is taken for an AirKorea answer", arguments: RecognitionSamples.fixtures(except: "airkorea"))
    func otherFeedsFixtures(path: String) throws {
        let recognition = AirKoreaFeed().recognition(head: try RecognitionSamples.head(path), format: RecognitionSamples.format(path))
        #expect(recognition.operation == nil, "\(path): \(recognition)")
    }
}
