import Foundation
import Pipeline

/// Why `feed` refuses to build the requests of `spec`: the message of its terminal
/// invalid-request error; nil when the requests build. Any other error (another kind, a
/// transient one, not a `FeedError`) comes back as a text starting `unexpected:`, so an
/// assertion on the message fails and shows it.
public func invalidRequestMessage(_ feed: any Feed, _ spec: SourceSpec) -> String? {
    do {
        _ = try feed.requests(for: spec)
        return nil
    } catch let error as FeedError where error.kind == .invalidRequest && error.retryability == .terminal {
        return error.message
    } catch {
        return "unexpected: \(error)"
    }
}

extension TemporaryDirectory {
    /// Writes `yaml` as `Pipelines/NAME.yaml` inside the directory and returns `Pipelines`.
    public func writePipeline(_ name: String, _ yaml: String) throws -> URL {
        let directory = path("Pipelines")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try yaml.write(to: directory.appendingPathComponent("\(name).yaml"), atomically: true, encoding: .utf8)
        return directory
    }
}
