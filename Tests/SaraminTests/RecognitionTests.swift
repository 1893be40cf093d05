import Foundation
import Pipeline
import Saramin
import Testing
import TestSupport

/// Recognition is positive: a Saramin answer is `job-search` only when its first `job` has the
/// members of a posting (an `id` or `url`, and a `position` or `company`).
@Suite("Saramin recognition")
struct RecognitionTests {
    static let codeTable = #"{"jobs":{"count":1,"start":0,"total":"1","job":[{"code":"2","name":"IT개발·데이터"}]}}"#
    static let codeTableXML = #"<?xml version="1.0" encoding="UTF-8"?><job-search><jobs count="1" start="0" total="1"><job><code>2</code><name>IT개발·데이터</name></job></jobs></job-search>"#

    @Test("jobs that are no postings are refused, not loaded as postings")
    func otherItemsAreRefused() {
        let feed = SaraminFeed()
        for (body, format) in [(Self.codeTable, PayloadFormat.json), (Self.codeTableXML, .xml)] {
            let recognition = feed.recognition(head: Data(body.utf8), format: format)
            #expect(RecognitionSamples.isRefusal(recognition, naming: ["Saramin", "job-search"]), "\(format): \(recognition)")
        }
    }

    @Test("postings and empty pages are job-search", arguments: ["saramin/job-search-sample.json", "saramin/job-search-sample.xml",
                                                                 "saramin/quirks.json", "saramin/empty.json", "saramin/empty.xml"])
    func ownAnswersAreRecognised(path: String) throws {
        #expect(SaraminFeed().recognition(head: try RecognitionSamples.head(path), format: RecognitionSamples.format(path)) == .shape("job-search"))
    }

    @Test("no fixture of another feed is taken for a Saramin answer", arguments: RecognitionSamples.fixtures(except: "saramin"))
    func otherFeedsFixtures(path: String) throws {
        let recognition = SaraminFeed().recognition(head: try RecognitionSamples.head(path), format: RecognitionSamples.format(path))
        #expect(recognition.operation == nil, "\(path): \(recognition)")
    }
}
