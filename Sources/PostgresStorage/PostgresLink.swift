#if PostgreSQL
import Domain
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Pipeline
import PostgresNIO

/// One PostgreSQL connection used synchronously: the store's ports are synchronous (a load is
/// one transaction driven by the runner's thread), so each statement is sent through
/// postgres-nio and waited for. Calls are serialised; never called from an event-loop thread.
///
/// A load's writes whose answers it does not need at once are `send`: the statement goes out
/// and the caller goes on preparing the next while the server works, with at most
/// `maxInFlight` unanswered. The next `run` (or `drain`) waits for them first and throws the
/// first one's error, so a failed write is never mistaken for success or hidden behind the
/// "transaction is aborted" errors of the statements after it.
final class PostgresLink: @unchecked Sendable {
    private let connection: PostgresConnection
    private let logger: Logger
    private let lock = NSLock()
    private var inFlight: [InFlight] = []
    static let maxInFlight = 8

    private struct InFlight {
        let future: EventLoopFuture<PostgresQueryResult>
        let sql: String
        let answered: ((PostgresResult) -> Void)?
    }

    /// Connects to `address` with `password` (resolved by the caller; never logged).
    init(_ address: PostgresAddress, password: String?, applicationName: String = "feedline") throws {
        var logger = Logger(label: "feedline.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        logger.logLevel = .critical
        self.logger = logger
        let tls: PostgresConnection.Configuration.TLS
        switch address.tls {
        case .disable: tls = .disable
        case .allow, .prefer, .require, .verifyCA, .verifyFull:
            var configuration = TLSConfiguration.makeClientConfiguration()
            switch address.tls {
            case .verifyFull: configuration.certificateVerification = .fullVerification
            case .verifyCA: configuration.certificateVerification = .noHostnameVerification
            default: configuration.certificateVerification = .none
            }
            let context = try NIOSSLContext(configuration: configuration)
            tls = (address.tls == .allow || address.tls == .prefer) ? .prefer(context) : .require(context)
        }
        var configuration: PostgresConnection.Configuration
        if let directory = address.socketDirectory {
            configuration = .init(unixSocketPath: directory + "/.s.PGSQL.\(address.port)", username: address.user,
                                  password: password, database: address.database)
        } else {
            configuration = .init(host: address.host ?? "localhost", port: address.port, username: address.user,
                                  password: password, database: address.database, tls: tls)
        }
        configuration.options.connectTimeout = .seconds(Int64(address.connectTimeout))
        configuration.options.additionalStartupParameters = [("application_name", address.applicationName ?? applicationName),
                                                             ("TimeZone", "UTC"), ("DateStyle", "ISO")]
        do {
            connection = try PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration,
                                                        id: 1, logger: logger).wait()
        } catch {
            throw PostgresStoreError(connecting: error, address: address)
        }
    }

    /// Closing ends the session, which also frees its advisory locks.
    deinit { close() }

    func close() { try? connection.close().wait() }

    /// Runs one statement with `$1 … $n` parameters; returns its rows and the rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: [StoreValue] = []) throws -> PostgresResult {
        try run(PostgresQuery(unsafeSQL: sql, binds: Self.bindings(values)))
    }

    func run(_ query: PostgresQuery) throws -> PostgresResult {
        lock.lock(); defer { lock.unlock() }
        while !inFlight.isEmpty { try awaitOldest() }
        do {
            return PostgresResult(try connection.query(query, logger: logger).wait())
        } catch {
            throw PostgresStoreError(statement: error, sql: query.sql)
        }
    }

    /// Runs one statement whose parameters are text the server reads as the type the statement
    /// needs there (as `psql` sends them): `feedline query --param`.
    @discardableResult
    func run(_ sql: String, inferring values: [String?]) throws -> PostgresResult {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            if let value { bindings.append(InferredText(value)) } else { bindings.appendNull() }
        }
        return try run(PostgresQuery(unsafeSQL: sql, binds: bindings))
    }

    /// Sends one statement without waiting for its answer; `answered` is called with it (on the
    /// caller's thread, during a later `send`, `run` or `drain`).
    func send(_ sql: String, _ values: [StoreValue], answered: ((PostgresResult) -> Void)? = nil) throws {
        lock.lock(); defer { lock.unlock() }
        while inFlight.count >= Self.maxInFlight { try awaitOldest() }
        let query = PostgresQuery(unsafeSQL: sql, binds: Self.bindings(values))
        inFlight.append(InFlight(future: connection.query(query, logger: logger), sql: sql, answered: answered))
    }

    /// Waits until every sent statement is answered; throws the first one's error.
    func drain() throws {
        lock.lock(); defer { lock.unlock() }
        while !inFlight.isEmpty { try awaitOldest() }
    }

    /// Takes the oldest answer (the lock is held). On an error the statements after it are
    /// waited for and forgotten: they fail only because the transaction is aborted.
    private func awaitOldest() throws {
        let oldest = inFlight.removeFirst()
        do {
            let result = PostgresResult(try oldest.future.wait())
            oldest.answered?(result)
        } catch {
            let rest = inFlight
            inFlight = []
            for statement in rest { _ = try? statement.future.wait() }
            throw PostgresStoreError(statement: error, sql: oldest.sql)
        }
    }

    private static func bindings(_ values: [StoreValue]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .null: bindings.appendNull()
            case .integer(let v): bindings.append(v)
            case .real(let v): bindings.append(v)
            case .text(let v): bindings.append(v)
            }
        }
        return bindings
    }

    /// Runs several statements one after another (no parameters): migrations.
    func script(_ sql: String) throws {
        for statement in SQLScript.statements(sql) { try run(statement) }
    }

    /// Runs `body` in one transaction (committed on return, rolled back when it throws).
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try run("BEGIN")
        do {
            let value = try body()
            try run("COMMIT")
            return value
        } catch {
            // Statements still unanswered are waited for (and forgotten) before the rollback.
            _ = try? drain()
            _ = try? run("ROLLBACK")
            throw error
        }
    }
}

