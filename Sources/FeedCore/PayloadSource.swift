import Foundation
import Pipeline

/// Where a payload's bytes are read from: the bytes themselves while the fetch stage still
/// holds them (a page just received is parsed without reading its archive copy back), else the
/// payload's file. Every reader takes one, so a feed decodes a fetched page and a replayed file
/// the same way.
public struct PayloadSource: Sendable {
    /// The payload's file (the archive copy, a fixture): where errors point, and where the bytes
    /// are read from when `bytes` is nil.
    public let file: URL
    public let bytes: Data?

    public init(file: URL, bytes: Data? = nil) {
        self.file = file
        self.bytes = bytes
    }

    public init(_ payload: RawPayload) {
        self.init(file: payload.file, bytes: payload.bytes)
    }

    /// The first `count` bytes (fewer when the payload is shorter), to recognise the payload.
    /// Throws a terminal `malformed` error naming `origin` when the file cannot be opened.
    public func head(_ count: Int, origin: String) throws -> Data {
        if let bytes { return Data(bytes.prefix(count)) }  // a copy indexed from 0, as a file's read is
        guard let handle = FileHandle(forReadingAtPath: file.path) else {
            throw FeedError(.malformed, .terminal, "Cannot open the payload file.", context: origin)
        }
        defer { try? handle.close() }
        return handle.readData(ofLength: count)
    }

    /// The last `count` bytes (fewer when the payload is shorter); nil when the file cannot be read.
    func tail(_ count: Int) -> Data? {
        if let bytes { return Data(bytes.suffix(count)) }
        guard let handle = FileHandle(forReadingAtPath: file.path) else { return nil }
        defer { try? handle.close() }
        let size = handle.seekToEndOfFile()
        handle.seek(toFileOffset: size > UInt64(count) ? size - UInt64(count) : 0)
        return handle.readDataToEndOfFile()
    }
}
