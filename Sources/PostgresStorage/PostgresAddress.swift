import Foundation

/// Where a PostgreSQL database is: `postgres://[user[:password]@][host][:port][/dbname][?param=…]`
/// (`postgresql://` too), as `--db` and `FEEDLINE_DB` give it.
///
/// Parameters understood: `sslmode` (`disable`, `prefer` — the default, tried without TLS here
/// —, `require`, `verify-ca`, `verify-full`), `host` (a directory holding the server's Unix
/// socket, as libpq reads it; also a percent-encoded path as the URL's host:
/// `postgres://%2Fvar%2Frun%2Fpostgresql/feedline`), `application_name`, `connect_timeout`
/// (seconds). Any other parameter is refused by name, so a typo never goes unnoticed.
///
/// The password is never part of `description`: the URL is shown with `:***@` in its place.
/// Parsing knows nothing of PostgreSQL's client, so it is available in every build.
public struct PostgresAddress: Sendable, Hashable, CustomStringConvertible {
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        case disable, allow, prefer, require, verifyCA = "verify-ca", verifyFull = "verify-full"
    }

    public var user: String
    /// The password written in the URL, if any (`resolvedPassword` also reads PGPASSWORD and .pgpass).
    public var password: String?
    /// A host name or address, or nil when `socketDirectory` is used.
    public var host: String?
    /// The directory of the server's Unix socket (`.s.PGSQL.<port>` inside it).
    public var socketDirectory: String?
    public var port: Int
    public var database: String
    public var tls: TLSMode
    public var applicationName: String?
    public var connectTimeout: TimeInterval

    /// Whether `text` is meant as a PostgreSQL URL rather than a file path.
    public static func isURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    public init(parsing text: String, environment: [String: String] = [:]) throws {
        guard Self.isURL(text) else { throw PostgresAddressError("'\(Self.redacting(text))' is not a postgres:// URL") }
        let rest = text[text.range(of: "://")!.upperBound...]
        guard let components = URLComponents(string: "postgres://" + rest) else {
            throw PostgresAddressError("cannot read '\(Self.redacting(text))' as a URL (postgres://user@host:port/dbname)")
        }
        let defaultUser = environment["PGUSER"] ?? environment["USER"] ?? "postgres"
        user = components.percentEncodedUser.flatMap { $0.removingPercentEncoding } ?? defaultUser
        if user.isEmpty { user = defaultUser }
        password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        let rawHost = components.percentEncodedHost.flatMap { $0.removingPercentEncoding }
        if let rawHost, rawHost.hasPrefix("/") {
            socketDirectory = rawHost; host = nil
        } else {
            host = (rawHost?.isEmpty ?? true) ? nil : rawHost.map { $0.hasPrefix("[") && $0.hasSuffix("]") ? String($0.dropFirst().dropLast()) : $0 }
            socketDirectory = nil
        }
        port = components.port ?? Int(environment["PGPORT"] ?? "") ?? 5432
        guard (1...65535).contains(port) else { throw PostgresAddressError("port \(port) is out of range (1…65535)") }
        let path = components.percentEncodedPath.removingPercentEncoding ?? components.percentEncodedPath
        let name = path.hasPrefix("/") ? String(path.dropFirst()) : path
        guard !name.contains("/") else { throw PostgresAddressError("'\(name)' is not a database name (one path segment: postgres://host/dbname)") }
        database = name.isEmpty ? user : name
        tls = .prefer
        applicationName = nil
        connectTimeout = 10
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else {
                    throw PostgresAddressError("sslmode '\(value)' is not one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                tls = mode
            case "host":
                guard value.hasPrefix("/") else {
                    throw PostgresAddressError("the host parameter must be a socket directory (an absolute path), not '\(value)'")
                }
                socketDirectory = value; host = nil
            case "application_name": applicationName = value
            case "connect_timeout":
                guard let seconds = Int(value), (1...3600).contains(seconds) else {
                    throw PostgresAddressError("connect_timeout must be whole seconds in 1…3600, not '\(value)'")
                }
                connectTimeout = TimeInterval(seconds)
            case "password":
                throw PostgresAddressError("put the password in PGPASSWORD or ~/.pgpass rather than in a URL parameter")
            default:
                throw PostgresAddressError("unknown URL parameter '\(item.name)' (known: sslmode, host, application_name, connect_timeout)")
            }
        }
        if host == nil && socketDirectory == nil {
            // PGHOST (a name, or a socket directory), else the socket directory Debian's server uses.
            let fallback = environment["PGHOST"].flatMap { $0.isEmpty ? nil : $0 } ?? "/var/run/postgresql"
            if fallback.hasPrefix("/") { socketDirectory = fallback } else { host = fallback }
        }
    }

    /// The URL with the password replaced by `***` (safe for messages, logs, the ledger).
    public var description: String {
        var text = "postgres://" + Self.encode(user)
        if password != nil { text += ":***" }
        text += "@"
        if let host { text += host.contains(":") ? "[\(host)]" : host } else if let socketDirectory {
            text += socketDirectory.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-._~"))) ?? socketDirectory
        }
        text += ":\(port)/\(Self.encode(database))"
        var parameters: [String] = []
        if tls != .prefer { parameters.append("sslmode=\(tls.rawValue)") }
        if let applicationName { parameters.append("application_name=\(applicationName)") }
        if connectTimeout != 10 { parameters.append("connect_timeout=\(Int(connectTimeout))") }
        return parameters.isEmpty ? text : text + "?" + parameters.joined(separator: "&")
    }

    /// The password to send: the URL's, else `PGPASSWORD`, else the first matching line of the
    /// password file (`PGPASSFILE`, default `~/.pgpass`; `hostname:port:database:username:password`,
    /// `*` matching anything, `\:` and `\\` escaped). The file is skipped, with a reason in
    /// `warnings`, when others can read it (libpq's rule).
    public func resolvedPassword(environment: [String: String], warnings: inout [String]) -> String? {
        if let password { return password }
        if let fromEnvironment = environment["PGPASSWORD"], !fromEnvironment.isEmpty { return fromEnvironment }
        let file = environment["PGPASSFILE"] ?? environment["HOME"].map { $0 + "/.pgpass" }
        guard let file, let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        if let attributes = try? FileManager.default.attributesOfItem(atPath: file),
           let mode = attributes[.posixPermissions] as? Int, mode & 0o077 != 0 {
            warnings.append("password file \(file) is readable by group or others (chmod 0600 it); it was not used")
            return nil
        }
        let hostField = host ?? "localhost"
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) where !line.hasPrefix("#") {
            let fields = Self.passFileFields(String(line))
            guard fields.count == 5 else { continue }
            let wanted = [hostField, String(port), database, user]
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// A `.pgpass` line split at unescaped colons, with `\:` and `\\` unescaped.
    static func passFileFields(_ line: String) -> [String] {
        var fields: [String] = [], current = "", escaped = false
        for character in line {
            if escaped { current.append(character); escaped = false }
            else if character == "\\" { escaped = true }
            else if character == ":" { fields.append(current); current = "" }
            else { current.append(character) }
        }
        fields.append(current)
        return fields
    }

    private static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-._~"))) ?? text
    }

    /// `text` with anything between `://user:` and `@` replaced by `***`: for messages about a
    /// URL that could not be parsed.
    public static func redacting(_ text: String) -> String {
        guard let scheme = text.range(of: "://") else { return text }
        let afterScheme = text[scheme.upperBound...]
        guard let at = afterScheme.lastIndex(of: "@") else { return text }
        let credentials = afterScheme[..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":***" + String(text[at...])
    }
}

