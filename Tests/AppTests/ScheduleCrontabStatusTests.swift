@testable import App
import Foundation
import Pipeline
import Storage
import Testing
import TestSupport

@Suite("Schedule: crontab, systemd units and status")
struct ScheduleCrontabStatusTests {
    let renderer = CrontabRenderer(executable: "/opt/feedline/bin/feedline", home: "/srv/feedline",
                                   database: "/srv/feedline/Data/feedline.sqlite", logDirectory: "/var/log/feedline")

    func writeZonedPipelines(_ env: TestEnvironment) throws -> URL {
        _ = try env.writeScheduledPipelines(seoul: "20 * * * *", stations: "0 3 * * MON")
        _ = try env.writePipeline("ny-forecast", """
            source: airkorea
            operation: forecast
            parameters:
              searchDate: "{today}"
            schedule: "30 2 * * *"
            timezone: America/New_York
            catch_up: all
            """)
        return try env.writePipeline("unscheduled", """
            source: airkorea
            operation: stations
            """)
    }

    @Test("crontab: CRON_TZ per zone, then `MIN HOUR DOM MON DOW cd REPO && feedline run NAME --live --db PATH >>log 2>&1`")
    func crontabLines() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try writeZonedPipelines(env)
        let status = env.feedline.crontab(paths: env.paths(pipelines: pipelines), renderer: renderer, systemd: false)
        #expect(status == .success)
        let lines = env.out.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let body = lines.filter { !$0.hasPrefix("#") && !$0.isEmpty }
        #expect(body == [
            "CRON_TZ=America/New_York",
            "30 2 * * * cd /srv/feedline && /opt/feedline/bin/feedline run ny-forecast --live --db /srv/feedline/Data/feedline.sqlite >>/var/log/feedline/ny-forecast.log 2>&1",
            "CRON_TZ=Asia/Seoul",
            "20 * * * * cd /srv/feedline && /opt/feedline/bin/feedline run sched-seoul --live --db /srv/feedline/Data/feedline.sqlite >>/var/log/feedline/sched-seoul.log 2>&1",
            "0 3 * * MON cd /srv/feedline && /opt/feedline/bin/feedline run sched-stations --live --db /srv/feedline/Data/feedline.sqlite >>/var/log/feedline/sched-stations.log 2>&1",
        ])
        #expect(lines.contains("# ny-forecast: catch_up: all is not translatable to cron (cron never runs missed slots); use `feedline schedule` for it."))
        #expect(lines.contains { $0.hasPrefix("# unscheduled: no schedule") })
    }

    @Test("crontab quotes paths for the shell and escapes % (cron's newline)")
    func crontabQuoting() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        _ = try env.writeScheduledPipelines()
        let odd = CrontabRenderer(executable: "/opt/my tools/feedline", home: "/srv/it's here", database: "/data/100%.sqlite", logDirectory: "/var/log")
        _ = env.feedline.crontab(paths: env.paths(pipelines: env.dir.path("Pipelines")), renderer: odd, systemd: false)
        #expect(env.out.text.contains(#"cd '/srv/it'\''s here' && '/opt/my tools/feedline' run sched-seoul --live --db '/data/100'\%'.sqlite' >>/var/log/sched-seoul.log 2>&1"#))
    }

    @Test("--systemd: a service + timer per pipeline, OnCalendar from the cron fields, comments where cron and systemd differ")
    func systemdUnits() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try writeZonedPipelines(env)
        let status = env.feedline.crontab(paths: env.paths(pipelines: pipelines), renderer: renderer, systemd: true)
        #expect(status == .success)
        let text = env.out.text
        for unit in ["sched-seoul", "sched-stations", "ny-forecast"] {
            #expect(text.contains("# ---- feedline-\(unit).service ----"))
            #expect(text.contains("# ---- feedline-\(unit).timer ----"))
            #expect(text.contains("ExecStart=/opt/feedline/bin/feedline run \(unit) --live --db /srv/feedline/Data/feedline.sqlite"))
            #expect(text.contains("Unit=feedline-\(unit).service"))
        }
        #expect(!text.contains("feedline-unscheduled.timer"))
        #expect(text.contains("OnCalendar=*-*-* *:20:00 Asia/Seoul"))
        #expect(text.contains("OnCalendar=Mon *-*-* 03:00:00 Asia/Seoul"))
        #expect(text.contains("OnCalendar=*-*-* 02:30:00 America/New_York"))
        #expect(text.contains("SuccessExitStatus=10"))
        #expect(text.contains("# catch_up: all is not translatable: Persistent=true runs a missed timer once"))
        #expect(text.contains("# America/New_York has daylight saving time"))
        #expect(!text.contains("# Asia/Seoul has daylight saving time"))
    }

    @Test("the bundled pipelines all render, so cron and the built-in scheduler share them")
    func bundledPipelinesRender() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        #expect(env.feedline.crontab(paths: env.paths(), renderer: renderer, systemd: false) == .success, "\(env.err.text)")
        #expect(env.out.text.contains("20 * * * * cd /srv/feedline && /opt/feedline/bin/feedline run airkorea-seoul --live"))
        #expect(env.out.text.contains("CRON_TZ=Asia/Seoul"))
    }

    @Test("an invalid cron expression in a pipeline file is reported with its file, field and token")
    func invalidScheduleIsNamed() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try env.writeScheduledPipelines(seoul: "0 25 * * *")
        #expect(env.feedline.listPipelines(paths: env.paths(pipelines: pipelines)) == .configuration)
        #expect(env.out.text.contains("Pipelines/sched-seoul.yaml  schedule  hour field: '25' is out of range 0–23."), "\(env.out.text)")
    }

    @Test("status: last run, rows, diagnostics, newest data age, stale sources, next fire time and lock holder")
    func status() async throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try env.writeScheduledPipelines(seoul: "20 * * * *", stations: "0 3 * * MON")
        let paths = env.paths(pipelines: pipelines)
        // Both ran at 06:00; an hour later, the hourly one is still fresh, then it goes stale.
        let clock = FakeClock(instant("2024-03-06T06:00:00Z"))
        #expect(await Console(environment: env.environment(clock: clock)).run(names: [], source: .fixtures, paths: paths) == .success)
        let store = try SQLiteStore(path: env.database.path, schema: .feedline)
        let me = RunLockSettings.live
        _ = try store.acquireRunLock(pipeline: "sched-stations", holder: "x", pid: me.pid, now: instant("2024-03-06T06:30:00Z"),
                                     staleness: RunLockStaleness(host: me.host, heartbeatTimeout: 900, isProcessAlive: { _ in true }))

        clock.set(instant("2024-03-06T06:40:00Z"))
        let out = TextSink()
        var e = env.environment(clock: clock)
        e.output = { out.append($0) }
        #expect(Console(environment: e).status(paths: paths, json: true) == .success)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(out.text.utf8)) as? [String: Any])
        let quota = try #require(document["quota"] as? [String: Any])
        #expect(quota["kst_date"] as? String == "2024-03-06")
        #expect((quota["apis"] as? [Any])?.isEmpty == true, "fixture runs call no API")
        let json = try #require(document["pipelines"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: json.map { ($0["pipeline"] as! String, $0) })
        let seoul = try #require(byName["sched-seoul"])
        let lastRun = try #require(seoul["last_run"] as? [String: Any])
        #expect(lastRun["status"] as? String == "succeeded")
        #expect((lastRun["rows_inserted"] as? Int ?? 0) > 0)
        #expect(lastRun["diagnostics"] is Int)
        #expect(seoul["next_fire_at"] as? String == "2024-03-06T07:20:00Z")
        #expect(seoul["newest_data_at"] is String)
        #expect(seoul["lock"] is NSNull)
        let stations = try #require(byName["sched-stations"])
        #expect(stations["next_fire_at"] as? String == "2024-03-10T18:00:00Z")  // Monday 03:00 KST
        #expect(stations["stale"] as? Bool == false)
        let lock = try #require(stations["lock"] as? [String: Any])
        #expect(lock["pid"] as? Int == Int(me.pid))
        #expect(lock["acquired_at"] as? String == "2024-03-06T06:30:00Z")

        // Three days later nothing has run: the hourly source is stale, the weekly one is not.
        clock.set(instant("2024-03-09T06:40:00Z"))
        let table = TextSink()
        e.output = { table.append($0) }
        #expect(Console(environment: e).status(paths: paths, json: false) == .success)
        let lines = table.text.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("PIPELINE") == true)
        let seoulLine = try #require(lines.first { $0.hasPrefix("sched-seoul ") })
        #expect(seoulLine.contains("STALE"))
        #expect(seoulLine.contains("2024-03-06 06:00:00 UTC"))
        #expect(seoulLine.contains("succeeded (fixtures)"))
        let stationsLine = try #require(lines.first { $0.hasPrefix("sched-stations ") })
        #expect(!stationsLine.contains("STALE"))
        #expect(stationsLine.contains("pid \(me.pid)@\(me.host) since 2024-03-06 06:30:00 UTC"))
        #expect(lines.contains("quota 2024-03-09 (KST): no API calls yet today"))
        #expect(lines.last == "stale (newest data older than its freshness contract or twice the schedule interval, or never loaded): sched-seoul")
    }
}

