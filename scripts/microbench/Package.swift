// swift-tools-version: 6.1
// Micro-benchmarks for feedline. A package of its own, so that ordinary builds, tests
// and CI never build it. Run it with `scripts/microbench/run` (or `scripts/bench --micro`).
//
// It always times the `feedline` binary on small single-file inputs (start-up, hashing,
// parse+map, writes: see Sources/microbench/BinaryBench.swift). The in-process benchmarks of
// the parser and the Domain calculations (InProcessBench.swift) link the main package's
// FeedlineKit library product when FEEDLINE_MICROBENCH_PRODUCT=FeedlineKit (the default of
// scripts/microbench/run); FEEDLINE_PACKAGE_PATH=DIR uses another checkout than ../...
import Foundation
import PackageDescription

let environment = ProcessInfo.processInfo.environment
let libraryProduct = environment["FEEDLINE_MICROBENCH_PRODUCT"].flatMap { $0.isEmpty ? nil : $0 }
let mainPath = environment["FEEDLINE_PACKAGE_PATH"] ?? "../.."
// A path dependency's identity is the last component of its path, lowercased.
let mainIdentity = URL(fileURLWithPath: mainPath, relativeTo: URL(fileURLWithPath: Context.packageDirectory + "/"))
    .standardizedFileURL.lastPathComponent.lowercased()

let package = Package(
    name: "feedline-microbench",
    platforms: [.macOS(.v14)],
    dependencies: libraryProduct == nil ? [] : [.package(path: mainPath)],
    targets: [
        .executableTarget(
            name: "microbench",
            dependencies: libraryProduct.map { [.product(name: $0, package: mainIdentity)] } ?? [],
            swiftSettings: libraryProduct == nil ? [] : [.define("FEEDLINE_LIBS")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
