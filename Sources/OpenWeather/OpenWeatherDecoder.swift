import Domain
import FeedCore
import Foundation
import Pipeline

/// Parses one OpenWeather answer — air pollution (`{"coord":…,"list":[…]}`), current weather
/// (`{"coord":…,"weather":[…],"main":{…},…}`) or an error (`{"cod":401,"message":…}`) — read
/// whole in one pass by `JSONItemReader` before anything is delivered, so a cut-off or error
/// answer never leaves part of itself behind.
struct OpenWeatherDecoder {
    /// Where the payload came from, for error messages (redacted URL or file name).
    let origin: String
    /// The location the request asked about, when a request is known.
    let requested: OpenWeatherLocation?

    /// The one reader: the air pollution entries are the items of `list`; everything else
    /// (coordinates, current weather, error answers) is read as envelope leaves by path
    /// (`main/temp`, `weather/0/id`, `coord/0`).
    static let reader = JSONItemReader(schema: AirPollutionMapping.schema, itemPaths: ["list"])

    /// What a payload turned out to hold.
    enum Shape: Equatable {
        case airPollution
        case weather
    }

    /// How the kind of an air pollution answer is known: from the request (or archive) that
    /// fetched it, or inferred for a bare file (`AirPollutionMapping.inferredKind`).
    enum KindSource {
        case declared(AirPollutionKind)
        case inferred(fileName: String, fetchedAt: Date)
    }

    /// Decodes `source`. `expected` is the answer the request asked for (nil: whatever the bytes
    /// hold); `units` the units a weather answer is in.
    func decode<Sink: RecordSink>(_ source: PayloadSource, expected: OpenWeatherEndpoint.Answer?, kind: KindSource, units: OpenWeatherUnits,
                                  into sink: inout Sink) throws -> PageSummary {
        let page = try Self.reader.readPage(source, context: origin)
        let envelope = page.envelope
        sink.observe(envelope.census)
        let leaf = { (path: String) -> String? in envelope.leaves[path] ?? nil }
        guard envelope.objects.contains("") else {
            throw FeedError(.malformed, .terminal, "The JSON is not an object: it is not an OpenWeather answer.", context: origin)
        }
        if OpenWeatherAPIError.isError(cod: leaf("cod")) {
            throw OpenWeatherAPIError.error(cod: leaf("cod"), message: leaf("message"), context: origin)
        }
        let shape: Shape
        if envelope.rootKeys.contains("list") {
            guard envelope.itemArrays.contains("list") else {
                throw FeedError(.malformed, .terminal, "The answer's list is not an array: it is not an OpenWeather air pollution answer.",
                                context: origin)
            }
            shape = .airPollution
        } else if envelope.objects.contains("main") && envelope.rootKeys.contains("dt") {
            shape = .weather
        } else {
            if leaf("message") != nil {
                throw OpenWeatherAPIError.error(cod: leaf("cod"), message: leaf("message"), context: origin)
            }
            throw FeedError(.malformed, .terminal,
                            "The JSON has neither a list (air pollution) nor main and dt (current weather): it is not an OpenWeather answer.",
                            context: origin)
        }
        switch (expected, shape) {
        case (.weather?, .airPollution):
            throw FeedError(.malformed, .terminal, "The request was for current weather, but the answer holds an air pollution list.", context: origin)
        case (.airPollution?, .weather):
            throw FeedError(.malformed, .terminal, "The request was for air pollution, but the answer holds current weather.", context: origin)
        default:
            break
        }

        let hasValues = shape == .weather || !page.elements.isEmpty
        let place = hasValues ? try location(leaf, into: &sink) : nil
        switch shape {
        case .airPollution:
            guard let place else { return PageSummary(itemCount: envelope.itemCount) }
            let items = page.elements.compactMap { element -> ItemFields? in
                if case .item(let item) = element { return item }
                return nil
            }
            let resolved: AirPollutionKind
            switch kind {
            case .declared(let declared): resolved = declared
            case .inferred(let fileName, let fetchedAt):
                let times = items.compactMap { AirPollutionMapping.time(of: $0) }
                resolved = AirPollutionMapping.inferredKind(fileName: fileName, entryTimes: times, fetchedAt: fetchedAt)
            }
            for element in page.elements {
                if case .notObject(let position) = element { sink.diagnose(.notAnObject(position: position, noun: "entry")) }
            }
            for outcome in AirPollutionMapping.map(items, latitude: place.latitude, longitude: place.longitude, kind: resolved) {
                for diagnostic in outcome.diagnostics { sink.diagnose(diagnostic) }
                if let record = outcome.record { try sink.accept(record) }
            }
            return PageSummary(itemCount: envelope.itemCount)
        case .weather:
            // A weather answer always has values, so `location` placed it or threw.
            guard let place else { return PageSummary(itemCount: 1) }
            let outcome = WeatherMapping.map(leaf, latitude: place.latitude, longitude: place.longitude, units: units)
            for diagnostic in outcome.diagnostics { sink.diagnose(diagnostic) }
            if let record = outcome.record { try sink.accept(record) }
            return PageSummary(itemCount: 1)
        }
    }

