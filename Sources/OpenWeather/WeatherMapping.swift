import Domain
import FeedCore
import Foundation
import Pipeline

/// Turns a current weather answer (its leaves by slash path: `main/temp`, `weather/0/id`,
/// `sys/sunrise`) into a `CurrentWeather`.
///
/// Temperatures are converted to °C and wind speeds to m/s from the `units` the answer is taken
/// to be in; a converted temperature outside −100…70 °C is stored as missing with a diagnostic
/// that names the unit (the likeliest cause is an answer in other units than assumed). Fields
/// every answer carries (`main.temp`, `feels_like`, `pressure`, `humidity`, `wind.speed`,
/// `clouds.all`, `weather`) are noted when missing; optional ones (`temp_min`/`temp_max`,
/// `sea_level`, `grnd_level`, `visibility`, `wind.gust`/`deg`, `rain`, `snow`) are simply
/// missing when absent. OpenWeather leaves `rain` and `snow` out when there is no
/// precipitation (and when it has no value): they are stored as missing, not 0.
enum WeatherMapping {
    /// Temperatures feedline accepts, °C (the records are −89.2 and 56.7).
    static let plausibleCelsius: ClosedRange<Double> = -100...70
    /// Wind speeds feedline accepts, m/s.
    static let plausibleSpeed: ClosedRange<Double> = 0...150
    /// Pressures feedline accepts, hPa (sea level and ground level, mountains included).
    static let plausiblePressure: ClosedRange<Double> = 100...1200
    /// UTC offsets that exist, seconds.
    static let plausibleOffset: ClosedRange<Int> = -50_400...50_400
    static let unbounded: ClosedRange<Double> = 0...Double.greatestFiniteMagnitude

    static func map(_ leaf: (String) -> String?, latitude: Double, longitude: Double, units: OpenWeatherUnits) -> ItemOutcome {
        var reader = FieldValues(notes: ItemDiagnostics(position: 0, noun: "weather"))
        let rawTime = leaf("dt")
        guard let text = reader.text(rawTime) else {
            return reader.notes.skip(.missingValue, field: "dt", value: rawTime, "The answer has no dt, the time it is for; it is skipped.")
        }
        guard let seconds = WireValue.standard.integer(text) else {
            return reader.notes.skip(.unparsableNumber, field: "dt", value: rawTime, "dt is not Unix seconds; the answer is skipped.")
        }
        guard AirPollutionMapping.plausibleSeconds.contains(seconds) else {
            return reader.notes.skip(.outOfRange, field: "dt", value: rawTime, "dt \(text) is outside 2000…2100; the answer is skipped.")
        }
        let time = Date(timeIntervalSince1970: TimeInterval(seconds))
        reader.notes.subject = iso8601UTC(time)

        var w = CurrentWeather(latitude: latitude, longitude: longitude, observedAt: time, units: units)
        w.cityID = reader.integer(leaf("id"), field: "id", in: 0...Int.max, required: false).flatMap { $0 == 0 ? nil : $0 }
        w.cityName = reader.text(leaf("name"))
        w.country = reader.text(leaf("sys/country"))
        w.timezoneOffsetSeconds = reader.integer(leaf("timezone"), field: "timezone", in: plausibleOffset, required: false)

        w.conditions = conditions(leaf, reader: &reader)
        if w.conditions.isEmpty {
            reader.notes.note(.missingValue, field: "weather", value: nil, "The answer has no weather condition; the condition is stored as missing.")
        }

        w.temperatureDelivered = reader.number(leaf("main/temp"), field: "main.temp", in: -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude,
                                               unit: units.temperatureSymbol, required: true)
        w.temperature = celsius(w.temperatureDelivered, raw: leaf("main/temp"), field: "main.temp", units: units, reader: &reader)
        w.feelsLike = temperature(leaf, "main/feels_like", units: units, required: true, reader: &reader)
        w.temperatureMin = temperature(leaf, "main/temp_min", units: units, required: false, reader: &reader)
        w.temperatureMax = temperature(leaf, "main/temp_max", units: units, required: false, reader: &reader)

        w.pressure = reader.number(leaf("main/pressure"), field: "main.pressure", in: plausiblePressure, unit: "hPa", required: true)
        w.seaLevelPressure = reader.number(leaf("main/sea_level"), field: "main.sea_level", in: plausiblePressure, unit: "hPa", required: false)
        w.groundLevelPressure = reader.number(leaf("main/grnd_level"), field: "main.grnd_level", in: plausiblePressure, unit: "hPa", required: false)
        w.humidity = reader.number(leaf("main/humidity"), field: "main.humidity", in: 0...100, unit: "%", required: true)

        w.windSpeed = speed(leaf, "wind/speed", units: units, required: true, reader: &reader)
        w.windGust = speed(leaf, "wind/gust", units: units, required: false, reader: &reader)
        w.windDirection = reader.number(leaf("wind/deg"), field: "wind.deg", in: 0...360, unit: "°", required: false)
        w.cloudiness = reader.number(leaf("clouds/all"), field: "clouds.all", in: 0...100, unit: "%", required: true)
        w.visibility = reader.number(leaf("visibility"), field: "visibility", in: unbounded, unit: "m", required: false)

        w.rain1h = reader.number(leaf("rain/1h"), field: "rain.1h", in: unbounded, unit: "mm", required: false)
        w.rain3h = reader.number(leaf("rain/3h"), field: "rain.3h", in: unbounded, unit: "mm", required: false)
        w.snow1h = reader.number(leaf("snow/1h"), field: "snow.1h", in: unbounded, unit: "mm", required: false)
        w.snow3h = reader.number(leaf("snow/3h"), field: "snow.3h", in: unbounded, unit: "mm", required: false)

        w.sunrise = instant(leaf("sys/sunrise"), field: "sys.sunrise", reader: &reader)
        w.sunset = instant(leaf("sys/sunset"), field: "sys.sunset", reader: &reader)
        return reader.notes.keep(FeedRecord(w))
    }

