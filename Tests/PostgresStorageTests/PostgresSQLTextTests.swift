@testable import PostgresStorage
import Testing

/// The SQL text feedline cuts and rewrites for PostgreSQL (built with or without the trait).
@Suite("PostgreSQL SQL text: statements and :name parameters")
struct PostgresSQLTextTests {
    @Test("a script is cut at top-level semicolons only")
    func scriptStatements() {
        let script = """
            -- a comment; not a statement
            CREATE TABLE a (t text DEFAULT 'x;y');   /* ; */
            CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $fn$ BEGIN RETURN NULL; END; $fn$;
            INSERT INTO "odd;name" VALUES ('it''s; fine');
            -- only a comment;
            """
        let statements = SQLScript.statements(script)
        #expect(statements.count == 3, "\(statements)")
        #expect(statements[0].hasSuffix("DEFAULT 'x;y')"))
        #expect(statements[1].hasSuffix("END; $fn$"))
        #expect(statements[2] == "INSERT INTO \"odd;name\" VALUES ('it''s; fine')")
    }

    @Test(":name parameters become $n outside quotes, comments and casts; a name used twice keeps its number")
    func namedParameters() throws {
        let (sql, names) = PostgresReadOnlySQL.numberParameters(
            "SELECT :a, :b::int, ':c', \":d\", $$ :e $$, x::text, :a -- :f\n/* :g */ FROM t WHERE y = :b_2")
        #expect(names == ["a", "b", "b_2"])
        #expect(sql == "SELECT $1, $2::int, ':c', \":d\", $$ :e $$, x::text, $1 -- :f\n/* :g */ FROM t WHERE y = $3")
        #expect(try PostgresReadOnlySQL.prepare("  (SELECT 1)").keyword == "SELECT")
        #expect(try PostgresReadOnlySQL.prepare("-- note\nWITH x AS (SELECT 1) SELECT * FROM x").keyword == "WITH")
        #expect(throws: PostgresQueryError.self) { try PostgresReadOnlySQL.prepare("UPDATE t SET a = 1") }
        #expect(throws: PostgresQueryError.self) { try PostgresReadOnlySQL.prepare("SELECT 1; SELECT 2") }
        #expect(throws: PostgresQueryError.self) { try PostgresReadOnlySQL.prepare("  -- nothing\n") }
    }
}
