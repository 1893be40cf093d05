import Domain
import Foundation
import Pipeline

/// The raw-payload archive: every fetched body is written here before it is parsed, as
/// `ROOT/<source>/<operation>/<YYYY-MM-DD>/<sha256>.<xml|json>` beside a `<sha256>.meta.json`
/// holding the (redacted) request, time, status and content type. `feedline replay ROOT`
/// re-runs parse → load from it with no network.
public struct PayloadArchive: Sendable {
    public let root: URL

    public init(root: URL) { self.root = root }

    /// Sidecar metadata written beside each archived payload (the request without a password
    /// in its base URL, `FeedRequest.redacted`).
    public struct Metadata: Codable, Sendable {
        public var source: String
        public var operation: String
        public var format: PayloadFormat
        public var request: FeedRequest
        public var requestURL: String
        public var fetchedAt: String
        public var httpStatus: Int?
        public var contentType: String?
        public var sha256: String
        public var byteCount: Int
    }

    /// Writes `body` and its metadata; returns the payload pointing at the archived file.
    public func store(_ body: Data, request: FeedRequest, fetchedAt: Date, httpStatus: Int?, contentType: String?) throws -> RawPayload {
        let sha = SHA256.hex(body)
        let format = Self.sniffFormat(body) ?? request.format
        let day = HourSlot(containing: fetchedAt).date.description
        let directory = root.appendingPathComponent(request.source).appendingPathComponent(request.operation).appendingPathComponent(day)
        let file = directory.appendingPathComponent("\(sha).\(format.fileExtension)")
        let meta = directory.appendingPathComponent("\(sha).meta.json")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: file.path) { try body.write(to: file, options: .atomic) }
            let metadata = Metadata(source: request.source, operation: request.operation, format: format, request: request.redacted,
                                    requestURL: request.displayURL, fetchedAt: iso8601UTC(fetchedAt), httpStatus: httpStatus,
                                    contentType: contentType, sha256: sha, byteCount: body.count)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try encoder.encode(metadata).write(to: meta, options: .atomic)
        } catch {
            throw FeedError(.malformed, .terminal, "Could not write the payload archive: \(error.localizedDescription)", context: directory.path)
        }
        return RawPayload(file: file, request: request, source: request.source, operation: request.operation, format: format,
                          fetchedAt: fetchedAt, httpStatus: httpStatus, contentType: contentType, sha256: sha, byteCount: body.count)
    }

    /// Reads the sidecar beside an archived payload, if there is one: a regular file of at most
    /// 1 MiB (a FIFO or a device of that name is never opened, so it cannot hang a replay).
    public static func metadata(for file: URL) -> Metadata? {
        let name = file.deletingPathExtension().lastPathComponent
        let meta = file.deletingLastPathComponent().appendingPathComponent("\(name).meta.json")
        var info = stat()
        guard stat(meta.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= 1 << 20,
              let data = try? Data(contentsOf: meta) else { return nil }
        return try? JSONDecoder().decode(Metadata.self, from: data)
    }

    /// XML or JSON from the first non-blank byte (`<` or `{`/`[`), nil if neither.
    public static func sniffFormat(_ head: Data) -> PayloadFormat? {
        var bytes = head.prefix(512).makeIterator()
        var first = bytes.next()
        if first == 0xEF { _ = bytes.next(); _ = bytes.next(); first = bytes.next() }  // UTF-8 BOM
        while let b = first, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { first = bytes.next() }
        switch first {
        case UInt8(ascii: "<"): return .xml
        case UInt8(ascii: "{"), UInt8(ascii: "["): return .json
        default: return nil
        }
    }

    /// A payload for a file already on disk (fixture or replay), hashing it in chunks. A UTF-16
    /// or UTF-32 file is refused, as a live answer is (`PayloadEncoding`).
    /// With `hashes`, a file whose identity is unchanged since an earlier replay hashed it is not
    /// read at all (its remembered hash is used), and a file hashed here is remembered.
    public static func payload(forFile file: URL, request: FeedRequest?, source: String?, operation: String?,
                               format: PayloadFormat?, fetchedAt: Date, hashes: FileHashCache? = nil) throws -> RawPayload {
        let fd = open(file.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw FeedError(.malformed, .terminal, "Cannot open the file.", context: file.path)
        }
        defer { close(fd) }
        var before = stat()
        let identity = hashes != nil && fstat(fd, &before) == 0 ? FileHashCache.Identity(before) : nil
        if let hashes, let identity, let format, let known = hashes.sha256(of: file, identity: identity) {
            return RawPayload(file: file, request: request, source: source, operation: operation, format: format,
                              fetchedAt: fetchedAt, sha256: known, byteCount: Int(identity.size))
        }
        let hashedAt = FileHashCache.now()
        // One buffer, reused for every read: a fresh `Data` per chunk costs a page fault per 4 KiB,
        // which was most of the time of re-checking an already loaded archive. 64 KiB with the
        // default alignment is an ordinary heap block that the next file reuses: a larger block
        // is mapped and unmapped per file (and raises glibc's mmap threshold), and an over-aligned
        // one left a fragment behind per file, so memory grew with the number of files.
        let capacity = 64 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        var hasher = SHA256()
        var size = 0
        var head = Data()
        while true {
            let count = read(fd, buffer.baseAddress, capacity)
            if count < 0 {
                if errno == EINTR { continue }
                throw FeedError(.malformed, .terminal, "Cannot read the file: \(String(cString: strerror(errno))).", context: file.path)
            }
            if count == 0 { break }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            if head.count < 4096 { head.append(contentsOf: chunk.prefix(4096 - head.count)) }
            hasher.update(chunk)
            size += count
        }
        try PayloadEncoding.check(head, context: file.path)
        guard let detected = format ?? sniffFormat(head) ?? formatFromExtension(file) else {
            throw FeedError(.unrecognised, .terminal, "Neither XML nor JSON.", context: file.path)
        }
        let sha256 = hasher.hexDigest()
        var after = stat()
        if let hashes, let identity, fstat(fd, &after) == 0, FileHashCache.Identity(after) == identity, Int(identity.size) == size {
            hashes.remember(file, identity: identity, sha256: sha256, hashedAt: hashedAt)
        }
        return RawPayload(file: file, request: request, source: source, operation: operation, format: detected,
                          fetchedAt: fetchedAt, sha256: sha256, byteCount: size)
    }

    static func formatFromExtension(_ file: URL) -> PayloadFormat? {
        PayloadFormat(rawValue: file.pathExtension.lowercased())
    }
}
