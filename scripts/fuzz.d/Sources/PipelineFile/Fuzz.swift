// libFuzzer target: the pipeline-file decoder — PipelineCatalog.load on a file holding the
// input bytes (size bound, PipelineFileBounds, UTF-8, YAMLDocument + YAMLDecoder, every field's checks). A
// Problem or Problems thrown is the decoder's answer to a bad file; only crashes, hangs and
// sanitizer reports are failures.
import App
import Foundation
import FuzzDriver
import Pipeline

/// A file per input: in memory (/dev/shm) when there is one, else the temporary directory.
let directory: URL = {
    var isDirectory: ObjCBool = false
    let shm = FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory) && isDirectory.boolValue
        && FileManager.default.isWritableFile(atPath: "/dev/shm")
    let url = URL(fileURLWithPath: shm ? "/dev/shm" : NSTemporaryDirectory())
        .appendingPathComponent("feedline-fuzz-pipeline-\(ProcessInfo.processInfo.processIdentifier)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()
let file = directory.appendingPathComponent("fuzzed.yaml")
let catalog = PipelineCatalog(directory: directory, feeds: AppEnvironment.standardFeeds(variables: [:]),
                              workingDirectory: directory)
/// Keeps the work observable so the optimiser cannot drop it.
nonisolated(unsafe) var sink = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard (try? Data(bytes: data, count: size).write(to: file)) != nil else { fatalError("cannot write \(file.path)") }
    do {
        let pipeline = try catalog.load(file)
        sink &+= pipeline.name.utf8.count &+ pipeline.fixtures.count
    } catch let problem as PipelineCatalog.Problem {
        sink &+= problem.description.utf8.count
    } catch let problems as PipelineCatalog.Problems {
        sink &+= problems.description.utf8.count
    } catch {
        sink &+= 1
    }
    return 0
}

@main enum Main {
    static func main() { exit(feedline_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv)) }
}
