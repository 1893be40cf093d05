import Domain
import Foundation
import Pipeline

// MARK: - Air pollution

/// Which OpenWeather air pollution call a reading came from. Part of the reading's natural key,
/// so a forecast for an hour never overwrites the current or historical value of that hour.
public enum AirPollutionKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// `/data/2.5/air_pollution`: the value for now.
    case current
    /// `/data/2.5/air_pollution/forecast`: hourly values ahead (about four days).
    case forecast
    /// `/data/2.5/air_pollution/history`: hourly values of a past range.
    case history
}

/// The eight concentrations of one OpenWeather air pollution entry (`components`), all µg/m³
/// (CO included, unlike AirKorea's ppm). nil when the entry did not carry a usable value.
public struct AirPollutionComponents: Sendable, Hashable {
    /// Carbon monoxide, µg/m³.
    public var co: Double?
    /// Nitrogen monoxide, µg/m³ (does not count towards `aqi`).
    public var no: Double?
    /// Nitrogen dioxide, µg/m³.
    public var no2: Double?
    /// Ozone, µg/m³.
    public var o3: Double?
    /// Sulphur dioxide, µg/m³.
    public var so2: Double?
    /// PM2.5 (`pm2_5`), µg/m³.
    public var pm2_5: Double?
    /// PM10, µg/m³.
    public var pm10: Double?
    /// Ammonia, µg/m³ (does not count towards `aqi`).
    public var nh3: Double?

    public init(co: Double? = nil, no: Double? = nil, no2: Double? = nil, o3: Double? = nil, so2: Double? = nil,
                pm2_5: Double? = nil, pm10: Double? = nil, nh3: Double? = nil) {
        self.co = co; self.no = no; self.no2 = no2; self.o3 = o3; self.so2 = so2
        self.pm2_5 = pm2_5; self.pm10 = pm10; self.nh3 = nh3
    }

    /// The wire names in the order OpenWeather documents them, with their key paths.
    public static var fields: [(name: String, path: WritableKeyPath<AirPollutionComponents, Double?>)] { [
        ("co", \.co), ("no", \.no), ("no2", \.no2), ("o3", \.o3), ("so2", \.so2), ("pm2_5", \.pm2_5), ("pm10", \.pm10), ("nh3", \.nh3),
    ] }
}

/// One entry of an OpenWeather air pollution answer: a location's modelled air quality at one
/// hour. Produced by `OpenWeatherFeed.decode`; stored in `openweather_air_pollution` by
/// `OpenWeatherTables`.
///
/// Natural key: (latitude, longitude, observed_at, kind).
public struct AirPollutionReading: LoadableRecord {
    /// Degrees north, −90…90, as the answer's `coord` gave it (else as requested).
    public var latitude: Double
    /// Degrees east, −180…180.
    public var longitude: Double
    /// `dt`: the hour the values are for, UTC.
    public var observedAt: Date
    public var kind: AirPollutionKind
    /// `main.aqi` as delivered: OpenWeather's own 1–5 scale (1 Good … 5 Very Poor), not the
    /// Korean CAI nor the US AQI.
    public var aqi: Int?
    public var components: AirPollutionComponents

    public init(latitude: Double, longitude: Double, observedAt: Date, kind: AirPollutionKind, aqi: Int?,
                components: AirPollutionComponents) {
        self.latitude = latitude; self.longitude = longitude; self.observedAt = observedAt; self.kind = kind
        self.aqi = aqi; self.components = components
    }

    /// The hour a current or historical value covers (the pipeline's `newest_observed_at`
    /// bookmark follows it); nil for forecasts, which observe nothing yet.
    public var observedSlot: HourSlot? { kind == .forecast ? nil : HourSlot(containing: observedAt) }
}

// MARK: - Current weather

/// One entry of a current weather answer's `weather` array: a condition code and its words.
public struct WeatherCondition: Sendable, Hashable {
    /// Condition code (`501` moderate rain, `800` clear sky …).
    public var id: Int?
    /// Group (`Rain`, `Clear` …).
    public var main: String?
    /// Description, in the language the request asked for (`lang`).
    public var description: String?
    /// Icon id (`10d`).
    public var icon: String?

    public init(id: Int? = nil, main: String? = nil, description: String? = nil, icon: String? = nil) {
        self.id = id; self.main = main; self.description = description; self.icon = icon
    }
}

