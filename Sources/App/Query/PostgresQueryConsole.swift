import Foundation
import Pipeline
import PostgresStorage
import Storage

extension Console {
    /// `feedline query` against a PostgreSQL store: the same statements, parameters, formats,
    /// output file and timeout as on SQLite, in a read-only transaction (see `PostgresStore.query`).
    func queryPostgres(sql: String, parameters: [String: SQLValue], request: QueryRequest, paths: Paths) -> ExitStatus {
        let store: any FeedlineStore
        do { store = try environment.openStore(paths, forWriting: false) } catch {
            return databaseOpenFailure(error, paths: paths)
        }
        #if PostgreSQL
        guard let postgres = store as? PostgresStore else { return .failure }
        do {
            warnUnused(request, used: try postgres.checkQuery(sql))
        } catch {
            return reportPostgres(error)
        }
        let texts = parameters.mapValues(\.parameterText)
        return streamRows(request, paths: paths, isTimeout: { ($0 as? PostgresQueryError)?.kind == .timedOut }) { columns, row in
            try postgres.query(sql, parameters: texts, timeout: request.timeout, columns: columns) { try row($0.map(SQLValue.init)) }
        } failed: { reportPostgres($0) }
        #else
        // Unreachable: a build without the trait refuses to open a PostgreSQL store.
        environment.errorOutput("error: cannot query \(paths.databaseName) with this build (\(store.location))")
        return .configuration
        #endif
    }

    private func reportPostgres(_ error: Error) -> ExitStatus {
        environment.errorOutput("error: \(error)")
        guard let error = error as? PostgresQueryError else {
            return (error as? PostgresStoreError)?.isConnectionFailure == true ? .temporaryFailure : .failure
        }
        switch error.kind {
        case .refused, .missingParameter: return .usage
        case .timedOut: return .temporaryFailure
        case .server: return .failure
        }
    }
}

extension SQLValue {
    /// A value read from PostgreSQL, as the writers print SQLite's.
    init(_ value: StoreValue) {
        switch value {
        case .null: self = .null
        case .integer(let v): self = .integer(v)
        case .real(let v): self = .real(v)
        case .text(let v): self = .text(v)
        }
    }

    /// A parameter as the text PostgreSQL reads it from (nil for NULL).
    var parameterText: String? {
        switch self {
        case .null: nil
        case .integer(let v): String(v)
        case .real(let v): v.description
        case .text(let v): v
        case .blob(let v): String(decoding: v, as: UTF8.self)
        }
    }
}
