import Foundation
import Pipeline

/// What feedline reads back from OpenWeather's tables: the declared query behind the
/// `{places}` placeholder, one reading statement that means the same on every store (see
/// `SQLReading`).
public enum OpenWeatherQueries {
    /// Every place resolved by geocoding (the `place` table), by query, with its coordinates
    /// (empty before any was).
    public static func placeCoordinates(_ database: any SQLReading) throws -> [NamedCoordinate] {
        guard try database.hasTable("place") else { return [] }
        return try database.fetchAll(sql: """
            SELECT query, latitude, longitude FROM place
            WHERE latitude IS NOT NULL AND longitude IS NOT NULL ORDER BY query
            """).rows.compactMap { row in
            guard let name = row[0].text, let latitude = row[1].number, let longitude = row[2].number else { return nil }
            return NamedCoordinate(name: name, latitude: latitude, longitude: longitude)
        }
    }
}
