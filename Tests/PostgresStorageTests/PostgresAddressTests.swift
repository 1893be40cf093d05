import Foundation
import PostgresStorage
import PropertyBased
import Testing

@Suite("PostgreSQL URLs: parsing, defaults, the password kept out of sight")
struct PostgresAddressTests {
    @Test("a full URL gives every part, and its description drops the password")
    func fullURL() throws {
        let address = try PostgresAddress(parsing: "postgres://ingest:s3cr%40t@db.example.org:6543/air?sslmode=require&application_name=cron")
        #expect(address.user == "ingest")
        #expect(address.password == "s3cr@t")
        #expect(address.host == "db.example.org")
        #expect(address.port == 6543)
        #expect(address.database == "air")
        #expect(address.tls == .require)
        #expect(address.description == "postgres://ingest:***@db.example.org:6543/air?sslmode=require&application_name=cron")
    }

    @Test("defaults: port 5432, database named after the user, the local socket when there is no host")
    func defaults() throws {
        let address = try PostgresAddress(parsing: "postgresql://feedline@/", environment: [:])
        #expect(address.port == 5432)
        #expect(address.database == "feedline")
        #expect(address.host == nil)
        #expect(address.socketDirectory == "/var/run/postgresql")
        let socket = try PostgresAddress(parsing: "postgres://feedline@%2Ftmp%2Fpg:5433/f")
        #expect(socket.socketDirectory == "/tmp/pg" && socket.port == 5433 && socket.host == nil)
        let parameter = try PostgresAddress(parsing: "postgres://feedline@localhost/f?host=/run/pg")
        #expect(parameter.socketDirectory == "/run/pg" && parameter.host == nil)
        let environment = try PostgresAddress(parsing: "postgres:///f", environment: ["PGUSER": "etl", "PGHOST": "db1", "PGPORT": "6000"])
        #expect(environment.user == "etl" && environment.host == "db1" && environment.port == 6000)
    }

    @Test("mistakes are refused by name, and the refusal never shows the password")
    func refusals() {
        for (url, word) in [("postgres://u:pw@h/db?sslmode=maybe", "sslmode"), ("postgres://u:pw@h/db?sslmod=disable", "sslmod"),
                            ("postgres://u:pw@h:70000/db", "port"), ("postgres://u:pw@h/db/extra", "database name"),
                            ("postgres://u@h/db?password=pw", "PGPASSWORD"), ("postgres://u:pw@h/db?connect_timeout=0", "connect_timeout")] {
            do {
                _ = try PostgresAddress(parsing: url)
                Issue.record("accepted \(url)")
            } catch {
                let text = "\(error)"
                #expect(text.contains(word), "\(url): \(text)")
                #expect(!text.contains(":pw@"), "\(url): \(text)")
            }
        }
        #expect(PostgresAddress.redacting("postgres://u:hunter2@h/db") == "postgres://u:***@h/db")
        #expect(!PostgresAddress.isURL("Data/feedline.sqlite"))
        #expect(PostgresAddress.isURL("PostgreSQL://h/db"))
    }

    @Test("no password ever appears in a description or a redaction (property)")
    func passwordNeverShown() throws {
        var rng = Xoshiro(seed: (0x7067, 0x6164, 0x6472, 0x7373))
        let input = zip(Gen.int(in: 6...24), Gen.int(in: 0...1_000_000))
        for _ in 0..<300 {
            let (length, salt) = input.run(using: &rng)
            let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!$&'()*+,;=-._~%@:/?#[]")
            var generator = SplitMix(seed: UInt64(salt))
            let password = String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }) + "Zq"
            let encoded = password.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let url = "postgres://user:\(encoded)@db.internal:5432/feedline"
            let address = try PostgresAddress(parsing: url)
            #expect(address.password == password)
            #expect(!address.description.contains(password) && !address.description.contains(encoded), "\(url)")
            #expect(!PostgresAddress.redacting(url).contains(encoded), "\(url)")
        }
    }

    @Test("the password comes from the URL, else PGPASSWORD, else a private .pgpass line that matches")
    func passwordSources() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pgpass-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("pgpass").path
        try "# comment\nother:5432:*:*:wrong\ndb.internal:5432:feedline:user:from\\:file\n*:*:*:*:fallback\n".write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        var warnings: [String] = []
        let bare = try PostgresAddress(parsing: "postgres://user@db.internal/feedline")
        #expect(bare.resolvedPassword(environment: ["PGPASSFILE": file], warnings: &warnings) == "from:file")
        #expect(bare.resolvedPassword(environment: ["PGPASSFILE": file, "PGPASSWORD": "env"], warnings: &warnings) == "env")
        let other = try PostgresAddress(parsing: "postgres://someone@elsewhere/db")
        #expect(other.resolvedPassword(environment: ["PGPASSFILE": file], warnings: &warnings) == "fallback")
        let given = try PostgresAddress(parsing: "postgres://user:inurl@db.internal/feedline")
        #expect(given.resolvedPassword(environment: ["PGPASSFILE": file, "PGPASSWORD": "env"], warnings: &warnings) == "inurl")
        #expect(warnings.isEmpty)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        #expect(bare.resolvedPassword(environment: ["PGPASSFILE": file], warnings: &warnings) == nil)
        #expect(warnings.count == 1 && warnings[0].contains("chmod 0600"))
    }
}

/// A small deterministic generator for the property's characters.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}
