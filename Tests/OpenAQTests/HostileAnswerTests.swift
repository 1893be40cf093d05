import Foundation
import OpenAQ
import Pipeline
import Testing
import TestSupport

/// Answers and bookmarks no honest OpenAQ would send still end in a clear result, never a trap.
@Suite struct HostileAnswerTests {
    @Test(arguments: [
        #"{"meta":{"9223372036854775807":1},"results":[]}"#,
        #"{"meta":{"found":0},"results":[{"id":1,"sensors":{"2000000000":{}}}]}"#,
        #"{"detail":{"99999999999":"x"}}"#,
    ])
    func numericKeysAreKeysNotArrayIndices(_ body: String) throws {
        let (url, directory) = try temporaryPayload(body)
        defer { directory.remove() }
        let result = DecodeResult.decoding(url, with: OpenAQFixtures.feed, request: nil, fetchedAt: OpenAQFixtures.fetchedAt)
        #expect(result.summary != nil || result.feedError != nil, "neither a page nor a clear error: \(String(describing: result.error))")
    }

    @Test func aResumePointOutsideAnyPlausibleTimeIsRefusedNotComputed() {
        let spec = SourceSpec(operation: "sensor-hours", parameters: [
            ("sensors_id", ["3920"]), ("datetime_from", ["2024-03-01T00:00:00Z"]), ("resume_after", ["3920:9223372036854775000"]),
        ], format: .json, pageSize: 1000, maxPages: 10)
        #expect(throws: FeedError.self) { try OpenAQFixtures.feed.requests(for: spec) }
    }
}
