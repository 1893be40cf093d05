function __feedline_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __feedline_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __feedline_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __feedline_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __feedline_parse_tokens -S
    set -l unparsed_tokens (__feedline_tokens -pc)
    switch $unparsed_tokens[1]
    case 'feedline'
        __feedline_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'init'
            __feedline_parse_subcommand 1 'force' 'db=' 'log-level=' 'home=' 'quiet' 'version' 'h/help'
        case 'run'
            __feedline_parse_subcommand -r 1 'live' 'fixtures=' 'pipelines-dir=' 'archive=' 'json' 'dry-run' 'fresh' 'metrics-file=' 'db=' 'log-level=' 'home=' 'quiet' 'version' 'h/help'
        case 'replay'
            __feedline_parse_subcommand -r 1 'source=' 'param=+' 'force' 'checks=' 'pipelines-dir=' 'metrics-file=' 'json' 'db=' 'log-level=' 'home=' 'quiet' 'version' 'h/help'
        case 'pipelines'
            __feedline_parse_subcommand 0 'pipelines-dir=' 'fixtures=' 'json' 'db=' 'log-level=' 'home=' 'quiet' 'version' 'h/help'
        case 'check'
            __feedline_parse_subcommand -r 1 'junit=' 'force' 'mkdir' 'json' 'fixtures=' 'pipelines-dir=' 'db=' 'log-level=' 'home=' 'quiet' 'version' 'h/help'
        case 'snapshot'
            __feedline_parse_subcommand -r 1 'json' 'force' 'fixtures=' 'pipelines-dir=' 'db=' 'log-level=' 'home=' 'quiet' 'version' 'h/help'
        case 'intake'
            __feedline_parse_subcommand 0 'station=' 'date=' 'activity=' 'metres-per-hour=' 'speed=' 'hours=' 'legacy' 'json' 'db=' 'log-level=' 'home=' 'quiet' 'version' 'h/help'
        case 'schedule'
            __feedline_parse_subcommand -r 1 'from-fixtures' 'next=' 'max-catch-up=' 'fixtures=' 'pipelines-dir=' 'archive=' 'metrics-file=' 'db=' 'log-level=' 'home=' 'quiet' 'version' 'h/help'
        case 'crontab'
            __feedline_parse_subcommand -r 1 'systemd' 'output-dir=' 'force' 'executable=' 'log-dir=' 'pipelines-dir=' 'db=' 'log-level=' 'home=' 'quiet' 'version' 'h/help'
        case 'status'
            __feedline_parse_subcommand 0 'json' 'check' 'wide' 'pipelines-dir=' 'db=' 'log-level=' 'home=' 'quiet' 'version' 'h/help'
        case 'metrics'
            __feedline_parse_subcommand 0 'metrics-file=' 'pipelines-dir=' 'db=' 'log-level=' 'home=' 'quiet' 'version' 'h/help'
        case 'drift'
            __feedline_parse_subcommand 1 'json' 'db=' 'log-level=' 'home=' 'quiet' 'version' 'h/help'
        case 'query'
            __feedline_parse_subcommand 1 'file=' 'saved=' 'list' 'format=' 'param=+' 'max-width=' 'queries-dir=' 'timeout=' 'o/output=' 'force' 'mkdir' 'db=' 'log-level=' 'home=' 'quiet' 'version' 'h/help'
        case 'report'
            __feedline_parse_subcommand 0 'station=' 'province=' 'from=' 'to=' 'days=' 'postings' 'o/out=' 'force' 'mkdir' 'activity=' 'metres-per-hour=' 'speed=' 'hours=' 'db=' 'log-level=' 'home=' 'quiet' 'version' 'h/help'
        case 'backfill'
            __feedline_parse_subcommand 1 'from=' 'to=' 'page-size=' 'dry-run' 'json' 'pipelines-dir=' 'archive=' 'db=' 'log-level=' 'home=' 'quiet' 'version' 'h/help'
        case 'describe'
            __feedline_parse_subcommand 1 'json' 'datasette' 'db=' 'log-level=' 'home=' 'quiet' 'version' 'h/help'
        case 'store'
            __feedline_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'copy'
                __feedline_parse_subcommand 0 'from=' 'to=' 'replace' 'db=' 'log-level=' 'home=' 'quiet' 'version' 'h/help'
            end
        case 'help'
            __feedline_parse_subcommand -r 1 'version'
        end
    end
