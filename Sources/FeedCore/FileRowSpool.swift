import Foundation
import Pipeline
#if canImport(Glibc)
import Glibc
#endif

/// A live run's spool (`RowSpooling`): the encoded rows of its fetched pages in a temporary file
/// that is unlinked as soon as it is opened, so nothing is left on disk when the run ends, fails
/// or is killed; the file lives while the open descriptor does (until this object is released,
/// with the run's pages). Written once per page and read back once, sequentially, by the load:
/// the kernel's page cache serves the reads of a run that fits in memory.
public final class FileRowSpool: RowSpooling, @unchecked Sendable {
    /// `@unchecked Sendable`: `lock` guards `end`; `pwrite`/`pread` are positional.
    private let descriptor: Int32
    private let lock = NSLock()
    private var end = 0

    /// Opens a new spool file in `directory` (the system's temporary directory by default).
    public init(directory: URL = FileManager.default.temporaryDirectory) throws {
        let path = directory.appendingPathComponent("feedline-spool-\(getpid())-\(UUID().uuidString)").path
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw FeedError(.malformed, .terminal, "cannot create a spool file in \(directory.path): \(String(cString: strerror(errno))); set TMPDIR to a writable directory.")
        }
        unlink(path)
        descriptor = fd
    }

    deinit { close(descriptor) }

    public func append(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        let offset = lock.withLock { defer { end += bytes.count }; return end }
        var done = 0
        while done < bytes.count {
            let wrote = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if wrote < 0 {
                if errno == EINTR { continue }
                throw FeedError(.malformed, .terminal, "cannot write the run's spool file: \(String(cString: strerror(errno))) (is the temporary directory full? set TMPDIR elsewhere).")
            }
            done += wrote
        }
        return offset
    }

    public func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws {
        var done = 0
        while done < buffer.count {
            let got = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                throw FeedError(.malformed, .terminal, "cannot read back the run's spool file: \(got < 0 ? String(cString: strerror(errno)) : "it ended early").")
            }
            done += got
        }
    }
}
