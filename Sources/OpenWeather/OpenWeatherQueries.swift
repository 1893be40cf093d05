import Foundation
import Pipeline

/// What feedline reads back from OpenWeather's tables: the declared query behind the
/// `{places}` placeholder, one reading statement that means the same on every store (see
/// `SQLReading`).
public enum OpenWeatherQueries {
    /// Every place resolved by geocoding (the `place` table), by query, with its coordinates
    /// (empty before any was).
    public static func placeCoordinates(_ database: any SQLReading) throws -> [NamedCoordinate] {
        try NamedCoordinate.all(in: "place", named: "query", from: database)
    }
}
