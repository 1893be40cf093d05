import ArgumentParser
import Foundation
import Pipeline

/// `feedline drift [PIPELINE] [--json]`: the fields feeds answered with that drifted from what
/// their operations declare (`field_drift`).
struct DriftCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drift",
        abstract: "List the fields feeds answered with that drifted from what their operations declare.",
        discussion: """
        Every load compares the fields of each page's items with the fields its operation is declared to answer with: a field added, a required one missing from every item, or a value of another kind (number and text, object and list) is schema drift. Each is recorded once per run as a schema-drift diagnostic and in the field_drift table, whose rows this lists, newest first: pipeline, feed and operation, field path, change (added, removed, number-to-text …), when first and last seen, how many payloads showed it, and a sample value (at most 80 characters). A pipeline with on_drift: fail fails the run instead, keeping nothing. Only reads the database.

        Examples:
          feedline drift
          feedline drift airkorea-seoul --json
        """)

    @Argument(help: ArgumentHelp("Only this pipeline's drift.", valueName: "pipeline"))
    var pipeline: String?

    @Flag(help: "Print a JSON array of objects.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let env = try global.environment()
        let paths = Paths(environment: env, database: global.db)
        try finish(Console(environment: env).drift(pipeline: pipeline, paths: paths, json: json))
    }
}

extension Console {
    /// `feedline drift`: the `field_drift` rows (of `pipeline`), as a table or a JSON array.
    /// A reader like `status`: a missing database is refused with 78, nothing is written.
    public func drift(pipeline: String?, paths: Paths, json: Bool) -> ExitStatus {
        let rows: [FieldDriftRow]
        do {
            let store: any FeedlineStore
            do { store = try environment.openStore(paths, forWriting: false) } catch {
                return refused(environment.databaseOpenRefusal(error, paths: paths))
            }
            rows = try FieldDriftRow.all(pipeline: pipeline, from: try store.reading())
        } catch {
            err("error: cannot read the database \(paths.databaseName): \(error)")
            return .failure
        }
        if json {
            out(JSONText.encode(JSONValue(any: rows.map { row -> [String: Any] in
                ["pipeline": row.pipeline, "source": row.source, "operation": row.operation, "field": row.fieldPath, "change": row.change,
                 "first_seen": row.firstSeen, "last_seen": row.lastSeen, "payloads": row.payloadCount, "sample": row.sample as Any]
            })))
            return .success
        }
        guard !rows.isEmpty else {
            out("No schema drift recorded\(pipeline.map { " for \($0)" } ?? ""): every payload loaded carried the fields its operation declares.")
            return .success
        }
        var table = TextTable(["PIPELINE", "SOURCE", "OPERATION", "FIELD", "CHANGE", "FIRST SEEN", "LAST SEEN", "PAYLOADS", "SAMPLE"])
        for row in rows {
            let sample = row.sample.map { String($0.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) }) } ?? "-"
            table.append([row.pipeline, row.source, row.operation, row.fieldPath, row.change, row.firstSeen, row.lastSeen,
                          String(row.payloadCount), sample])
        }
        out(table.text)
        return .success
    }
}
