import Foundation

/// One OpenWeather call feedline makes: its operation name and aliases, its path below the API
/// root, the parameters it takes besides the location, and what its answer holds. Adding a
/// call at a location adds a value here, nothing else; `geocode` (place names, not
/// locations) builds its requests and reads its answers on its own path (`OpenWeatherFeed`,
/// `GeocodingDecoder`).
struct OpenWeatherEndpoint: Sendable, Hashable {
    /// Canonical operation name, used in pipelines, the archive and the ledger.
    let operation: String
    /// Other names a pipeline may use.
    let aliases: [String]
    /// Path below the API root (`data/2.5/air_pollution`).
    let path: String
    /// Parameters accepted besides the location (`lat`/`lon` or `coordinates`); for `geocode`,
    /// the parameters it takes instead of one.
    let parameters: [String]
    /// Parameters that must be given.
    let required: [String]
    /// What the answer holds: an air pollution `list` of this kind, current weather, or the
    /// places a name stands for.
    let answer: Answer

    enum Answer: Sendable, Hashable {
        case airPollution(AirPollutionKind)
        case weather
        /// A JSON array of places (`[{"name","local_names","lat","lon","country","state"}]`).
        case places
    }

    static let airPollution = OpenWeatherEndpoint(
        operation: "air-pollution", aliases: ["air-pollution-current", "air_pollution", "current-air-pollution"],
        path: "data/2.5/air_pollution", parameters: [], required: [], answer: .airPollution(.current))
    static let airPollutionForecast = OpenWeatherEndpoint(
        operation: "air-pollution-forecast", aliases: ["air_pollution/forecast", "air_pollution_forecast"],
        path: "data/2.5/air_pollution/forecast", parameters: [], required: [], answer: .airPollution(.forecast))
    static let airPollutionHistory = OpenWeatherEndpoint(
        operation: "air-pollution-history", aliases: ["air_pollution/history", "air_pollution_history"],
        path: "data/2.5/air_pollution/history", parameters: ["start", "end"], required: ["start", "end"], answer: .airPollution(.history))
    static let weather = OpenWeatherEndpoint(
        operation: "current-weather", aliases: ["weather", "weather-current"],
        path: "data/2.5/weather", parameters: ["units", "lang"], required: [], answer: .weather)

    /// Geocoding API, direct: the best match for a place name (`q`, with `limit=1`).
    static let geocode = OpenWeatherEndpoint(
        operation: "geocode", aliases: ["geocoding", "geo/1.0/direct", "geocode-direct", "direct-geocoding"],
        path: "geo/1.0/direct", parameters: ["q"], required: ["q"], answer: .places)

    static let all = [airPollution, airPollutionForecast, airPollutionHistory, weather, geocode]

    /// The endpoint `name` designates (canonical name or alias, case-insensitive), or nil.
    static func named(_ name: String) -> OpenWeatherEndpoint? {
        let wanted = name.trimmingCharacters(in: .whitespaces).lowercased()
        return all.first { $0.operation == wanted || $0.aliases.contains(wanted) }
    }

    /// The endpoint whose answers hold air pollution of `kind`.
    static func airPollution(_ kind: AirPollutionKind) -> OpenWeatherEndpoint {
        switch kind {
        case .current: airPollution
        case .forecast: airPollutionForecast
        case .history: airPollutionHistory
        }
    }
}

/// A point a request asks about, as written in the pipeline (so the request carries the
/// precision its author chose) and as numbers.
struct OpenWeatherLocation: Sendable, Hashable {
    let latitudeText: String
    let longitudeText: String
    let latitude: Double
    let longitude: Double

    /// Whether `latitude`/`longitude` lie on Earth (−90…90, −180…180).
    static func isValid(latitude: Double, longitude: Double) -> Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude) && (-180...180).contains(longitude)
    }

    /// The location in a request's `lat` and `lon` parameters, or nil.
    static func of(latitude lat: String?, longitude lon: String?) -> OpenWeatherLocation? {
        guard let lat, let lon, let latitude = Double(lat), let longitude = Double(lon),
              isValid(latitude: latitude, longitude: longitude) else { return nil }
        return OpenWeatherLocation(latitudeText: lat, longitudeText: lon, latitude: latitude, longitude: longitude)
    }

    /// The locations a pipeline names: `lat` and `lon` (a value each, or two lists paired in
    /// order), or `coordinates` (`"lat,lon"` strings). Throws a sentence saying what is wrong.
    static func locations(lat: [String]?, lon: [String]?, coordinates: [String]?, operation: String) throws -> [OpenWeatherLocation] {
        func fail(_ text: String) -> LocationProblem { LocationProblem(message: text) }
        if coordinates != nil, lat != nil || lon != nil {
            throw fail("\(operation) takes its locations from lat and lon or from coordinates, not both; keep one.")
        }
        var pairs: [(lat: String, lon: String, label: String)] = []
        if let coordinates {
            for entry in coordinates {
                let parts = entry.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2 else {
                    throw fail("The coordinates entry “\(entry)” of \(operation) is not “lat,lon” (e.g. \"37.5665,126.9780\").")
                }
                pairs.append((parts[0], parts[1], "coordinates entry “\(entry)”"))
            }
        } else {
            guard let lat, let lon else {
                if lat == nil && lon == nil {
                    throw fail("\(operation) needs a location: lat and lon (e.g. lat: \"37.5665\", lon: \"126.9780\"), or coordinates (a list of \"lat,lon\").")
                }
                throw fail("\(operation) needs both lat and lon; only \(lat == nil ? "lon" : "lat") is given.")
            }
            guard lat.count == lon.count else {
                throw fail("lat lists \(lat.count) value\(lat.count == 1 ? "" : "s") and lon \(lon.count): \(operation) pairs them in order, so they must list as many; or use coordinates.")
            }
            for (a, b) in zip(lat, lon) {
                let (a, b) = (a.trimmingCharacters(in: .whitespaces), b.trimmingCharacters(in: .whitespaces))
                pairs.append((a, b, "lat “\(a)”, lon “\(b)”"))
            }
        }
        var seen: Set<String> = []
        return try pairs.map { pair in
            guard let latitude = Double(pair.lat), latitude.isFinite, (-90...90).contains(latitude) else {
                throw fail("The latitude “\(pair.lat)” (\(pair.label)) of \(operation) is not a number in −90…90.")
            }
            guard let longitude = Double(pair.lon), longitude.isFinite, (-180...180).contains(longitude) else {
                throw fail("The longitude “\(pair.lon)” (\(pair.label)) of \(operation) is not a number in −180…180.")
            }
            guard seen.insert("\(latitude),\(longitude)").inserted else {
                throw fail("The location \(pair.lat),\(pair.lon) is listed twice for \(operation); list each location once.")
            }
            return OpenWeatherLocation(latitudeText: pair.lat, longitudeText: pair.lon, latitude: latitude, longitude: longitude)
        }
    }

    struct LocationProblem: Error {
        let message: String
    }
}
