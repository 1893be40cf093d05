import Foundation
import Pipeline

/// What a live run of one pipeline has fetched and archived so far, kept beside the archive
/// (`ARCHIVE/.resume/<pipeline>.journal`) until the run's load commits. A run that was killed, or
/// whose source failed part-way, leaves it behind; the next run of the same pipeline with the
/// same plan (the same first-page requests) within `window` takes the pages it lists from the
/// archive instead of fetching them again, and fetches only the rest.
///
/// The journal holds digests of requests, archive paths and hashes only — never a URL, a query
/// or a body — so it cannot hold a key. It is one JSON object per line: a header (the plan's
/// digest and when the plan's first run started), then one line per page, appended as each page
/// is archived; a line cut short by a crash is ignored. Pages whose archive file is gone or no
/// longer hashes as recorded are fetched again.
public final class ResumeJournal: @unchecked Sendable {
    /// The journal's file.
    public let file: URL
    /// When the plan's first run started (an older journal of the same plan is not resumed).
    public let planStarted: Date

    private let archive: PayloadArchive
    private let lock = NSLock()
    private var pages: [String: Page]
    private var handle: FileHandle
    private var resumedCount = 0

    struct Header: Codable {
        var journal: Int
        var plan: String
        /// Seconds since 1970.
        var started: Double
    }

    /// One archived page: the digest of its request, the archive file (relative to the archive
    /// root), its hash and when it was fetched.
    struct Page: Codable {
        var request: String
        var file: String
        var sha256: String
        /// Seconds since 1970.
        var fetchedAt: Double
    }

    /// Pages of an interrupted run that are taken from the archive by this run (so far).
    public var resumedPages: Int { lock.withLock { resumedCount } }

    /// Pages listed when the journal was opened: what an interrupted run of the plan left.
    public let pagesFound: Int

    /// Opens (or starts) the journal of `pipeline` for a run whose first-page requests are
    /// `requests`. A journal of another plan, or older than `window`, is started afresh.
    public init(archive: PayloadArchive, pipeline: String, requests: [FeedRequest], window: TimeInterval, now: Date) throws {
        self.archive = archive
        let directory = archive.root.appendingPathComponent(".resume")
        file = directory.appendingPathComponent("\(Self.fileName(for: pipeline)).journal")
        let plan = SHA256.hex(Data(requests.map(Self.identity).joined(separator: "\n").utf8))
        var kept: [String: Page] = [:]
        var started = now
        if let text = try? String(contentsOf: file, encoding: .utf8) {
            let lines = text.split(separator: "\n")
            let decoder = JSONDecoder()
            if let first = lines.first, let header = try? decoder.decode(Header.self, from: Data(first.utf8)),
               header.journal == 1, header.plan == plan, case let began = Date(timeIntervalSince1970: header.started),
               now.timeIntervalSince(began) < window, now >= began {
                started = began
                for line in lines.dropFirst() {
                    if let page = try? decoder.decode(Page.self, from: Data(line.utf8)) { kept[page.request] = page }
                }
            }
        }
        planStarted = started
        pages = kept
        pagesFound = kept.count
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            // Rewritten whole (header and the pages still listed), then appended to page by page.
            var text = String(decoding: try JSONEncoder.sorted.encode(Header(journal: 1, plan: plan, started: started.timeIntervalSince1970)), as: UTF8.self) + "\n"
            for page in kept.values.sorted(by: { $0.file < $1.file }) {
                text += String(decoding: try JSONEncoder.sorted.encode(page), as: UTF8.self) + "\n"
            }
            try Data(text.utf8).write(to: file, options: .atomic)
            handle = try FileHandle(forWritingTo: file)
            try handle.seekToEnd()
        } catch {
            throw FeedError(.malformed, .terminal, "Could not write the run's resume journal: \(error.localizedDescription)", context: file.path)
        }
    }

    deinit { try? handle.close() }

    /// The archived copy of `request`'s page, when an interrupted run of this plan fetched it and
    /// the archive still holds the same bytes; nil otherwise (fetch it).
    public func archived(_ request: FeedRequest) -> RawPayload? {
        guard let page = lock.withLock({ pages[Self.identity(request)] }) else { return nil }
        let url = archive.root.appendingPathComponent(page.file)
        let fetchedAt = Date(timeIntervalSince1970: page.fetchedAt)
        guard let payload = try? PayloadArchive.payload(forFile: url, request: request, source: request.source, operation: request.operation,
                                                        format: nil, fetchedAt: fetchedAt),
              payload.sha256 == page.sha256 else { return nil }
        var archived = payload
        if let metadata = PayloadArchive.metadata(for: url) {
            archived.httpStatus = metadata.httpStatus
            archived.contentType = metadata.contentType
        }
        lock.withLock { resumedCount += 1 }
        return archived
    }

    /// Lists `payload` (just fetched and archived for `request`).
    public func record(_ payload: RawPayload, for request: FeedRequest) throws {
        let rootPath = archive.root.standardizedFileURL.path
        let path = payload.file.standardizedFileURL.path
        guard path.hasPrefix(rootPath + "/") else { return }  // not in the archive: nothing to resume from
        let page = Page(request: Self.identity(request), file: String(path.dropFirst(rootPath.count + 1)),
                        sha256: payload.sha256, fetchedAt: payload.fetchedAt.timeIntervalSince1970)
        try lock.withLock {
            pages[page.request] = page
            do {
                try handle.write(contentsOf: Data((String(decoding: try JSONEncoder.sorted.encode(page), as: UTF8.self) + "\n").utf8))
            } catch {
                throw FeedError(.malformed, .terminal, "Could not write the run's resume journal: \(error.localizedDescription)", context: file.path)
            }
        }
    }

    /// The run's load committed: nothing is left to resume.
    public func finish() {
        lock.withLock { try? handle.close() }
        try? FileManager.default.removeItem(at: file)
    }

    /// What identifies a request: everything that shapes the answer (the key is never part of a
    /// request), as a digest.
    static func identity(_ request: FeedRequest) -> String {
        let query = request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        let headers = request.headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
        return SHA256.hex(Data("\(request.source)\n\(request.operation)\n\(request.baseURL.absoluteString)\n\(query)\n\(headers)\n\(request.format.rawValue)\n\(request.page ?? 0)".utf8))
    }

    /// The pipeline's name when it is a plain name, else a digest of it (the file name never
    /// carries a path or an odd character).
    static func fileName(for pipeline: String) -> String {
        let plain = !pipeline.isEmpty && pipeline.count <= 100 && pipeline.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
        }
        return plain ? pipeline : "pipeline-" + String(SHA256.hex(Data(pipeline.utf8)).prefix(16))
    }
}

/// The fetcher of a resumable live run: a page an interrupted run of the same plan already
/// archived is read from the archive (no request, no quota spent); any other page is fetched
/// through `base` and listed in the journal once it is archived and checked.
public struct ResumingFetcher: PayloadFetching {
    public let base: any PayloadFetching
    public let journal: ResumeJournal

    public init(base: any PayloadFetching, journal: ResumeJournal) {
        self.base = base; self.journal = journal
    }

    public func fetch(_ request: FeedRequest) async throws -> RawPayload {
        if let archived = journal.archived(request) { return archived }
        let payload = try await base.fetch(request)
        try journal.record(payload, for: request)
        return payload
    }
}

private extension JSONEncoder {
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
