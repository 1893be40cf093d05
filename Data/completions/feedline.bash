#!/bin/bash

__feedline_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__feedline_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__feedline_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

__feedline_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_feedline() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(--version -h --help)
    local -a repeating_options=()
    local -a non_repeating_options=()
    __feedline_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    init|run|replay|pipelines|check|snapshot|fixtures|intake|schedule|crontab|status|metrics|drift|query|report|backfill|describe|store|state|help)
        # Offer subcommand argument completions
        "_feedline_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'init run replay pipelines check snapshot fixtures intake schedule crontab status metrics drift query report backfill describe store state help' -- "${cur}"))
        ;;
    esac
}

_feedline_init() {
    repeating_flags=()
    non_repeating_flags=(--force --quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--db --log-level --log-format --home)
    __feedline_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac
}

_feedline_run() {
    repeating_flags=()
    non_repeating_flags=(--live --json --dry-run --fresh --quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--fixtures --pipelines-dir --archive --metrics-file --db --log-level --log-format --home)
    __feedline_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--fixtures')
        return
        ;;
    '--pipelines-dir')
        return
        ;;
    '--archive')
        return
        ;;
    '--metrics-file')
        return
        ;;
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    *)
        __feedline_add_completions -W "$(__feedline_custom_complete ---completion run -- positional@0 "${COMP_CWORD}" "$(__feedline_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_feedline_replay() {
    repeating_flags=()
    non_repeating_flags=(--force --json --quiet --version -h --help)
    repeating_options=(--param)
    non_repeating_options=(--source --checks --pipelines-dir --metrics-file --db --log-level --log-format --home)
    __feedline_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--source')
        return
        ;;
    '--param')
        return
        ;;
    '--checks')
        __feedline_add_completions -W "$(__feedline_custom_complete ---completion replay -- --checks "${COMP_CWORD}" "$(__feedline_cursor_index_in_current_word)")"
        return
        ;;
    '--pipelines-dir')
        return
        ;;
    '--metrics-file')
        return
        ;;
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac
}

_feedline_pipelines() {
    repeating_flags=()
    non_repeating_flags=(--json --quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--pipelines-dir --fixtures --db --log-level --log-format --home)
    __feedline_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--pipelines-dir')
        return
        ;;
    '--fixtures')
        return
        ;;
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac
}

_feedline_check() {
    repeating_flags=()
    non_repeating_flags=(--force --mkdir --json --quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--junit --fixtures --pipelines-dir --db --log-level --log-format --home)
    __feedline_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--junit')
        return
        ;;
    '--fixtures')
        return
        ;;
    '--pipelines-dir')
        return
        ;;
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    *)
        __feedline_add_completions -W "$(__feedline_custom_complete ---completion check -- positional@0 "${COMP_CWORD}" "$(__feedline_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_feedline_snapshot() {
    repeating_flags=()
    non_repeating_flags=(--json --force --quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--fixtures --pipelines-dir --db --log-level --log-format --home)
    __feedline_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--fixtures')
        return
        ;;
    '--pipelines-dir')
        return
        ;;
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    *)
        __feedline_add_completions -W "$(__feedline_custom_complete ---completion snapshot -- positional@0 "${COMP_CWORD}" "$(__feedline_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_feedline_fixtures() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __feedline_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    add)
        # Offer subcommand argument completions
        "_feedline_fixtures_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'add' -- "${cur}"))
        ;;
    esac
}

_feedline_fixtures_add() {
    repeating_flags=()
    non_repeating_flags=(--quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--fixtures --pipelines-dir --db --log-level --log-format --home)
    __feedline_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--fixtures')
        return
        ;;
    '--pipelines-dir')
        return
        ;;
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __feedline_add_completions -W "$(__feedline_custom_complete ---completion fixtures add -- positional@0 "${COMP_CWORD}" "$(__feedline_cursor_index_in_current_word)")"
        return
        ;;
    2)
        __feedline_add_completions -f
        return
        ;;
    esac
}

_feedline_intake() {
    repeating_flags=()
    non_repeating_flags=(--legacy --json --quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--station --date --activity --metres-per-hour --speed --hours --db --log-level --log-format --home)
    __feedline_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--station')
        return
        ;;
    '--date')
        return
        ;;
    '--activity')
        return
        ;;
    '--metres-per-hour')
        return
        ;;
    '--speed')
        return
        ;;
    '--hours')
        return
        ;;
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac
}

