import AirKorea
import Domain
import Foundation
import Pipeline
import Testing
import TestSupport

/// The real published samples in `../shared/feeds/airkorea-*` (beside the checkout; skipped when
/// absent, e.g. on a clean CI clone). Each decodes — from its bytes alone, as a replayed file
/// would — to the lines in `Data/fixtures/airkorea/published/<sample>.expected`.
///
/// Three samples are not whole payloads and are adapted here, as the notes describe them:
/// - `airkorea-error-gateway-fragments.xml` is two gateway `cmmMsgHeader` bodies separated by a
///   line `or`, with no root element. As published it is malformed; each fragment is then wrapped
///   in `<OpenAPI_ServiceResponse><cmmMsgHeader>…</cmmMsgHeader></OpenAPI_ServiceResponse>`.
/// - `airkorea-realtime-station.xml` stops after its first `</item>`: as published it is
///   truncated (the one complete item streams out before the error); completed with
///   `</items></body></response>` it maps to one row.
/// - `airkorea-legacy-items-2020.json` holds three single items under made-up keys; each is
///   wrapped in a legacy envelope `{"list":[item],"totalCount":1}`.
@Suite("AirKorea published samples", .enabled(if: FileManager.default.fileExists(atPath: FixturePaths.sharedFeeds.path)))
struct PublishedSampleTests {
    static let samples: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: FixturePaths.sharedFeeds.path)) ?? []
        return names.filter { $0.hasPrefix("airkorea-") && ($0.hasSuffix(".json") || $0.hasSuffix(".xml")) }.sorted()
    }()

    static func url(_ name: String) -> URL { FixturePaths.sharedFeeds.appendingPathComponent(name) }

    /// Context a replay would have: the nearby-stations request's query point (echoed in `parm`).
    static func context(for name: String) -> DecodeContext {
        switch name {
        case "airkorea-legacy-nearby-stations.json":
            DecodeContext(request: nil, fallbackParameters: ["tmX": "369036.86549488344", "tmY": "476266.59248414496"])
        default:
            DecodeContext(request: nil)
        }
    }

    /// The golden text for one sample.
    static func golden(_ name: String) throws -> String {
        let file = url(name)
        switch name {
        case "airkorea-error-gateway-fragments.xml":
            var lines = ["# as published (no root element)", AirKoreaFixtures.decode(file).goldenSection]
            let text = try String(contentsOf: file, encoding: .utf8)
            let fragments = text.components(separatedBy: "\nor\n")
            for (index, fragment) in fragments.enumerated() {
                let wrapped = "<OpenAPI_ServiceResponse><cmmMsgHeader>\(fragment)</cmmMsgHeader></OpenAPI_ServiceResponse>"
                let (url, directory) = try temporaryPayload(wrapped, name: "fragment.xml")
                defer { directory.remove() }
                lines += ["# fragment \(index + 1) wrapped in <OpenAPI_ServiceResponse><cmmMsgHeader>", AirKoreaFixtures.decode(url, format: .json).goldenSection]
            }
            return lines.joined(separator: "\n")
        case "airkorea-realtime-station.xml":
            let text = try String(contentsOf: file, encoding: .utf8)
            let (completed, directory) = try temporaryPayload(text + "\n        </items>\n    </body>\n</response>\n", name: "completed.xml")
            defer { directory.remove() }
            return ["# as published (ends after the first </item>)", AirKoreaFixtures.decode(file).goldenSection,
                    "# completed with </items></body></response>", AirKoreaFixtures.decode(completed).goldenSection].joined(separator: "\n")
        case "airkorea-legacy-items-2020.json":
            let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            var lines: [String] = []
            for key in object.keys.sorted() {
                let wrapped = try JSONSerialization.data(withJSONObject: ["list": [object[key]!], "totalCount": 1], options: [.sortedKeys])
                let (url, directory) = try temporaryPayload(String(decoding: wrapped, as: UTF8.self), name: "item.json")
                defer { directory.remove() }
                lines += ["# \(key) in {\"list\":[item],\"totalCount\":1}", AirKoreaFixtures.decode(url).goldenSection]
            }
            return lines.joined(separator: "\n")
        default:
            return AirKoreaFixtures.decode(file, context: context(for: name)).golden
        }
    }

    @Test("every published sample gives its expected rows or typed error", arguments: samples)
    func sample(name: String) throws {
        let expected = AirKoreaFixtures.publishedExpectations.appendingPathComponent(name + ".expected")
        try Golden.verify(try Self.golden(name), against: expected)
    }

    @Test("the expected outcomes of the key samples", arguments: [true])
    func outcomes(_: Bool) throws {
        // Gateway fragments: malformed as published; 01 transient and 30 terminal when wrapped.
        let fragments = AirKoreaFixtures.decode(Self.url("airkorea-error-gateway-fragments.xml"))
        #expect(fragments.feedError?.kind == .malformed)
        let golden = try Self.golden("airkorea-error-gateway-fragments.xml")
        #expect(golden.contains("error kind=api code=01 name=APPLICATION_ERROR retry=transient"))
        #expect(golden.contains("error kind=api code=30 name=SERVICE_KEY_IS_NOT_REGISTERED_ERROR retry=terminal"))

        // The truncated station XML.
        let truncated = AirKoreaFixtures.decode(Self.url("airkorea-realtime-station.xml"))
        #expect(truncated.feedError?.kind == .malformed)
        #expect(truncated.feedError?.retryability == .terminal)

        // Legacy quota error: provider code 22, transient.
        let quota = AirKoreaFixtures.decode(Self.url("airkorea-legacy-error-22.xml"))
        #expect(quota.feedError?.kind == .api(code: "22", name: "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR"))
        #expect(quota.feedError?.retryability == .transient)

        // Empty result: not an error.
        let empty = AirKoreaFixtures.decode(Self.url("airkorea-empty-result.json"))
        #expect(empty.error == nil && empty.summary?.itemCount == 0)

        // Forecast: 10 items, 10 records, all 19 regions on each.
        let forecast = AirKoreaFixtures.decode(Self.url("airkorea-forecast.json"))
        #expect(forecast.sink.records.count == 10)
        for f in forecast.sink.records.compactMap({ $0.as(Forecast.self) }) { #expect(f.regionGrades.count == 19) }
    }

    @Test("the ver 1.0 by-station sample needs the request's stationName: skipped without it, mapped with it")
    func stationNameFromRequest() throws {
        let file = Self.url("airkorea-realtime-station.json")
        let bare = AirKoreaFixtures.decode(file)
        #expect(bare.sink.records.isEmpty)
        #expect(bare.sink.diagnostics.map(\.code.rawValue) == Array(repeating: "missing-station", count: 5))
        #expect(bare.summary == PageSummary(itemCount: 5, reportedTotal: 23, pageNo: 1, numOfRows: 5))

        let named = AirKoreaFixtures.decode(file, context: DecodeContext(request: nil, fallbackParameters: ["stationName": "종로구"]))
        #expect(named.sink.diagnostics.isEmpty)
        guard let first = named.sink.records.first?.as(HourlyMeasurement.self) else { Issue.record("no record"); return }
        #expect(named.sink.records.count == 5)
        #expect(first.stationName == "종로구")
        #expect(first.dataTime == "2023-05-21 10:00")
        #expect(first.slot.hour == 9)
        #expect(first.pm.pm10 == 48 && first.pm.pm25 == 10 && first.o3ppm == 0.048 && first.khai == 66)
    }

    @Test("recognition of the published samples", arguments: [
        ("airkorea-empty-result.json", "getCtprvnRltmMesureDnsty"),
        ("airkorea-error-gateway-fragments.xml", "getCtprvnRltmMesureDnsty"),
        ("airkorea-forecast.json", "getMinuDustFrcstDspth"),
        ("airkorea-legacy-error-22.xml", "getCtprvnRltmMesureDnsty"),
        ("airkorea-legacy-forecast.json", "getMinuDustFrcstDspth"),
        ("airkorea-legacy-nearby-stations.json", "getNearbyMsrstnList"),
        ("airkorea-legacy-realtime-sido.json", "getCtprvnRltmMesureDnsty"),
        ("airkorea-legacy-sido-city-avg.json", "getCtprvnMesureSidoLIst"),  // unsupported: named so decoding refuses it by name
        ("airkorea-legacy-station-list-items.json", "getMsrstnList"),
        ("airkorea-realtime-station.json", "getMsrstnAcctoRltmMesureDnsty"),
        ("airkorea-realtime-station.xml", "getMsrstnAcctoRltmMesureDnsty"),
    ] as [(String, String?)])
    func recognition(name: String, operation: String?) throws {
        let head = try AirKoreaFixtures.head(Self.url(name))
        #expect(AirKoreaFeed().recognise(head: head, format: name.hasSuffix(".json") ? .json : .xml) == operation)
    }

    @Test("recognition of the three legacy 2020 items, each in a legacy envelope")
    func legacyItems() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.url("airkorea-legacy-items-2020.json"))) as? [String: Any])
        let expected = ["getMsrstnAcctoRltmMesureDnsty_item": "getMsrstnAcctoRltmMesureDnsty",
                        "getMinuDustFrcstDspth_item": "getMinuDustFrcstDspth",
                        "getNearbyMsrstnList_item": "getNearbyMsrstnList"]
        #expect(Set(object.keys) == Set(expected.keys))
        for (key, operation) in expected {
            let wrapped = try JSONSerialization.data(withJSONObject: ["list": [object[key]!], "totalCount": 1])
            #expect(AirKoreaFeed().recognise(head: wrapped, format: .json) == operation, "\(key)")
        }
    }
}