    // MARK: - Location

    /// The answer's `coord`: `{"lat":…,"lon":…}` or `[lon, lat]`.
    enum Coordinate: Equatable {
        case found(latitude: Double, longitude: Double)
        case absent
        /// Present but unusable; the raw text, for the diagnostic.
        case unusable(String)
    }

    static func coordinate(_ leaf: (String) -> String?) -> Coordinate {
        let number = { (raw: String?) -> Double? in WireValue.standard.text(raw).flatMap { WireValue.decimal($0) } }
        let lat = leaf("coord/lat"), lon = leaf("coord/lon")
        let first = leaf("coord/0"), second = leaf("coord/1")
        let raw: String
        let latitude: Double?, longitude: Double?
        if lat != nil || lon != nil {
            raw = "lat=\(lat ?? "nil") lon=\(lon ?? "nil")"
            latitude = number(lat); longitude = number(lon)
        } else if first != nil || second != nil {
            guard leaf("coord/2") == nil else { return .unusable("[\(first ?? "nil"), \(second ?? "nil"), …]") }
            raw = "[\(first ?? "nil"), \(second ?? "nil")]"
            latitude = number(second); longitude = number(first)  // GeoJSON order: [lon, lat]
        } else {
            return .absent
        }
        guard let latitude, let longitude, OpenWeatherLocation.isValid(latitude: latitude, longitude: longitude) else { return .unusable(raw) }
        return .found(latitude: latitude, longitude: longitude)
    }

    /// The location the values are stored under: the answer's `coord`, else the requested one
    /// (with a diagnostic). Throws when neither is known: the values could not be placed.
    private func location<Sink: RecordSink>(_ leaf: (String) -> String?, into sink: inout Sink) throws -> (latitude: Double, longitude: Double) {
        let raw: String?
        switch Self.coordinate(leaf) {
        case .found(let latitude, let longitude):
            if let requested, abs(requested.latitude - latitude) > 0.01 || abs(requested.longitude - longitude) > 0.01 {
                sink.diagnose(Diagnostic(code: .locationMismatch,
                                         message: "The answer's coord (\(latitude),\(longitude)) is more than 0.01° from the requested \(requested.latitudeText),\(requested.longitudeText); the answer's is stored.",
                                         location: "coord", value: "\(latitude),\(longitude)"))
            }
            return (latitude, longitude)
        case .absent: raw = nil
        case .unusable(let text): raw = text
        }
        guard let requested else {
            throw FeedError(.malformed, .terminal,
                            "The answer has no usable coord\(raw.map { " (\($0))" } ?? "") and no request names its location, so its values cannot be placed.",
                            context: origin)
        }
        sink.diagnose(Diagnostic(code: .missingLocation,
                                 message: "The answer's coord is \(raw == nil ? "missing" : "unusable"); the requested location \(requested.latitudeText),\(requested.longitudeText) is stored.",
                                 location: "coord", value: raw))
        return (requested.latitude, requested.longitude)
    }
}