/// A `postgres://` URL that cannot be used, with the reason.
public struct PostgresAddressError: Error, CustomStringConvertible, Sendable {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { "invalid PostgreSQL URL: \(reason)" }
}

/// A PostgreSQL failure worded for a user: the server's own message, detail and SQLSTATE (the
/// connection string and its password never appear).
public struct PostgresStoreError: Error, CustomStringConvertible, Sendable {
    public let message: String
    /// The SQLSTATE code, when the server sent one (`40P01` deadlock, `23505` unique violation …).
    public let sqlState: String?
    /// The server could not be reached or refused the connection (worth retrying later).
    public let isConnectionFailure: Bool

    public init(_ message: String, sqlState: String? = nil, isConnectionFailure: Bool = false) {
        self.message = message; self.sqlState = sqlState; self.isConnectionFailure = isConnectionFailure
    }

    public var description: String { message }
}

/// A PostgreSQL database opened for reading that holds no feedline tables yet.
public struct PostgresNoFeedlineDatabase: Error, CustomStringConvertible, Sendable {
    public let address: PostgresAddress
    public init(address: PostgresAddress) { self.address = address }
    public var description: String { "\(address) holds no feedline database yet; run `feedline run --db …` first." }
}

/// Whether this build has the PostgreSQL store (`swift build --traits PostgreSQL`).
public enum PostgresSupport {
    #if PostgreSQL
    public static let isBuiltIn = true
    #else
    public static let isBuiltIn = false
    #endif

    /// How to get a build that has it.
    public static let buildHint = "this feedline was built without PostgreSQL support; build it with `swift build -c release --traits PostgreSQL` (the first build takes several minutes: it compiles postgres-nio), or use a SQLite path for --db"
}
