import CareerNet
import Foundation
import Pipeline
import Testing
import TestSupport

/// The real CareerNet sample published beside the feed notes (`../shared/feeds`) parses: six
/// university campuses from a dump whose `dataSearch` wrapper was stripped.
@Suite("CareerNet published sample")
struct PublishedSampleTests {
    static let sample = FixturePaths.sharedFeeds.appendingPathComponent("careernet-school-univ_list.json")

    @Test("careernet-school-univ_list.json gives six campuses with verbatim keys and no diagnostics",
          .enabled(if: FileManager.default.fileExists(atPath: sample.path)))
    func universitySample() throws {
        let result = CareerNetFixtures.decode(Self.sample, request: nil)
        #expect(result.error == nil)
        #expect(result.summary?.itemCount == 6)
        #expect(result.summary?.reportedTotal == 444)
        let schools = result.sink.schools
        #expect(schools.count == 6)
        #expect(schools.map(\.key) == ["302.0", "684.0", "964.0", "21004.0", "21005.0", "963.0"])
        #expect(schools.allSatisfy { $0.list == "univ_list" && $0.collegeInfoURL == nil })
        #expect(schools.first { $0.key == "21004.0" }?.campus == "국제캠퍼스")
        #expect(schools.first { $0.key == "963.0" }?.homepage == nil)
        #expect(result.sink.diagnostics.isEmpty)
    }
}