_feedline_schedule() {
    repeating_flags=()
    non_repeating_flags=(--from-fixtures --quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--next --max-catch-up --fixtures --pipelines-dir --archive --metrics-file --db --log-level --log-format --home)
    __feedline_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--next')
        return
        ;;
    '--max-catch-up')
        return
        ;;
    '--fixtures')
        return
        ;;
    '--pipelines-dir')
        return
        ;;
    '--archive')
        return
        ;;
    '--metrics-file')
        return
        ;;
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    *)
        __feedline_add_completions -W "$(__feedline_custom_complete ---completion schedule -- positional@0 "${COMP_CWORD}" "$(__feedline_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_feedline_crontab() {
    repeating_flags=()
    non_repeating_flags=(--systemd --force --quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--output-dir --executable --log-dir --pipelines-dir --db --log-level --log-format --home)
    __feedline_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--output-dir')
        return
        ;;
    '--executable')
        return
        ;;
    '--log-dir')
        return
        ;;
    '--pipelines-dir')
        return
        ;;
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    *)
        __feedline_add_completions -W "$(__feedline_custom_complete ---completion crontab -- positional@0 "${COMP_CWORD}" "$(__feedline_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_feedline_status() {
    repeating_flags=()
    non_repeating_flags=(--json --check --wide --quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--pipelines-dir --db --log-level --log-format --home)
    __feedline_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--pipelines-dir')
        return
        ;;
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac
}

_feedline_metrics() {
    repeating_flags=()
    non_repeating_flags=(--quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--metrics-file --pipelines-dir --db --log-level --log-format --home)
    __feedline_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--metrics-file')
        return
        ;;
    '--pipelines-dir')
        return
        ;;
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac
}

_feedline_drift() {
    repeating_flags=()
    non_repeating_flags=(--json --quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--db --log-level --log-format --home)
    __feedline_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac
}

_feedline_query() {
    repeating_flags=()
    non_repeating_flags=(--list --force --mkdir --quiet --version -h --help)
    repeating_options=(--param)
    non_repeating_options=(--file --saved --format --max-width --queries-dir --timeout -o --output --db --log-level --log-format --home)
    __feedline_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--file')
        return
        ;;
    '--saved')
        __feedline_add_completions -W "$(__feedline_custom_complete ---completion query -- --saved "${COMP_CWORD}" "$(__feedline_cursor_index_in_current_word)")"
        return
        ;;
    '--format')
        return
        ;;
    '--param')
        return
        ;;
    '--max-width')
        return
        ;;
    '--queries-dir')
        return
        ;;
    '--timeout')
        return
        ;;
    '-o'|'--output')
        return
        ;;
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __feedline_add_completions -W "$(__feedline_custom_complete ---completion query -- positional@0 "${COMP_CWORD}" "$(__feedline_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_feedline_report() {
    repeating_flags=()
    non_repeating_flags=(--postings --force --mkdir --quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--station --province --from --to --days --out -o --activity --metres-per-hour --speed --hours --db --log-level --log-format --home)
    __feedline_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--station')
        return
        ;;
    '--province')
        return
        ;;
    '--from')
        return
        ;;
    '--to')
        return
        ;;
    '--days')
        return
        ;;
    '--out'|'-o')
        return
        ;;
    '--activity')
        return
        ;;
    '--metres-per-hour')
        return
        ;;
    '--speed')
        return
        ;;
    '--hours')
        return
        ;;
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac
}

_feedline_backfill() {
    repeating_flags=()
    non_repeating_flags=(--dry-run --json --quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--from --to --page-size --pipelines-dir --archive --db --log-level --log-format --home)
    __feedline_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--from')
        return
        ;;
    '--to')
        return
        ;;
    '--page-size')
        return
        ;;
    '--pipelines-dir')
        return
        ;;
    '--archive')
        return
        ;;
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __feedline_add_completions -W "$(__feedline_custom_complete ---completion backfill -- positional@0 "${COMP_CWORD}" "$(__feedline_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_feedline_describe() {
    repeating_flags=()
    non_repeating_flags=(--json --datasette --quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--db --log-level --log-format --home)
    __feedline_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac
}

_feedline_store() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __feedline_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    copy)
        # Offer subcommand argument completions
        "_feedline_store_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'copy' -- "${cur}"))
        ;;
    esac
}

_feedline_store_copy() {
    repeating_flags=()
    non_repeating_flags=(--replace --quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--from --to --db --log-level --log-format --home)
    __feedline_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--from')
        return
        ;;
    '--to')
        return
        ;;
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac
}

_feedline_state() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __feedline_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    show|export|import|reset)
        # Offer subcommand argument completions
        "_feedline_state_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'show export import reset' -- "${cur}"))
        ;;
    esac
}

_feedline_state_show() {
    repeating_flags=()
    non_repeating_flags=(--json --quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--db --log-level --log-format --home)
    __feedline_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __feedline_add_completions -W "$(__feedline_custom_complete ---completion state show -- positional@0 "${COMP_CWORD}" "$(__feedline_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_feedline_state_export() {
    repeating_flags=()
    non_repeating_flags=(--quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--db --log-level --log-format --home)
    __feedline_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac
}

_feedline_state_import() {
    repeating_flags=()
    non_repeating_flags=(--quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--pipelines-dir --db --log-level --log-format --home)
    __feedline_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--pipelines-dir')
        return
        ;;
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __feedline_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    esac
}

_feedline_state_reset() {
    repeating_flags=()
    non_repeating_flags=(--yes --quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--db --log-level --log-format --home)
    __feedline_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--db')
        return
        ;;
    '--log-level')
        return
        ;;
    '--log-format')
        return
        ;;
    '--home')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __feedline_add_completions -W "$(__feedline_custom_complete ---completion state reset -- positional@0 "${COMP_CWORD}" "$(__feedline_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_feedline_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __feedline_offer_flags_options -1
}

complete -o filenames -F _feedline feedline