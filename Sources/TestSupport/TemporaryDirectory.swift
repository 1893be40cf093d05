import Foundation

/// A fresh directory under the system temp directory, removed on `remove()`.
public struct TemporaryDirectory: Sendable {
    public let url: URL

    public init(_ prefix: String = "feedline-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func path(_ name: String) -> URL { url.appendingPathComponent(name) }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}