    /// More conditions than OpenWeather ever sends for one observation (it sends one or two).
    static let maximumConditions = 32

    /// `weather[0]`, `weather[1]` … in order; an entry with none of its four fields ends the list.
    static func conditions(_ leaf: (String) -> String?, reader: inout FieldValues) -> [WeatherCondition] {
        var out: [WeatherCondition] = []
        for index in 0..<Self.maximumConditions {
            let prefix = "weather/\(index)/"
            let raw = ["id", "main", "description", "icon"].map { leaf(prefix + $0) }
            guard raw.contains(where: { $0 != nil }) else { break }
            if index == Self.maximumConditions - 1, leaf("weather/\(index + 1)/id") != nil || leaf("weather/\(index + 1)/main") != nil {
                reader.notes.note(.missingValue, field: "weather", value: nil,
                                  "weather[] holds more than \(Self.maximumConditions) conditions; the ones after the \(Self.maximumConditions)th are not stored.")
            }
            let id = reader.integer(raw[0], field: "weather[\(index)].id", in: 0...Int.max, required: true)
            out.append(WeatherCondition(id: id, main: reader.text(raw[1]), description: reader.text(raw[2]), icon: reader.text(raw[3])))
        }
        return out
    }

    /// The temperature at `path`, in °C.
    static func temperature(_ leaf: (String) -> String?, _ path: String, units: OpenWeatherUnits, required: Bool,
                            reader: inout FieldValues) -> Double? {
        let field = path.replacingOccurrences(of: "/", with: ".")
        let delivered = reader.number(leaf(path), field: field, in: -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude,
                                      unit: units.temperatureSymbol, required: required)
        return celsius(delivered, raw: leaf(path), field: field, units: units, reader: &reader)
    }

    /// `delivered` in °C, or nil (noted) when the result is no temperature the air takes.
    static func celsius(_ delivered: Double?, raw: String?, field: String, units: OpenWeatherUnits, reader: inout FieldValues) -> Double? {
        guard let delivered else { return nil }
        let value = units.celsius(fromDelivered: delivered)
        guard plausibleCelsius.contains(value) else {
            reader.notes.note(.outOfRange, field: field, value: raw,
                              "\(field) \(FieldValues.shortest(delivered)) \(units.temperatureSymbol) is \(FieldValues.shortest(value)) °C, not in −100…70 °C: is the answer in other units than \(units.rawValue)? It is stored as missing.")
            return nil
        }
        return value
    }

    /// The wind speed at `path`, in m/s.
    static func speed(_ leaf: (String) -> String?, _ path: String, units: OpenWeatherUnits, required: Bool, reader: inout FieldValues) -> Double? {
        let field = path.replacingOccurrences(of: "/", with: ".")
        guard let delivered = reader.number(leaf(path), field: field, in: unbounded, unit: units.speedSymbol, required: required) else { return nil }
        let value = units.metresPerSecond(fromDelivered: delivered)
        guard plausibleSpeed.contains(value) else {
            reader.notes.note(.outOfRange, field: field, value: leaf(path),
                              "\(field) \(FieldValues.shortest(delivered)) \(units.speedSymbol) is \(FieldValues.shortest(value)) m/s, not in 0…150 m/s; it is stored as missing.")
            return nil
        }
        return value
    }

    /// Unix seconds as an instant; `0` (OpenWeather's "none", e.g. no sunrise in a polar night)
    /// is nil, and so (noted) is anything outside 2000…2100.
    static func instant(_ raw: String?, field: String, reader: inout FieldValues) -> Date? {
        guard let seconds = reader.integer(raw, field: field, in: Int.min...Int.max, required: false), seconds != 0 else { return nil }
        guard AirPollutionMapping.plausibleSeconds.contains(seconds) else {
            reader.notes.note(.outOfRange, field: field, value: raw, "\(field) \(seconds) is outside 2000…2100; it is stored as missing.")
            return nil
        }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
