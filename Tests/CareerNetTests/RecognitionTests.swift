import CareerNet
import Foundation
import Pipeline
import Testing
import TestSupport

/// Recognition is positive: a CareerNet list is `SCHOOL`, `MAJOR` or `JOB` only when its first
/// item has the fields of that list; a detail answer (`MAJOR_VIEW`, `JOB_VIEW`) or any other
/// item inside `dataSearch` is refused, never read as a school list.
@Suite("CareerNet recognition")
struct RecognitionTests {
    static let majorView = #"{"dataSearch":{"content":[{"major":"컴퓨터공학과","department":"공학계열","summary":"컴퓨터의 원리를 배운다","interest":"수학","property":"논리"}]}}"#
    static let majorViewXML = #"<?xml version="1.0" encoding="UTF-8"?><dataSearch><content><major>컴퓨터공학과</major><department>공학계열</department><summary>요약</summary></content></dataSearch>"#
    static let jobView = #"{"dataSearch":{"content":[{"jobName":"응용소프트웨어개발자","work":"프로그램을 만든다","ability":"분석력"}]}}"#

    @Test("detail answers and unknown items are refused, naming the lists feedline reads")
    func otherAnswersAreRefused() {
        let feed = CareerNetFeed()
        for (name, body, format) in [("MAJOR_VIEW", Self.majorView, PayloadFormat.json), ("MAJOR_VIEW xml", Self.majorViewXML, .xml),
                                     ("JOB_VIEW", Self.jobView, .json)] {
            let recognition = feed.recognition(head: Data(body.utf8), format: format)
            #expect(RecognitionSamples.isRefusal(recognition, naming: ["CareerNet", "SCHOOL"]), "\(name): \(recognition)")
            #expect(feed.recognise(head: Data(body.utf8), format: format) == nil, "\(name)")
        }
    }

    @Test("each list is recognised by its items; errors and empty lists go to the decoder as SCHOOL")
    func ownAnswersAreRecognised() throws {
        let feed = CareerNetFeed()
        for (path, operation) in [("careernet/school-univ_list.json", "SCHOOL"), ("careernet/school-high_list.xml", "SCHOOL"),
                                  ("careernet/major-univ_list.json", "MAJOR"), ("careernet/major-univ_list.xml", "MAJOR"),
                                  ("careernet/job-job_dic_list.json", "JOB"), ("careernet/job-job_dic_list.xml", "JOB"),
                                  ("careernet/error-invalid-key.json", "SCHOOL"), ("careernet/error-invalid-key.xml", "SCHOOL"),
                                  ("careernet/empty.json", "SCHOOL"), ("careernet/empty.xml", "SCHOOL")] {
            #expect(feed.recognition(head: try RecognitionSamples.head(path), format: RecognitionSamples.format(path)) == .shape(operation), "\(path)")
        }
    }

    @Test("no fixture of another feed is taken for a CareerNet list", arguments: RecognitionSamples.fixtures(except: "careernet"))
    func otherFeedsFixtures(path: String) throws {
        let recognition = CareerNetFeed().recognition(head: try RecognitionSamples.head(path), format: RecognitionSamples.format(path))
        #expect(recognition.operation == nil, "\(path): \(recognition)")
    }
}
