// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "feedline",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "feedline", targets: ["feedline"]),
        // The layers below the CLI, for scripts/microbench's in-process timings (and embedding).
        .library(name: "FeedlineKit", targets: ["Domain", "Pipeline", "FeedCore", "AirKorea", "Storage"]),
        // The commands' layer (pipeline files, the catalog), for scripts/fuzz.d's fuzz targets.
        .library(name: "FeedlineApp", targets: ["App"]),
    ],
    // `swift build --traits PostgreSQL` adds the PostgreSQL store (postgres-nio: a long first build).
    traits: [
        .trait(name: "PostgreSQL", description: "The PostgreSQL store (postgres://… for --db), through vapor/postgres-nio."),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.25.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // Pure calculations and the values they need: no networking, XML, SQLite or logging.
        .target(name: "Domain", exclude: ["README.md"]),
        // Stage types, the runner's contracts and the ports the outer layers implement.
        .target(name: "Pipeline", dependencies: ["Domain"], exclude: ["README.md", "Schema/README.md"]),
        // libxml2, for the streaming SAX reader in FeedCore.
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // SHA-256 block compression in C: the x86 SHA instructions when present, portable C otherwise.
        .target(name: "CSHA256"),
        // glibc's memmem (a GNU extension Swift's Glibc module leaves out).
        .target(name: "CBytes"),
        // One HTTP GET over libcurl's easy interface (`curl_easy_setopt` is variadic: C only).
        // libcurl is opened with dlopen on the first request (libcurl4 at run time; the headers
        // of libcurl4-openssl-dev to build): nothing else maps its ~30 libraries.
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("dl")]),
        // What every feed shares: HTTP transport, archive-ready payloads, XML/JSON readers, errors.
        .target(name: "FeedCore", dependencies: ["Domain", "Pipeline", "CLibXML2", "CSHA256", "CCurl", "CBytes"], exclude: ["README.md"]),
        // AirKorea (data.go.kr B552584) realtime, station, forecast, statistics and PM-alert endpoints.
        .target(name: "AirKorea", dependencies: ["Domain", "Pipeline", "FeedCore"]),
        // CareerNet (career.go.kr getOpenApi) school, major and job-dictionary lists.
        .target(name: "CareerNet", dependencies: ["Domain", "Pipeline", "FeedCore"]),
        // Saramin job-search postings.
        .target(name: "Saramin", dependencies: ["Domain", "Pipeline", "FeedCore"]),
        // OpenWeather air pollution (current, forecast, history) and current weather, by coordinates.
        .target(name: "OpenWeather", dependencies: ["Domain", "Pipeline", "FeedCore"]),
        // OpenAQ v3 locations, sensors, latest values and hourly averages (key in the X-API-Key header).
        .target(name: "OpenAQ", dependencies: ["Domain", "Pipeline", "FeedCore"]),
        // Process-wide SQLite settings that only C can make (`sqlite3_config` is variadic).
        // Process settings Swift cannot make: malloc's (malloc.h is not in Swift's Glibc module), prctl (variadic).
        .target(name: "CProcess"),
        // SQLite through GRDB: migrations, stores, ledger.
        .target(name: "Storage", dependencies: ["Domain", "Pipeline", .product(name: "GRDB", package: "GRDB.swift")],
                exclude: ["README.md"]),
        // PostgreSQL through postgres-nio: the same ports as Storage. Empty unless built with the
        // PostgreSQL trait.
        .target(name: "PostgresStorage", dependencies: [
            "Domain", "Pipeline",
            .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["PostgreSQL"])),
            .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["PostgreSQL"])),
            .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["PostgreSQL"])),
            .product(name: "Logging", package: "swift-log", condition: .when(traits: ["PostgreSQL"])),
        ], exclude: ["README.md"]),
        // The composition root and the commands.
        .target(name: "App", dependencies: [
            "Domain", "Pipeline", "FeedCore", "AirKorea", "CareerNet", "Saramin", "OpenWeather", "OpenAQ", "Storage", "PostgresStorage", "CProcess",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Yams", package: "Yams"),
        ], exclude: ["README.md", "Checks/README.md", "Schedule/README.md"]),
        .executableTarget(name: "feedline", dependencies: ["App", "CProcess"]),
        // Fixture paths, a loopback HTTP server and temporary databases, for tests only.
        .target(name: "TestSupport", dependencies: ["App", "Domain", "Pipeline", "FeedCore", "Storage", "PostgresStorage", "AirKorea", "CareerNet", "Saramin", "OpenWeather", "OpenAQ",
                                                   .product(name: "GRDB", package: "GRDB.swift"),
                                                   .product(name: "Logging", package: "swift-log")]),

        .testTarget(name: "DomainTests", dependencies: [
            "Domain", .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "AirKoreaTests", dependencies: [
            "AirKorea", "App", "Storage", "FeedCore", "Pipeline", "Domain", "TestSupport",
            .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "CareerNetTests", dependencies: ["CareerNet", "FeedCore", "Pipeline", "Domain", "TestSupport"]),
        .testTarget(name: "SaraminTests", dependencies: ["Saramin", "FeedCore", "Pipeline", "Domain", "TestSupport"]),
        .testTarget(name: "OpenWeatherTests", dependencies: [
            "OpenWeather", "App", "Storage", "FeedCore", "Pipeline", "Domain", "TestSupport",
            .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "OpenAQTests", dependencies: [
            "OpenAQ", "App", "Storage", "FeedCore", "Pipeline", "Domain", "TestSupport",
            .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        // PostgreSQL URLs in every build; the store itself against a real server with the trait
        // (FEEDLINE_TEST_POSTGRES_URL, set by scripts/test).
        .testTarget(name: "PostgresStorageTests", dependencies: [
            "PostgresStorage", "App", "Storage", "Pipeline", "Domain", "TestSupport",
            .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "PipelineTests", dependencies: ["Pipeline", "Domain", .product(name: "PropertyBased", package: "swift-property-based")]),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "AirKorea", "Pipeline", "Domain", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                                                       .product(name: "PropertyBased", package: "swift-property-based")]),
        .testTarget(name: "AppTests", dependencies: ["App", "Storage", "FeedCore", "CSHA256", "AirKorea", "CareerNet", "Saramin", "Pipeline", "Domain", "TestSupport",
            .product(name: "Logging", package: "swift-log"), .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "PropertyBased", package: "swift-property-based")]),
        .testTarget(name: "ReliabilityTests", dependencies: ["App", "Storage", "FeedCore", "AirKorea", "Pipeline", "Domain", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log")]),
    ],
    swiftLanguageModes: [.v6]
)
