import FeedCore
import Foundation
import Pipeline
import Testing
import TestSupport

/// A live run's spool file: bytes come back as written, at the offsets it gave, and nothing of
/// it is ever visible in its directory (it is unlinked as soon as it is opened).
@Suite struct FileRowSpoolTests {
    @Test func bytesComeBackAtTheirOffsetsAndNoFileIsLeft() throws {
        let dir = try TemporaryDirectory("spool")
        defer { dir.remove() }
        let pages = (0..<50).map { page in (0..<(page * 997 % 70_000)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ page) } }
        var offsets: [Int] = []
        do {
            let spool = try FileRowSpool(directory: dir.url)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).isEmpty)
            for page in pages { offsets.append(try page.withUnsafeBytes { try spool.append($0) }) }
            for (page, offset) in zip(pages, offsets).reversed() {
                var back = [UInt8](repeating: 0, count: page.count)
                try back.withUnsafeMutableBytes { try spool.read(at: offset, into: $0) }
                #expect(back == page)
            }
            // Reading past what was written is an error, not zeros.
            var beyond = [UInt8](repeating: 0, count: 10)
            #expect(throws: FeedError.self) { try beyond.withUnsafeMutableBytes { try spool.read(at: offsets.last! + pages.last!.count, into: $0) } }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).isEmpty)
    }

    @Test func aDirectoryThatCannotHoldTheSpoolIsAClearError() {
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)")
        let error = #expect(throws: FeedError.self) { _ = try FileRowSpool(directory: missing) }
        #expect(error?.message.contains("TMPDIR") == true)
    }
}
