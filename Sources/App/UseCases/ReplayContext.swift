import FeedCore
import Foundation
import Pipeline
import Storage

/// How a payload was first loaded, as the payload index and the run ledger recorded it.
struct FirstLoad: Sendable, Equatable {
    /// The redacted URL of the request it answered (live runs, archived replays), or nil.
    var requestURL: String?
    /// The operation it was read as.
    var operation: String?
    /// When it was fetched (a fixture run: when it ran), as recorded.
    var fetchedAt: Date?
    /// The pipeline of the run that loaded it (`replay` for a replay).
    var pipeline: String
    /// The run's mode (`live`, `fixtures`, `replay`).
    var mode: String
    var run: Int64
}

/// The one rule by which `replay` gives a payload the context it is read under: a payload's
/// rows are a function of the payload and the request it answered, so loading the same bytes
/// again never changes them.
///
/// A file with its archive metadata carries its request and keeps it. A bare file whose bytes
/// were loaded before is read under the context of that first load: its recorded fetch time,
/// and the request recorded in the payload index (`request_url`), else the parameters of the
/// pipeline whose fixture run loaded it; a `--param` that contradicts that context refuses the
/// file (it would change stored rows).
/// A bare file never loaded with a known context must be given the parameters its feed cannot
/// read it without (`Feed.contextParameters(for:fileName:)`, OpenWeather's `units`), or is refused naming
/// them.
struct ReplayContext {
    /// The first load of each content hash that had been loaded when the replay began.
    var firstLoads: [String: FirstLoad]
    /// The pipelines a fixture run may have loaded a payload by, by name.
    var pipelines: () -> [String: PipelineDefinition]

    /// `staged` under the context this rule gives it, or the reason it cannot be loaded.
    func apply(to staged: StagedPayload, explicit: [String: String]) throws -> StagedPayload {
        guard staged.payload.request == nil, staged.context.request == nil else { return staged }
        var result = staged
        let operation = staged.payload.operation ?? ""
        // What the reading infers from the fetch time (an air pollution answer's kind, data
        // timed after its fetch) is inferred from the first load's, not from now.
        if let fetchedAt = firstLoads[staged.payload.sha256]?.fetchedAt { result.payload.fetchedAt = fetchedAt }
        if let first = firstLoads[staged.payload.sha256], let recorded = recordedContext(first, staged: staged) {
            for (name, value) in explicit.sorted(by: { $0.key < $1.key }) {
                guard let was = recorded.parameter(name), was != value else { continue }
                throw FeedError(.invalidRequest, .terminal,
                                "These bytes were first loaded with \(name)=\(was) (\(first.describing)); --param \(name)=\(value) would change their rows. Leave the --param out to load them as first loaded.")
            }
            result.context = DecodeContext(request: recorded.request, fallbackParameters: recorded.fallback.merging(explicit) { _, given in given })
            return result
        }
        let missing = staged.feed.contextParameters(for: operation, fileName: staged.payload.file.lastPathComponent)
            .filter { explicit[$0.name] == nil }
        guard missing.isEmpty else {
            let wanted = missing.map { "--param \($0.name)=… (\($0.values))" }.joined(separator: " and ")
            throw FeedError(.invalidRequest, .terminal,
                            "A bare \(staged.feed.source) \(operation) payload does not say \(missing.map(\.name).joined(separator: ", ")), and these bytes were never loaded with a request that did; pass \(wanted) as it was requested, or replay the archived file with its metadata.")
        }
        return result
    }

    /// The context of `first`: its request, else its fixture pipeline's parameters; nil when the
    /// first load recorded neither (a replay of a bare file).
    private func recordedContext(_ first: FirstLoad, staged: StagedPayload) -> (request: FeedRequest?, fallback: [String: String], parameter: (String) -> String?)? {
        if let text = first.requestURL, let request = Self.request(text, source: staged.feed.source,
                                                                   operation: first.operation ?? staged.payload.operation ?? "",
                                                                   format: staged.payload.format) {
            return (request, [:], { request.parameter($0) })
        }
        if first.mode == RunMode.fixtures.rawValue, let pipeline = pipelines()[first.pipeline], pipeline.source == staged.feed.source {
            let fallback = pipeline.fallbackParameters
            return (nil, fallback, { fallback[$0] })
        }
        return nil
    }

    /// A request rebuilt from its redacted URL: the key's placeholder is left out.
    static func request(_ text: String, source: String, operation: String, format: PayloadFormat) -> FeedRequest? {
        guard var components = URLComponents(string: text), components.host != nil else { return nil }
        let query = (components.queryItems ?? []).filter { $0.value != "REDACTED" }.map { QueryItem($0.name, $0.value ?? "") }
        components.query = nil
        guard let base = components.url else { return nil }
        return FeedRequest(source: source, operation: operation, baseURL: base, query: query, format: format, credential: nil)
    }

    /// The first loads of `hashes` in the database at `paths` (none when it does not exist yet).
    static func firstLoads(of hashes: [String], environment: AppEnvironment, paths: Paths) -> [String: FirstLoad] {
        guard !hashes.isEmpty, let reader = try? environment.openReader(paths) else { return [:] }
        var found: [String: FirstLoad] = [:]
        for hash in Set(hashes) {
            let rows = try? reader.fetchAll(sql: """
                SELECT p.request_url, p.operation, r.pipeline, r.mode, r.id, p.fetched_at FROM payload p JOIN run r ON r.id = p.run_id
                WHERE p.sha256 = :sha
                """, parameters: ["sha": .text(hash)]).rows
            guard let row = rows?.first, row.count == 6 else { continue }
            found[hash] = FirstLoad(requestURL: row[0].text, operation: row[1].text, fetchedAt: row[5].text.flatMap(Console.parseISO),
                                    pipeline: row[2].text ?? "", mode: row[3].text ?? "", run: row[4].integer.map(Int64.init) ?? 0)
        }
        return found
    }
}

extension FirstLoad {
    /// "run #1 of pipeline openweather-weather".
    var describing: String { "run #\(run) of pipeline \(pipeline)" }
}