end

function __feedline_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __feedline_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __feedline_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __feedline_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__feedline_tokens -p)
    if test -z "$(__feedline_tokens -t)"
        set -l index (count (__feedline_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'feedline' -f
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline" version' -l 'version' -d 'Show the version.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline" -eq 1' -fa 'init' -d 'Create a feedline home: example pipelines, their fixture feeds, saved queries, feedline.yaml.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline" -eq 1' -fa 'run' -d 'Run pipelines: fetch (or read fixtures) → parse → map → transform → load.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline" -eq 1' -fa 'replay' -d 'Re-load saved payloads (an archive or any directory of .xml/.json files) with no network.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline" -eq 1' -fa 'pipelines' -d 'List and validate the pipeline files.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline" -eq 1' -fa 'check' -d 'Test pipelines on their fixtures: declared checks, and snapshots of the rows they produce.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline" -eq 1' -fa 'snapshot' -d 'Write the rows a pipeline\'s fixtures produce to its snapshot files, for `feedline check`.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline" -eq 1' -fa 'intake' -d 'Print a station\'s hourly, daily and 7-day inhaled PM10/PM2.5 for a walking profile.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline" -eq 1' -fa 'schedule' -d 'Run scheduled pipelines at their cron times until SIGTERM or Ctrl-C.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline" -eq 1' -fa 'crontab' -d 'Print crontab lines (or write systemd units) that run the scheduled pipelines.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline" -eq 1' -fa 'status' -d 'Show each pipeline\'s last run, newest data, next fire time and lock holder.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline" -eq 1' -fa 'metrics' -d 'Print each pipeline\'s last run, data age, freshness and today\'s quota as Prometheus metrics.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline" -eq 1' -fa 'drift' -d 'List the fields feeds answered with that drifted from what their operations declare.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline" -eq 1' -fa 'query' -d 'Run one read-only SQL query (or a saved one) and print the rows as a table, CSV, JSON or NDJSON.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline" -eq 1' -fa 'report' -d 'Write a self-contained HTML report (inline SVG charts) for a station or a province.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline" -eq 1' -fa 'backfill' -d 'Fetch only the station-hours a realtime-by-station pipeline is missing between two dates.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline" -eq 1' -fa 'describe' -d 'Describe the database: every table and view with its meaning and row count, or one table\'s columns with their types, units and meaning.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline" -eq 1' -fa 'store' -d 'Move a feedline database from SQLite to PostgreSQL.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline init" force' -l 'force' -d 'Replace files that already exist (pipelines, fixtures, queries, feedline.yaml).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline init" db' -l 'db' -d 'SQLite database file, or a postgres://user@host:port/dbname URL (needs the PostgreSQL build; the password from PGPASSWORD or ~/.pgpass).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline init" log-level' -l 'log-level' -d 'Log level: trace, debug, info, notice, warning, error, critical.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline init" home' -l 'home' -d 'The feedline home (made by `feedline init`); default: $FEEDLINE_HOME, else the nearest directory up from here holding feedline.yaml or Pipelines/.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline init" quiet' -l 'quiet' -d 'Print only what was asked for and what went wrong: query rows, tables, --json documents, --dry-run plans, errors and warnings. Leaves out the progress line, run and backfill summaries and notes (the exit code still says how it went).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline init" version' -l 'version' -d 'Show the version.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline init" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline run" -ge 1' -fka '(__feedline_custom_completion ---completion run -- positional@0 (count (__feedline_tokens -pc)) (__feedline_tokens -tC))'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline run" live' -l 'live' -d 'Fetch from the live API instead of the fixture files.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline run" fixtures' -l 'fixtures' -d 'Directory the pipelines\' fixture paths are relative to (default Data/fixtures).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline run" pipelines-dir' -l 'pipelines-dir' -d 'Directory of pipeline files (default Pipelines).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline run" archive' -l 'archive' -d 'Where live payloads are archived (default Data/archive).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline run" json' -l 'json' -d 'Print a machine-readable JSON summary.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline run" dry-run' -l 'dry-run' -d 'Print the request plan (redacted URLs) and its quota cost; call and write nothing.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline run" fresh' -l 'fresh' -d 'Fetch every page again, even pages an interrupted live run of the same plan archived (by default they are loaded from the archive).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline run" metrics-file' -l 'metrics-file' -d 'Rewrite this Prometheus metrics file (node_exporter\'s textfile collector) after the runs, atomically; default: $FEEDLINE_METRICS_FILE, else metrics_file: in feedline.yaml.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline run" db' -l 'db' -d 'SQLite database file, or a postgres://user@host:port/dbname URL (needs the PostgreSQL build; the password from PGPASSWORD or ~/.pgpass).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline run" log-level' -l 'log-level' -d 'Log level: trace, debug, info, notice, warning, error, critical.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline run" home' -l 'home' -d 'The feedline home (made by `feedline init`); default: $FEEDLINE_HOME, else the nearest directory up from here holding feedline.yaml or Pipelines/.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline run" quiet' -l 'quiet' -d 'Print only what was asked for and what went wrong: query rows, tables, --json documents, --dry-run plans, errors and warnings. Leaves out the progress line, run and backfill summaries and notes (the exit code still says how it went).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline run" version' -l 'version' -d 'Show the version.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline run" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline replay" source' -l 'source' -d 'Feed of plain files that carry no metadata (e.g. airkorea).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline replay"' -l 'param' -d 'Request parameter the payloads omit, e.g. stationName=종로구 (repeatable).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline replay" force' -l 'force' -d 'Load payloads even if the same bytes were loaded before.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline replay" checks' -l 'checks' -d 'Run this pipeline\'s declared checks on the load.' -rfka '(__feedline_custom_completion ---completion replay -- --checks (count (__feedline_tokens -pc)) (__feedline_tokens -tC))'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline replay" pipelines-dir' -l 'pipelines-dir' -d 'Directory of pipeline files, for --checks and the metrics (default Pipelines).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline replay" metrics-file' -l 'metrics-file' -d 'Rewrite this Prometheus metrics file (node_exporter\'s textfile collector) after the runs, atomically; default: $FEEDLINE_METRICS_FILE, else metrics_file: in feedline.yaml.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline replay" json' -l 'json' -d 'Print a machine-readable JSON summary.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline replay" db' -l 'db' -d 'SQLite database file, or a postgres://user@host:port/dbname URL (needs the PostgreSQL build; the password from PGPASSWORD or ~/.pgpass).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline replay" log-level' -l 'log-level' -d 'Log level: trace, debug, info, notice, warning, error, critical.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline replay" home' -l 'home' -d 'The feedline home (made by `feedline init`); default: $FEEDLINE_HOME, else the nearest directory up from here holding feedline.yaml or Pipelines/.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline replay" quiet' -l 'quiet' -d 'Print only what was asked for and what went wrong: query rows, tables, --json documents, --dry-run plans, errors and warnings. Leaves out the progress line, run and backfill summaries and notes (the exit code still says how it went).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline replay" version' -l 'version' -d 'Show the version.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline replay" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline pipelines" pipelines-dir' -l 'pipelines-dir' -d 'Directory of pipeline files (default Pipelines).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline pipelines" fixtures' -l 'fixtures' -d 'Fixtures directory, to check the files pipelines name (default Data/fixtures).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline pipelines" json' -l 'json' -d 'Print one JSON object: the pipelines, every problem (file, field, message) and the counts.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline pipelines" db' -l 'db' -d 'SQLite database file, or a postgres://user@host:port/dbname URL (needs the PostgreSQL build; the password from PGPASSWORD or ~/.pgpass).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline pipelines" log-level' -l 'log-level' -d 'Log level: trace, debug, info, notice, warning, error, critical.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline pipelines" home' -l 'home' -d 'The feedline home (made by `feedline init`); default: $FEEDLINE_HOME, else the nearest directory up from here holding feedline.yaml or Pipelines/.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline pipelines" quiet' -l 'quiet' -d 'Print only what was asked for and what went wrong: query rows, tables, --json documents, --dry-run plans, errors and warnings. Leaves out the progress line, run and backfill summaries and notes (the exit code still says how it went).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline pipelines" version' -l 'version' -d 'Show the version.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline pipelines" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline check" -ge 1' -fka '(__feedline_custom_completion ---completion check -- positional@0 (count (__feedline_tokens -pc)) (__feedline_tokens -tC))'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline check" junit' -l 'junit' -d 'Write the results as JUnit XML to this file: a new file, or one an earlier --junit wrote (never a directory, device, the database or any SQLite file).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline check" force' -l 'force' -d 'With --junit: replace an existing file that is not a JUnit report feedline wrote.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline check" mkdir' -l 'mkdir' -d 'With --junit: create the missing directories of the path.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline check" json' -l 'json' -d 'Print the results as one JSON object.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline check" fixtures' -l 'fixtures' -d 'Directory the pipelines\' fixture and snapshot paths are relative to (default Data/fixtures).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline check" pipelines-dir' -l 'pipelines-dir' -d 'Directory of pipeline files (default Pipelines).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline check" db' -l 'db' -d 'SQLite database file, or a postgres://user@host:port/dbname URL (needs the PostgreSQL build; the password from PGPASSWORD or ~/.pgpass).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline check" log-level' -l 'log-level' -d 'Log level: trace, debug, info, notice, warning, error, critical.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline check" home' -l 'home' -d 'The feedline home (made by `feedline init`); default: $FEEDLINE_HOME, else the nearest directory up from here holding feedline.yaml or Pipelines/.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline check" quiet' -l 'quiet' -d 'Print only what was asked for and what went wrong: query rows, tables, --json documents, --dry-run plans, errors and warnings. Leaves out the progress line, run and backfill summaries and notes (the exit code still says how it went).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline check" version' -l 'version' -d 'Show the version.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline check" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline snapshot" -ge 1' -fka '(__feedline_custom_completion ---completion snapshot -- positional@0 (count (__feedline_tokens -pc)) (__feedline_tokens -tC))'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline snapshot" json' -l 'json' -d 'Print what was written as one JSON object.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline snapshot" force' -l 'force' -d 'Replace a snapshot file that is not one feedline wrote (never a directory, device or SQLite file).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline snapshot" fixtures' -l 'fixtures' -d 'Directory the pipelines\' fixture and snapshot paths are relative to (default Data/fixtures).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline snapshot" pipelines-dir' -l 'pipelines-dir' -d 'Directory of pipeline files (default Pipelines).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline snapshot" db' -l 'db' -d 'SQLite database file, or a postgres://user@host:port/dbname URL (needs the PostgreSQL build; the password from PGPASSWORD or ~/.pgpass).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline snapshot" log-level' -l 'log-level' -d 'Log level: trace, debug, info, notice, warning, error, critical.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline snapshot" home' -l 'home' -d 'The feedline home (made by `feedline init`); default: $FEEDLINE_HOME, else the nearest directory up from here holding feedline.yaml or Pipelines/.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline snapshot" quiet' -l 'quiet' -d 'Print only what was asked for and what went wrong: query rows, tables, --json documents, --dry-run plans, errors and warnings. Leaves out the progress line, run and backfill summaries and notes (the exit code still says how it went).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline snapshot" version' -l 'version' -d 'Show the version.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline snapshot" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline intake" station' -l 'station' -d 'Station name, as AirKorea spells it (e.g. 종로구).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline intake" date' -l 'date' -d 'Day (KST) to report; the week is the 6 days before it and this day.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline intake" activity' -l 'activity' -d 'Activity level while walking: sedentary, light, moderate, high.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline intake" metres-per-hour' -l 'metres-per-hour' -d 'Metres walked in each walking hour.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline intake" speed' -l 'speed' -d 'Walking speed used to turn metres into time.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline intake" hours' -l 'hours' -d 'Walking hours (KST, start of hour), as a range or list: 0-23, 7-9, 8,18.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline intake" legacy' -l 'legacy' -d 'Use the original app\'s formula (labelled LEGACY), in exact integer arithmetic.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline intake" json' -l 'json' -d 'Print one JSON object: the settings, the day\'s walking hours, the day, each of the 7 days and the week (µg; null where no walking hour had data).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline intake" db' -l 'db' -d 'SQLite database file, or a postgres://user@host:port/dbname URL (needs the PostgreSQL build; the password from PGPASSWORD or ~/.pgpass).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline intake" log-level' -l 'log-level' -d 'Log level: trace, debug, info, notice, warning, error, critical.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline intake" home' -l 'home' -d 'The feedline home (made by `feedline init`); default: $FEEDLINE_HOME, else the nearest directory up from here holding feedline.yaml or Pipelines/.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline intake" quiet' -l 'quiet' -d 'Print only what was asked for and what went wrong: query rows, tables, --json documents, --dry-run plans, errors and warnings. Leaves out the progress line, run and backfill summaries and notes (the exit code still says how it went).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline intake" version' -l 'version' -d 'Show the version.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline intake" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline schedule" -ge 1' -fka '(__feedline_custom_completion ---completion schedule -- positional@0 (count (__feedline_tokens -pc)) (__feedline_tokens -tC))'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline schedule" from-fixtures' -l 'from-fixtures' -d 'Run from the pipelines\' fixture files instead of the live API (trying it out, tests).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline schedule" next' -l 'next' -d 'Print the next N fire times of each pipeline and exit.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline schedule" max-catch-up' -l 'max-catch-up' -d 'Most runs one catch_up: all pipeline gets after downtime.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline schedule" fixtures' -l 'fixtures' -d 'Directory the pipelines\' fixture paths are relative to (default Data/fixtures).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline schedule" pipelines-dir' -l 'pipelines-dir' -d 'Directory of pipeline files (default Pipelines).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline schedule" archive' -l 'archive' -d 'Where live payloads are archived (default Data/archive).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline schedule" metrics-file' -l 'metrics-file' -d 'Rewrite this Prometheus metrics file (node_exporter\'s textfile collector) after the runs, atomically; default: $FEEDLINE_METRICS_FILE, else metrics_file: in feedline.yaml.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline schedule" db' -l 'db' -d 'SQLite database file, or a postgres://user@host:port/dbname URL (needs the PostgreSQL build; the password from PGPASSWORD or ~/.pgpass).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline schedule" log-level' -l 'log-level' -d 'Log level: trace, debug, info, notice, warning, error, critical.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline schedule" home' -l 'home' -d 'The feedline home (made by `feedline init`); default: $FEEDLINE_HOME, else the nearest directory up from here holding feedline.yaml or Pipelines/.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline schedule" quiet' -l 'quiet' -d 'Print only what was asked for and what went wrong: query rows, tables, --json documents, --dry-run plans, errors and warnings. Leaves out the progress line, run and backfill summaries and notes (the exit code still says how it went).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline schedule" version' -l 'version' -d 'Show the version.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline schedule" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline crontab" -ge 1' -fka '(__feedline_custom_completion ---completion crontab -- positional@0 (count (__feedline_tokens -pc)) (__feedline_tokens -tC))'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline crontab" systemd' -l 'systemd' -d 'Systemd service + timer units instead of crontab lines.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline crontab" output-dir' -l 'output-dir' -d 'With --systemd: write one file per unit into this directory instead of printing them.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline crontab" force' -l 'force' -d 'With --output-dir: replace unit files feedline did not write.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline crontab" executable' -l 'executable' -d 'Path of the feedline executable (default: /usr/local/bin/feedline when this one runs from a build directory, else this one).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline crontab" log-dir' -l 'log-dir' -d 'Directory for per-pipeline logs (crontab; default HOME/Data/logs, created if missing).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline crontab" pipelines-dir' -l 'pipelines-dir' -d 'Directory of pipeline files (default Pipelines).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline crontab" db' -l 'db' -d 'SQLite database file, or a postgres://user@host:port/dbname URL (needs the PostgreSQL build; the password from PGPASSWORD or ~/.pgpass).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline crontab" log-level' -l 'log-level' -d 'Log level: trace, debug, info, notice, warning, error, critical.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline crontab" home' -l 'home' -d 'The feedline home (made by `feedline init`); default: $FEEDLINE_HOME, else the nearest directory up from here holding feedline.yaml or Pipelines/.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline crontab" quiet' -l 'quiet' -d 'Print only what was asked for and what went wrong: query rows, tables, --json documents, --dry-run plans, errors and warnings. Leaves out the progress line, run and backfill summaries and notes (the exit code still says how it went).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline crontab" version' -l 'version' -d 'Show the version.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline crontab" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline status" json' -l 'json' -d 'Print a machine-readable JSON object.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline status" check' -l 'check' -d 'Judge every pipeline: one line per problem; exit 0 ok, 1 warning, 2 error.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline status" wide' -l 'wide' -d 'Print every column, however wide.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline status" pipelines-dir' -l 'pipelines-dir' -d 'Directory of pipeline files (default Pipelines).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline status" db' -l 'db' -d 'SQLite database file, or a postgres://user@host:port/dbname URL (needs the PostgreSQL build; the password from PGPASSWORD or ~/.pgpass).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline status" log-level' -l 'log-level' -d 'Log level: trace, debug, info, notice, warning, error, critical.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline status" home' -l 'home' -d 'The feedline home (made by `feedline init`); default: $FEEDLINE_HOME, else the nearest directory up from here holding feedline.yaml or Pipelines/.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline status" quiet' -l 'quiet' -d 'Print only what was asked for and what went wrong: query rows, tables, --json documents, --dry-run plans, errors and warnings. Leaves out the progress line, run and backfill summaries and notes (the exit code still says how it went).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline status" version' -l 'version' -d 'Show the version.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline metrics" metrics-file' -l 'metrics-file' -d 'Write the metrics to this file (atomically) instead of printing them.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline metrics" pipelines-dir' -l 'pipelines-dir' -d 'Directory of pipeline files (default Pipelines).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline metrics" db' -l 'db' -d 'SQLite database file, or a postgres://user@host:port/dbname URL (needs the PostgreSQL build; the password from PGPASSWORD or ~/.pgpass).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline metrics" log-level' -l 'log-level' -d 'Log level: trace, debug, info, notice, warning, error, critical.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline metrics" home' -l 'home' -d 'The feedline home (made by `feedline init`); default: $FEEDLINE_HOME, else the nearest directory up from here holding feedline.yaml or Pipelines/.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline metrics" quiet' -l 'quiet' -d 'Print only what was asked for and what went wrong: query rows, tables, --json documents, --dry-run plans, errors and warnings. Leaves out the progress line, run and backfill summaries and notes (the exit code still says how it went).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline metrics" version' -l 'version' -d 'Show the version.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline metrics" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline drift" json' -l 'json' -d 'Print a JSON array of objects.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline drift" db' -l 'db' -d 'SQLite database file, or a postgres://user@host:port/dbname URL (needs the PostgreSQL build; the password from PGPASSWORD or ~/.pgpass).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline drift" log-level' -l 'log-level' -d 'Log level: trace, debug, info, notice, warning, error, critical.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline drift" home' -l 'home' -d 'The feedline home (made by `feedline init`); default: $FEEDLINE_HOME, else the nearest directory up from here holding feedline.yaml or Pipelines/.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline drift" quiet' -l 'quiet' -d 'Print only what was asked for and what went wrong: query rows, tables, --json documents, --dry-run plans, errors and warnings. Leaves out the progress line, run and backfill summaries and notes (the exit code still says how it went).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline drift" version' -l 'version' -d 'Show the version.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline drift" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline query" -eq 1' -fka '(__feedline_custom_completion ---completion query -- positional@0 (count (__feedline_tokens -pc)) (__feedline_tokens -tC))'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline query" file' -l 'file' -d 'Read the SQL from a file (- for standard input).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline query" saved' -l 'saved' -d 'Run a saved query, Data/queries/NAME.sql (a plain name: letters, digits, - and _).' -rfka '(__feedline_custom_completion ---completion query -- --saved (count (__feedline_tokens -pc)) (__feedline_tokens -tC))'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline query" list' -l 'list' -d 'List the saved queries with their parameters.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline query" format' -l 'format' -d 'Output format: table, csv, json, ndjson.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline query"' -l 'param' -d 'Value of a :name parameter (repeatable).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline query" max-width' -l 'max-width' -d 'Widest a table cell may be, in terminal columns (Hangul counts 2); longer cells end in …' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline query" queries-dir' -l 'queries-dir' -d 'Directory of saved queries (default Data/queries).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline query" timeout' -l 'timeout' -d 'Seconds SQLite may spend computing the rows before the query is stopped (0: no limit).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline query" o output' -s 'o' -l 'output' -d 'Write the rows to FILE instead of standard output, once the query has finished: a new file, or with --force an existing regular file (never a directory, device, the database or another SQLite file).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline query" force' -l 'force' -d 'With -o: replace an existing file.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline query" mkdir' -l 'mkdir' -d 'With -o: create the missing directories of the path.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline query" db' -l 'db' -d 'SQLite database file, or a postgres://user@host:port/dbname URL (needs the PostgreSQL build; the password from PGPASSWORD or ~/.pgpass).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline query" log-level' -l 'log-level' -d 'Log level: trace, debug, info, notice, warning, error, critical.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline query" home' -l 'home' -d 'The feedline home (made by `feedline init`); default: $FEEDLINE_HOME, else the nearest directory up from here holding feedline.yaml or Pipelines/.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline query" quiet' -l 'quiet' -d 'Print only what was asked for and what went wrong: query rows, tables, --json documents, --dry-run plans, errors and warnings. Leaves out the progress line, run and backfill summaries and notes (the exit code still says how it went).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline query" version' -l 'version' -d 'Show the version.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline query" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline report" station' -l 'station' -d 'Station name, as AirKorea spells it (e.g. 종로구).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline report" province' -l 'province' -d 'Province (시도), e.g. 서울: means over its stations.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline report" from' -l 'from' -d 'First day (KST). Default: the oldest of the --days newest days with data.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline report" to' -l 'to' -d 'Last day (KST). Default: the newest day with data.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline report" days' -l 'days' -d 'Days with data the range reaches back over when --from is not given.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline report" postings' -l 'postings' -d 'Add a panel of job postings by region (when career data is loaded).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline report" o out' -l 'out' -s 'o' -d 'HTML file to write. Default: report-NAME-FROM_TO.html.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline report" force' -l 'force' -d 'Replace an existing -o file that is not a feedline report (never a directory, device or SQLite file).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline report" mkdir' -l 'mkdir' -d 'Create the missing directories of the -o path.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline report" activity' -l 'activity' -d 'Activity level while walking: sedentary, light, moderate, high.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline report" metres-per-hour' -l 'metres-per-hour' -d 'Metres walked in each walking hour.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline report" speed' -l 'speed' -d 'Walking speed used to turn metres into time.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline report" hours' -l 'hours' -d 'Walking hours (KST, start of hour), as a range or list: 0-23, 7-9, 8,18.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline report" db' -l 'db' -d 'SQLite database file, or a postgres://user@host:port/dbname URL (needs the PostgreSQL build; the password from PGPASSWORD or ~/.pgpass).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline report" log-level' -l 'log-level' -d 'Log level: trace, debug, info, notice, warning, error, critical.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline report" home' -l 'home' -d 'The feedline home (made by `feedline init`); default: $FEEDLINE_HOME, else the nearest directory up from here holding feedline.yaml or Pipelines/.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline report" quiet' -l 'quiet' -d 'Print only what was asked for and what went wrong: query rows, tables, --json documents, --dry-run plans, errors and warnings. Leaves out the progress line, run and backfill summaries and notes (the exit code still says how it went).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline report" version' -l 'version' -d 'Show the version.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline report" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline backfill" -eq 1' -fka '(__feedline_custom_completion ---completion backfill -- positional@0 (count (__feedline_tokens -pc)) (__feedline_tokens -tC))'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline backfill" from' -l 'from' -d 'First KST day to fill (YYYY-MM-DD).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline backfill" to' -l 'to' -d 'Last KST day to fill (YYYY-MM-DD), inclusive.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline backfill" page-size' -l 'page-size' -d 'Rows per page for the backfill requests (default 1000).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline backfill" dry-run' -l 'dry-run' -d 'Print what is missing and the plan (with its quota cost); fetch and write nothing.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline backfill" json' -l 'json' -d 'Print one JSON object at the end (what was missing, the plan, the quota, the loads, what is still missing) instead of the lines.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline backfill" pipelines-dir' -l 'pipelines-dir' -d 'Directory of pipeline files (default Pipelines).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline backfill" archive' -l 'archive' -d 'Where live payloads are archived (default Data/archive).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline backfill" db' -l 'db' -d 'SQLite database file, or a postgres://user@host:port/dbname URL (needs the PostgreSQL build; the password from PGPASSWORD or ~/.pgpass).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline backfill" log-level' -l 'log-level' -d 'Log level: trace, debug, info, notice, warning, error, critical.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline backfill" home' -l 'home' -d 'The feedline home (made by `feedline init`); default: $FEEDLINE_HOME, else the nearest directory up from here holding feedline.yaml or Pipelines/.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline backfill" quiet' -l 'quiet' -d 'Print only what was asked for and what went wrong: query rows, tables, --json documents, --dry-run plans, errors and warnings. Leaves out the progress line, run and backfill summaries and notes (the exit code still says how it went).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline backfill" version' -l 'version' -d 'Show the version.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline backfill" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline describe" json' -l 'json' -d 'Print JSON (sorted keys) instead of a table.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline describe" datasette' -l 'datasette' -d 'Print Datasette metadata JSON for `datasette FILE -m metadata.json`.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline describe" db' -l 'db' -d 'SQLite database file, or a postgres://user@host:port/dbname URL (needs the PostgreSQL build; the password from PGPASSWORD or ~/.pgpass).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline describe" log-level' -l 'log-level' -d 'Log level: trace, debug, info, notice, warning, error, critical.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline describe" home' -l 'home' -d 'The feedline home (made by `feedline init`); default: $FEEDLINE_HOME, else the nearest directory up from here holding feedline.yaml or Pipelines/.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline describe" quiet' -l 'quiet' -d 'Print only what was asked for and what went wrong: query rows, tables, --json documents, --dry-run plans, errors and warnings. Leaves out the progress line, run and backfill summaries and notes (the exit code still says how it went).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline describe" version' -l 'version' -d 'Show the version.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline describe" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline store" version' -l 'version' -d 'Show the version.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline store" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_positional "feedline store" -eq 1' -fa 'copy' -d 'Copy a SQLite database into PostgreSQL: every table, bookmark and the ledger.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline store copy" from' -l 'from' -d 'The SQLite database to copy (default: --db or FEEDLINE_DB when it is a file, else the home\'s Data/feedline.sqlite).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline store copy" to' -l 'to' -d 'The PostgreSQL database to copy into, postgres://user@host:port/dbname (default: --db or FEEDLINE_DB when it is a postgres:// URL). The password comes from PGPASSWORD or ~/.pgpass.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline store copy" replace' -l 'replace' -d 'Empty the target\'s feedline tables first (when it holds rows that are not a copy of the source).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline store copy" db' -l 'db' -d 'SQLite database file, or a postgres://user@host:port/dbname URL (needs the PostgreSQL build; the password from PGPASSWORD or ~/.pgpass).' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline store copy" log-level' -l 'log-level' -d 'Log level: trace, debug, info, notice, warning, error, critical.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline store copy" home' -l 'home' -d 'The feedline home (made by `feedline init`); default: $FEEDLINE_HOME, else the nearest directory up from here holding feedline.yaml or Pipelines/.' -rfka ''
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline store copy" quiet' -l 'quiet' -d 'Print only what was asked for and what went wrong: query rows, tables, --json documents, --dry-run plans, errors and warnings. Leaves out the progress line, run and backfill summaries and notes (the exit code still says how it went).'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline store copy" version' -l 'version' -d 'Show the version.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline store copy" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'feedline' -n '__feedline_should_offer_completions_for_flags_or_options "feedline help" version' -l 'version' -d 'Show the version.'