import Foundation
import Pipeline

/// Payloads for recognition tests: every fixture of the other feeds, and helpers to judge a
/// payload given as text.
public enum RecognitionSamples {
    /// Every `.json` and `.xml` fixture under `Data/fixtures/<feed>/` for each feed except
    /// `feed`, as `feed/name` paths.
    /// (The schema-drift payloads in `drift/` are `feed`'s when named `feed-…`.)
    public static func fixtures(except feed: String) -> [String] {
        let root = FixturePaths.fixtures
        let feeds = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).filter { $0 != feed }.sorted()
        return feeds.flatMap { directory -> [String] in
            let files = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(directory).path)) ?? []
            // `drift/` holds every feed's schema-drift payloads, each named for its feed.
            return files.filter { ($0.hasSuffix(".json") || $0.hasSuffix(".xml")) && !(directory == "drift" && $0.hasPrefix(feed + "-")) }
                .sorted().map { "\(directory)/\($0)" }
        }
    }

    /// The first 4 KiB of fixture `path` (`feed/name`).
    public static func head(_ path: String) throws -> Data {
        try Data(contentsOf: FixturePaths.fixtures.appendingPathComponent(path)).prefix(4096)
    }

    /// The format a file name says (`.xml` or else JSON).
    public static func format(_ path: String) -> PayloadFormat { path.hasSuffix(".xml") ? .xml : .json }

    /// Whether `recognition` names no shape (a refusal or not the feed's).
    public static func isNoShape(_ recognition: Recognition) -> Bool { recognition.operation == nil }

    /// Whether `recognition` is a refusal whose sentence contains every one of `words`.
    public static func isRefusal(_ recognition: Recognition, naming words: [String] = []) -> Bool {
        guard case .refused(let reason) = recognition else { return false }
        return words.allSatisfy { reason.contains($0) }
    }
}