@Suite("crontab: names, the log directory, unit files, the executable")
struct CrontabCommandTests {
    @Test("pipeline names pick the lines; an unknown name is refused as `run` refuses it")
    func namesPickTheLines() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try env.writeScheduledPipelines(seoul: "20 * * * *", stations: "0 3 * * MON")
        let renderer = CrontabRenderer(executable: "/usr/local/bin/feedline", home: "/srv/feedline", database: "/srv/f.sqlite", logDirectory: "/var/log/feedline")
        #expect(env.feedline.crontab(names: ["sched-seoul"], paths: env.paths(pipelines: pipelines), renderer: renderer, systemd: false) == .success)
        let commands = env.out.text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("CRON_TZ=") }
        #expect(commands.count == 1 && commands[0].contains("run sched-seoul --live"), "\(env.out.text)")
        #expect(env.feedline.crontab(names: ["nope"], paths: env.paths(pipelines: pipelines), renderer: renderer, systemd: false) == .configuration)
        #expect(env.err.text.contains("no pipeline named 'nope'"), "\(env.err.text)")
    }

    @Test("the log directory the lines append to is created, so the first run is not lost to a missing directory")
    func logDirectoryIsCreated() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try env.writeScheduledPipelines()
        let logs = env.dir.path("home/Data/logs")
        let renderer = CrontabRenderer(executable: "/usr/local/bin/feedline", home: env.dir.path("home").path, database: "/srv/f.sqlite", logDirectory: logs.path)
        #expect(env.feedline.crontab(paths: env.paths(pipelines: pipelines), renderer: renderer, systemd: false, makeLogDirectory: true) == .success)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: logs.path, isDirectory: &isDirectory) && isDirectory.boolValue)
        #expect(env.err.text.contains("created the log directory"))
        #expect(env.out.text.contains(">>\(logs.path)/sched-seoul.log 2>&1"))
    }

    @Test("--output-dir writes one file per unit, replaces its own, and refuses another file without --force")
    func unitFilesAreWrittenOneByOne() throws {
        let env = try TestEnvironment()
        defer { env.dir.remove() }
        let pipelines = try env.writeScheduledPipelines(seoul: "20 * * * *", stations: "0 3 * * MON")
        let units = env.dir.path("units")
        try FileManager.default.createDirectory(at: units, withIntermediateDirectories: true)
        let renderer = CrontabRenderer(executable: "/usr/local/bin/feedline", home: "/srv/feedline", database: "/srv/f.sqlite", logDirectory: "/l")
        let write = { (force: Bool) in
            env.feedline.crontab(paths: env.paths(pipelines: pipelines), renderer: renderer, systemd: true, outputDirectory: units, force: force)
        }
        #expect(write(false) == .success, "\(env.err.text)")
        let names = try FileManager.default.contentsOfDirectory(atPath: units.path).sorted()
        #expect(names == ["feedline-sched-seoul.service", "feedline-sched-seoul.timer", "feedline-sched-stations.service", "feedline-sched-stations.timer"])
        let service = try String(contentsOf: units.appendingPathComponent("feedline-sched-seoul.service"), encoding: .utf8)
        #expect(service.hasPrefix(CrontabRenderer.unitMarker))
        #expect(service.contains("ExecStart=/usr/local/bin/feedline run sched-seoul --live --db /srv/f.sqlite"))
        #expect(service.contains("SuccessExitStatus=10") && !service.contains("SuccessExitStatus=75"))
        let timer = try String(contentsOf: units.appendingPathComponent("feedline-sched-seoul.timer"), encoding: .utf8)
        #expect(timer.contains("OnCalendar=*-*-* *:20:00 Asia/Seoul") && timer.contains("Unit=feedline-sched-seoul.service"))
        #expect(!timer.contains("[Service]") && !service.contains("[Timer]"))
        #expect(env.out.text.contains("systemctl enable --now feedline-sched-seoul.timer feedline-sched-stations.timer"))

        // Its own files are replaced; a file someone else wrote is not, unless --force.
        #expect(write(false) == .success)
        try "[Unit]\nDescription=mine\n".write(to: units.appendingPathComponent("feedline-sched-seoul.timer"), atomically: true, encoding: .utf8)
        #expect(write(false) == .usage)
        #expect(env.err.text.contains("feedline-sched-seoul.timer"), "\(env.err.text)")
        #expect(try String(contentsOf: units.appendingPathComponent("feedline-sched-seoul.timer"), encoding: .utf8) == "[Unit]\nDescription=mine\n")
        #expect(write(true) == .success)
        #expect(try String(contentsOf: units.appendingPathComponent("feedline-sched-seoul.timer"), encoding: .utf8).hasPrefix(CrontabRenderer.unitMarker))
    }
}

extension CrontabCommandTests {
    @Test("the lines name the installed path when feedline runs from a build directory, else the running executable")
    func defaultExecutable() {
        #expect(CrontabCommand.defaultExecutable(running: "/src/feedline/.build/x86_64-unknown-linux-gnu/release/feedline") == "/usr/local/bin/feedline")
        #expect(CrontabCommand.defaultExecutable(running: "/src/feedline/.build-pg/debug/feedline") == "/usr/local/bin/feedline")
        #expect(CrontabCommand.defaultExecutable(running: "/opt/tools/feedline") == "/opt/tools/feedline")
    }
}
