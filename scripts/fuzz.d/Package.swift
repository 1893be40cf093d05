// swift-tools-version: 6.1
// Coverage-guided fuzz targets (libFuzzer) for feedline's readers of untrusted bytes and the rules for what it writes. A package
// of its own, so that ordinary builds, tests and CI never build it. Build and run them with
// `scripts/fuzz [SECONDS]`, which builds this package with `-sanitize=fuzzer,address`.
//
// One executable per target; each defines `LLVMFuzzerTestOneInput` and an `@main` that runs
// libFuzzer's driver on it (FuzzDriver). FEEDLINE_PACKAGE_PATH=DIR fuzzes another checkout than ../...
import Foundation
import PackageDescription

let mainPath = ProcessInfo.processInfo.environment["FEEDLINE_PACKAGE_PATH"] ?? "../.."
// A path dependency's identity is the last component of its path, lowercased.
let mainIdentity = URL(fileURLWithPath: mainPath, relativeTo: URL(fileURLWithPath: Context.packageDirectory + "/"))
    .standardizedFileURL.lastPathComponent.lowercased()

let kit = Target.Dependency.product(name: "FeedlineKit", package: mainIdentity)
let app = Target.Dependency.product(name: "FeedlineApp", package: mainIdentity)
let driver = Target.Dependency.target(name: "FuzzDriver")
let readers = Target.Dependency.target(name: "ReaderFuzzing")

let package = Package(
    name: "feedline-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(path: mainPath)],
    targets: [
        // Hands the command line to libFuzzer's driver (see its header).
        .target(name: "FuzzDriver"),
        // The schemas and item touch shared by the two item-reader targets.
        .target(name: "ReaderFuzzing", dependencies: [kit]),
        // XMLItemReader (libxml2 SAX) over an AirKorea-like flat schema and a Saramin-like one named by path.
        .executableTarget(name: "fuzz-xml-items", dependencies: [driver, readers, kit], path: "Sources/XMLItems"),
        // JSONItemReader (one pass) with the AirKorea item paths, and a Saramin-like schema named by path.
        .executableTarget(name: "fuzz-json-items", dependencies: [driver, readers, kit], path: "Sources/JSONItems"),
        // Payload recognition as `feedline replay` does it: sniff the format, ask every feed.
        .executableTarget(name: "fuzz-recognition", dependencies: [driver, kit, app], path: "Sources/Recognition"),
        // The pipeline-file decoder (bounds, YAMLDocument + YAMLDecoder, field checks) through PipelineCatalog.load.
        .executableTarget(name: "fuzz-pipeline-file", dependencies: [driver, kit, app], path: "Sources/PipelineFile"),
        // The cron expression parser, and the next run time of what it accepts.
        .executableTarget(name: "fuzz-cron", dependencies: [driver, kit], path: "Sources/Cron"),
        // `feedline query`'s statement check on an empty feedline database.
        .executableTarget(name: "fuzz-query-check", dependencies: [driver, kit], path: "Sources/QueryCheck"),
        // The rules for what feedline writes: OutputFile (hostile names, whatever stands at the path),
        // ShellText's sh, crontab and systemd quoting, and the pipeline-name rule.
        .executableTarget(name: "fuzz-file-rules", dependencies: [driver, app], path: "Sources/FileRules"),
    ],
    swiftLanguageModes: [.v6]
)
