@testable import App
import Foundation
import Pipeline
import Testing
import TestSupport

/// A quantity kept in two units (ozone in ppm at AirKorea, µg/m³ at OpenWeather) says its unit in
/// every name the cross-source view and new columns give it; the older table columns that keep
/// their names are flagged with their unit by `describe` and the Datasette metadata.
@Suite struct UnitNamesTests {
    static let gases = ["o3", "no2", "co", "so2"]

    /// The quantity of a column name by hand (not `UnitNaming`): unit suffix off, one spelling of PM2.5.
    static func quantity(_ name: String) -> String {
        var base = name
        for suffix in ["_ppm", "_ugm3"] where base.hasSuffix(suffix) { base.removeLast(suffix.count) }
        return base == "pm2_5" ? "pm25" : base
    }

    static var relations: [DeclaredRelation] {
        get throws {
            let env = try TestEnvironment()
            defer { env.dir.remove() }
            return env.environment.declaredSchema.relations
        }
    }

    @Test("every column of the cross-source view whose quantity is kept in two units carries its unit in its name")
    func crossSourceColumnsSayTheirUnit() throws {
        let relations = try Self.relations
        // Units per quantity over every declared table and view.
        var units: [String: Set<String>] = [:]
        for relation in relations {
            for column in relation.columns { if let unit = column.unit { units[Self.quantity(column.name), default: []].insert(unit.symbol) } }
        }
        for gas in Self.gases { #expect(units[gas] == ["ppm", "µg/m³"], "\(gas): \(units[gas] ?? [])") }
        let view = try #require(relations.first { $0.name == "air_quality_hourly" })
        var checked = 0
        for column in view.columns where (units[Self.quantity(column.name)]?.count ?? 0) > 1 {
            checked += 1
            let unit = try #require(column.unit, "\(column.name) declares no unit")
            let suffix = unit.symbol == "ppm" ? "_ppm" : "_ugm3"
            #expect(column.name.hasSuffix(suffix), "\(column.name) is in \(unit.symbol) but its name does not say so")
            #expect(UnitNaming.says(unit, in: column.name))
        }
        #expect(checked == 2 * Self.gases.count)
        // PM has one unit everywhere, and one name for each quantity (pm25, never pm2_5).
        #expect(units["pm25"] == ["µg/m³"] && units["pm10"] == ["µg/m³"])
        #expect(view.column("pm25")?.unit == .microgramsPerCubicMetre && view.column("pm2_5") == nil)
        // The hour, by one pair of names.
        #expect(view.column("hour_start_utc") != nil && view.column("hour_end_utc") != nil)
    }

    /// The table columns whose names do not say a unit used in two units.
    static let ambiguousTableColumns: [(table: String, column: String, unit: String)] =
        gases.map { ("measurement", $0, "ppm") } + gases.map { ("openweather_air_pollution", $0, "µg/m³") }

    @Test("every table column of a quantity in two units declares its unit, and UnitNaming flags the ones whose name does not say it")
    func ambiguousColumnsDeclareTheirUnit() throws {
        let relations = try Self.relations
        let naming = UnitNaming(relations)
        for relation in relations {
            for column in relation.columns where naming.ambiguous[UnitNaming.quantity(column.name)] != nil {
                let unit = try #require(column.unit, "\(relation.name).\(column.name) holds a quantity kept in two units but declares none")
                #expect((naming.flag(column) == nil) == UnitNaming.says(unit, in: column.name), "\(relation.name).\(column.name)")
            }
        }
        for (table, name, unit) in Self.ambiguousTableColumns {
            let column = try #require(relations.first { $0.name == table }?.column(name))
            #expect(column.unit?.symbol == unit, "\(table).\(name)")
            #expect(naming.flag(column)?.hasPrefix("in \(unit), not said by the name") == true, "\(table).\(name): \(naming.flag(column) ?? "nil")")
        }
    }

    @Test("describe and the Datasette metadata show the unit of each ambiguous table column")
    func describeShowsTheUnitOfAmbiguousColumns() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        #expect(await env.feedline.run(names: ["airkorea-seoul", "openweather-air-pollution"], source: .fixtures, paths: env.paths()) == .success)
        for table in ["measurement", "openweather_air_pollution"] {
            let start = env.out.text.count
            #expect(env.feedline.describe(DescribeRequest(name: table), paths: env.paths()) == .success)
            let lines = String(env.out.text.dropFirst(start)).split(separator: "\n").map(String.init)
            for (t, name, unit) in Self.ambiguousTableColumns where t == table {
                let line = try #require(lines.first { $0.hasPrefix(name + " ") }, "\(table): no line for \(name)")
                let cells = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
                #expect(cells.count > 2 && cells[2] == unit, "\(table).\(name): \(line)")
                #expect(line.contains("[in \(unit), not said by the name"), "\(table).\(name): \(line)")
            }
            let jsonStart = env.out.text.count
            #expect(env.feedline.describe(DescribeRequest(name: table, output: .json), paths: env.paths()) == .success)
            let relation = try #require(try JSONSerialization.jsonObject(with: Data(env.out.text.dropFirst(jsonStart).utf8)) as? [String: Any])
            let columns = try #require(relation["columns"] as? [[String: Any]])
            for (t, name, unit) in Self.ambiguousTableColumns where t == table {
                let column = try #require(columns.first { $0["name"] as? String == name })
                #expect(column["unit"] as? String == unit && (column["unit_flag"] as? String)?.contains(unit) == true, "\(column)")
            }
            #expect(columns.first { $0["name"] as? String == "pm10" }?["unit_flag"] is NSNull)
        }
        let start = env.out.text.count
        #expect(env.feedline.describe(DescribeRequest(output: .datasette), paths: env.paths()) == .success)
        let metadata = try #require(try JSONSerialization.jsonObject(with: Data(env.out.text.dropFirst(start).utf8)) as? [String: Any])
        let tables = try #require((metadata["databases"] as? [String: [String: Any]])?.values.first?["tables"] as? [String: [String: Any]])
        for (table, name, unit) in Self.ambiguousTableColumns {
            let pint = unit == "ppm" ? "ppm" : "ug/m**3"
            #expect((tables[table]?["units"] as? [String: String])?[name] == pint, "\(table).\(name)")
            #expect((tables[table]?["columns"] as? [String: String])?[name]?.hasPrefix("[in \(unit), not said by the name") == true, "\(table).\(name)")
        }
        #expect((tables["air_quality_hourly"]?["columns"] as? [String: String])?["o3_ppm"]?.hasPrefix("[") == false)
    }
}