/// One OpenWeather current weather answer (`/data/2.5/weather`) for one location, with
/// temperatures in °C and wind speeds in m/s whatever `units` the request used. Produced by
/// `OpenWeatherFeed.decode`; stored in `openweather_weather` (+ `openweather_weather_condition`).
///
/// Natural key: (latitude, longitude, observed_at).
public struct CurrentWeather: LoadableRecord {
    /// Degrees north and east, as the answer's `coord` gave them (else as requested).
    public var latitude: Double
    public var longitude: Double
    /// `dt`: when the values were calculated, UTC.
    public var observedAt: Date
    /// OpenWeather's city id and name and `sys.country`; nil when the answer names no city
    /// (`id` 0 and an empty name, as for points far from any).
    public var cityID: Int?
    public var cityName: String?
    public var country: String?
    /// `timezone`: seconds east of UTC at the location (32400 for KST).
    public var timezoneOffsetSeconds: Int?
    /// `weather[]` in published order; the first is the primary condition.
    public var conditions: [WeatherCondition]
    /// The units the answer came in (from the request; `standard` when it named none).
    public var units: OpenWeatherUnits
    /// `main.temp` as delivered, in `units.temperatureSymbol`.
    public var temperatureDelivered: Double?
    /// `main.temp`, `feels_like`, `temp_min`, `temp_max` in °C.
    public var temperature: Double?
    public var feelsLike: Double?
    public var temperatureMin: Double?
    public var temperatureMax: Double?
    /// `main.pressure`, `sea_level`, `grnd_level`, hPa.
    public var pressure: Double?
    public var seaLevelPressure: Double?
    public var groundLevelPressure: Double?
    /// `main.humidity`, %.
    public var humidity: Double?
    /// `wind.speed` and `wind.gust` in m/s; `wind.deg` in degrees (meteorological: where the
    /// wind comes from).
    public var windSpeed: Double?
    public var windGust: Double?
    public var windDirection: Double?
    /// `clouds.all`, %.
    public var cloudiness: Double?
    /// `visibility`, metres (OpenWeather caps it at 10,000).
    public var visibility: Double?
    /// `rain.1h`, `rain.3h`, `snow.1h`, `snow.3h`, mm; nil when the answer leaves them out.
    public var rain1h: Double?
    public var rain3h: Double?
    public var snow1h: Double?
    public var snow3h: Double?
    /// `sys.sunrise`, `sys.sunset`, UTC.
    public var sunrise: Date?
    public var sunset: Date?

    public init(latitude: Double, longitude: Double, observedAt: Date, units: OpenWeatherUnits) {
        self.latitude = latitude; self.longitude = longitude; self.observedAt = observedAt; self.units = units
        conditions = []
    }

    /// The hour the answer was calculated in (the pipeline's `newest_observed_at` bookmark
    /// follows it).
    public var observedSlot: HourSlot? { HourSlot(containing: observedAt) }
}

// MARK: - Geocoding

/// A place name resolved by the Geocoding API (`/geo/1.0/direct?q=…&limit=1`): the best match,
/// kept under the `q` it answers. Produced by `OpenWeatherFeed.decode` (`GeocodingDecoder`);
/// stored in `place` by `OpenWeatherTables`, which raises the pipeline's `place_<q>` bookmark
/// so the name is not asked again.
///
/// Natural key: query.
public struct GeocodedPlace: LoadableRecord {
    /// The `q` asked, trimmed (`Jongno-gu,KR`).
    public var query: String
    /// `name`: OpenWeather's name of the place (`Jongno-gu`).
    public var name: String?
    /// `local_names.ko`: its Korean name, when the answer has one (`종로구`).
    public var localNameKo: String?
    /// `country`: ISO 3166 country code (`KR`).
    public var country: String?
    /// `state`: the state or province, when the answer names one.
    public var state: String?
    /// `lat`, `lon`: degrees north (−90…90) and east (−180…180).
    public var latitude: Double
    public var longitude: Double
    /// When the answer was fetched (for a fixture or a bare file: when it was read).
    public var resolvedAt: Date

    public init(query: String, name: String?, localNameKo: String?, country: String?, state: String?,
                latitude: Double, longitude: Double, resolvedAt: Date) {
        self.query = query; self.name = name; self.localNameKo = localNameKo; self.country = country; self.state = state
        self.latitude = latitude; self.longitude = longitude; self.resolvedAt = resolvedAt
    }
}
