import Foundation
import Pipeline
import Saramin
import Testing
import TestSupport

/// The real Saramin answer published beside the feed notes (`../shared/feeds`) parses: five
/// postings, two with "no deadline" sentinels, one salary without a name.
@Suite("Saramin published sample")
struct PublishedSampleTests {
    static let samplePath = FixturePaths.sharedFeeds.appendingPathComponent("saramin-job-search.json")

    @Test("saramin-job-search.json gives its 5 postings", .enabled(if: FileManager.default.fileExists(atPath: samplePath.path)))
    func fivePostings() throws {
        let result = SaraminFixtures.decode(Self.samplePath, request: nil)
        #expect(result.error == nil)
        #expect(result.summary?.itemCount == 5 && result.summary?.reportedTotal == 28327)
        let postings = result.sink.postings
        #expect(postings.map(\.id) == ["41232704", "41232703", "41232680", "41232511", "41232649"])
        #expect(postings.filter(\.openEnded).map(\.id) == ["41232680", "41232511", "41232649"])
        #expect(postings.allSatisfy { $0.active == true && $0.modifiedAt != nil && !$0.locations.isEmpty })
        #expect(result.sink.diagnostics.map(\.code.rawValue) == ["missing-value"])  // the salary without a name
    }
}
