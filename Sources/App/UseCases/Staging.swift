import FeedCore
import Foundation
import Pipeline

/// Payloads from files: a pipeline's fixtures, or saved payloads to replay.
extension AppEnvironment {
    /// Fixture files of a pipeline as payloads, in the order listed.
    func stageFixtures(_ pipeline: PipelineDefinition, fixtures: URL) throws -> [StagedPayload] {
        guard let feed = feeds.first(where: { $0.source == pipeline.source }) else {
            throw FeedError(.invalidRequest, .terminal, "No feed named '\(pipeline.source)'.")
        }
        guard !pipeline.fixtures.isEmpty else {
            throw FeedError(.invalidRequest, .terminal, "\(pipeline.file) lists no fixtures, so it cannot run without --live; "
                            + "after a live run, `feedline fixtures add \(pipeline.name) ARCHIVED_FILE` makes one of a payload it archived.")
        }
        return try pipeline.fixtures.map { relative in
            let file: URL
            do throws(ProjectFile.Problem) { file = try ProjectFile.resolve(relative, in: fixtures, what: "fixture file") } catch {
                throw FeedError(.invalidRequest, .terminal, error.kind == .missing ? "Fixture file not found." : "\(error)",
                                context: fixtures.appendingPathComponent(relative).path)
            }
            let head = (try? FileHandle(forReadingFrom: file).readData(ofLength: 4096)) ?? Data()
            try PayloadEncoding.check(head, context: file.path)
            let format = PayloadArchive.sniffFormat(head) ?? pipeline.spec.format
            let operation: String?
            switch feed.recognition(head: head, format: format) {
            case .shape(let recognised): operation = recognised
            case .refused(let reason): throw FeedError(.unrecognised, .terminal, reason, context: file.path)
            case .foreign: operation = nil
            }
            // A fixture made from an archived payload (`feedline fixtures add`) keeps its
            // archive metadata beside it: it replays with the request that fetched it.
            let meta = PayloadArchive.metadata(for: file).flatMap { $0.source == feed.source ? $0 : nil }
            let payload = try PayloadArchive.payload(forFile: file, request: meta?.request, source: feed.source,
                                                     operation: meta?.operation ?? operation, format: format,
                                                     fetchedAt: meta.flatMap { Console.parseISO($0.fetchedAt) } ?? clock())
            return StagedPayload(payload: payload, feed: feed,
                                 context: DecodeContext(request: meta?.request, fallbackParameters: pipeline.fallbackParameters),
                                 archivePath: "fixtures/" + relative)
        }
    }

    /// Works out feed and operation of one file: sidecar metadata, else `--source`, else shape.
    /// With `hashes`, a file unchanged since an earlier replay is not read again (see `FileHashCache`).
    func stageReplay(_ file: URL, sourceHint: String?, parameters: [String: String], hashes: FileHashCache? = nil) throws -> StagedPayload {
        let head = try ReplayFile.head(of: file.path, count: 4096)
        try PayloadEncoding.check(head, context: nil)
        guard let format = PayloadArchive.sniffFormat(head) else {
            throw FeedError(.unrecognised, .terminal, head.isEmpty ? "The file is empty." : "The file is neither XML nor JSON.")
        }
        if let meta = PayloadArchive.metadata(for: file), let feed = feeds.first(where: { $0.source == meta.source }) {
            let payload = try PayloadArchive.payload(forFile: file, request: meta.request, source: meta.source, operation: meta.operation,
                                                     format: format, fetchedAt: Console.parseISO(meta.fetchedAt) ?? clock(), hashes: hashes)
            return StagedPayload(payload: payload, feed: feed, context: DecodeContext(request: meta.request, fallbackParameters: parameters),
                                 archivePath: file.path)
        }
        // Recognition is positive (`Recognition`): the one shape any feed recognises, else a
        // refusal naming the shapes the payload resembles (or the several it matches).
        let candidates = feeds.filter { sourceHint == nil || $0.source == sourceHint }
        let judged = Recognition.combine(candidates.map { ($0.source, $0.recognition(head: head, format: format)) })
        if let judged, let feed = candidates.first(where: { $0.source == judged.source }) {
            switch judged.recognition {
            case .shape(let operation):
                let payload = try PayloadArchive.payload(forFile: file, request: nil, source: feed.source, operation: operation,
                                                         format: format, fetchedAt: clock(), hashes: hashes)
                return StagedPayload(payload: payload, feed: feed, context: DecodeContext(request: nil, fallbackParameters: parameters),
                                     archivePath: file.path)
            case .refused(let reason):
                throw FeedError(.unrecognised, .terminal, reason)
            case .foreign:
                break
            }
        }
        throw FeedError(.unrecognised, .terminal,
                        "Not a payload feedline recognises\(sourceHint.map { " as \($0)" } ?? ""); pass --source NAME if you know its feed.")
    }

}
