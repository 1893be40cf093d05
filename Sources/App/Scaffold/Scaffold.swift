import Foundation

/// What `feedline init DIR` writes: a feedline home that runs offline at once — the example
/// pipelines, the fixture feeds they name, the saved queries and `feedline.yaml` — from copies
/// embedded in the binary (`ScaffoldFiles.swift`, made by `scripts/gen-scaffold`).
public enum Scaffold {
    /// The embedded files, decoded, by path relative to the home.
    public static var files: [(path: String, contents: Data)] {
        embedded.map { ($0.path, Data(base64Encoded: $0.base64) ?? Data()) }
    }

    /// What `create(at:)` did.
    public struct Report: Sendable, Equatable {
        /// Files written, relative to the home.
        public var written: [String] = []
        /// Files already there and left as they were.
        public var kept: [String] = []
    }

    /// Writes the home at `directory` (created if missing, parents too). Existing files are kept
    /// unless `overwrite`, and are replaced through `OutputFile` (never a directory, device,
    /// FIFO or SQLite file); the `Data/` folder is created for the database and archive.
    public static func create(at directory: URL, overwrite: Bool) throws -> Report {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: directory.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw FeedlineHome.Problem(description: "\(directory.path) exists and is not a directory.")
        }
        var report = Report()
        let config = (FeedlineHome.configFileName, Data(FeedlineHome.Config.standard.yaml.utf8))
        for (path, contents) in files + [config] {
            let target = directory.appendingPathComponent(path)
            if fm.fileExists(atPath: target.path) && !overwrite {
                report.kept.append(path)
                continue
            }
            var st = stat()
            if lstat(target.path, &st) == 0 && !overwrite {
                report.kept.append(path)  // a dangling link, kept as it is
                continue
            }
            do throws(OutputFile.Problem) {
                try OutputFile.prepare(target, kind: .projectFile("the file"), database: nil, force: overwrite, makeDirectories: true).write(contents)
            } catch {
                throw FeedlineHome.Problem(description: "\(error)")
            }
            report.written.append(path)
        }
        try? fm.createDirectory(at: directory.appendingPathComponent("Data"), withIntermediateDirectories: true)
        return report
    }
}