/// Text sent with no type (OID 0): the server infers the parameter's type from the statement.
struct InferredText: PostgresDynamicTypeEncodable {
    let text: String
    init(_ text: String) { self.text = text }
    var psqlType: PostgresDataType { PostgresDataType(0) }
    var psqlFormat: PostgresFormat { .text }
    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeString(text)
    }
}

/// What a statement gave back.
struct PostgresResult {
    var rows: [[StoreValue]]
    var columns: [String]
    var changed: Int

    init(_ result: PostgresQueryResult) {
        rows = result.rows.map { row in row.map(StoreValue.init(cell:)) }
        columns = result.rows.first.map { $0.map(\.columnName) } ?? []
        changed = result.metadata.rows ?? 0
    }

    /// The first column of the first row.
    var scalar: StoreValue? { rows.first?.first }
}

extension StoreValue {
    /// A value read from PostgreSQL as the SQLite store would give it: integers (and booleans as
    /// 0/1), doubles, and everything else as text — instants as ISO-8601 UTC (`…Z`), dates as
    /// `YYYY-MM-DD`.
    init(cell: PostgresCell) {
        guard cell.bytes != nil else { self = .null; return }
        switch cell.dataType {
        case .int2: self = (try? cell.decode(Int16.self)).map { .integer(Int64($0)) } ?? .null
        case .int4: self = (try? cell.decode(Int32.self)).map { .integer(Int64($0)) } ?? .null
        case .int8: self = (try? cell.decode(Int64.self)).map { .integer($0) } ?? .null
        case .bool: self = (try? cell.decode(Bool.self)).map { .integer($0 ? 1 : 0) } ?? .null
        case .float4: self = (try? cell.decode(Float.self)).map { .real(Double($0)) } ?? .null
        case .float8: self = (try? cell.decode(Double.self)).map { .real($0) } ?? .null
        case .timestamptz, .timestamp: self = (try? cell.decode(Date.self)).map { .text(iso8601UTC($0)) } ?? .null
        case .date: self = (try? cell.decode(Date.self)).map { .text(String(iso8601UTC($0).prefix(10))) } ?? .null
        case .numeric:
            // sum() of bigints, avg() of integers: whole numbers as integers (as SQLite sums them),
            // the rest as doubles.
            guard let decimal = try? cell.decode(Decimal.self) else { self = .text(cell.bytes.map { String(buffer: $0) } ?? ""); return }
            let double = NSDecimalNumber(decimal: decimal).doubleValue
            if double == double.rounded(), abs(double) < 9e15 { self = .integer(Int64(double)) } else { self = .real(double) }
        default:
            if let text = try? cell.decode(String.self) { self = .text(text) }
            else { self = .text(cell.bytes.map { String(buffer: $0) } ?? "") }
        }
    }
}

extension PostgresStoreError {
    init(connecting error: Error, address: PostgresAddress) {
        if let error = error as? PSQLError, let server = error.serverInfo, let text = server[.message] {
            // The server answered (wrong password, no such database …): not worth retrying as is.
            self.init("cannot connect to \(address): \(text)", sqlState: server[.sqlState])
        } else if let error = error as? PSQLError {
            self.init("cannot connect to \(address): \(Self.describe(error))", isConnectionFailure: true)
        } else {
            self.init("cannot connect to \(address): \(error)", isConnectionFailure: true)
        }
    }

    init(statement error: Error, sql: String) {
        let first = sql.split(separator: "\n").first.map { String($0.trimmingCharacters(in: .whitespaces).prefix(80)) } ?? ""
        if let error = error as? PSQLError, let server = error.serverInfo {
            var text = server[.message] ?? "the server refused the statement"
            if let detail = server[.detail] { text += " (\(detail))" }
            self.init("PostgreSQL: \(text) [SQLSTATE \(server[.sqlState] ?? "?")] in: \(first)", sqlState: server[.sqlState])
        } else if let error = error as? PSQLError {
            self.init("PostgreSQL: \(Self.describe(error)) in: \(first)")
        } else {
            self.init("PostgreSQL: \(error) in: \(first)")
        }
    }

    private static func describe(_ error: PSQLError) -> String {
        switch error.code {
        case .connectionError: "the connection failed (is the server running and reachable?)"
        case .serverClosedConnection, .clientClosedConnection: "the connection was closed"
        case .sslUnsupported: "the server does not offer TLS (use sslmode=disable or prefer)"
        case .failedToAddSSLHandler: "TLS could not be set up"
        case .unsupportedAuthMechanism: "the server asks for an authentication method feedline does not support"
        default:
            if let underlying = error.underlying { "\(underlying)" } else { "\(error.code)" }
        }
    }
}
#endif
