# bash completion for userdebug(1)                                        -*- shell-script -*-
#
# Installed by Scripts/install.sh as $PREFIX/share/bash-completion/completions/userdebug, where
# bash-completion loads it on first use; without bash-completion, source it from ~/.bashrc.
# Needs bash >= 4; uses nothing from bash-completion itself.
#
# Adding a command is one line in _userdebug_commands. An option that takes a value also needs a
# line in _userdebug_value_of (else it is taken for a flag and its value is not skipped).

# One line per command: "words|options besides the global ones|positional argument", where the
# positional argument is file, session, response, command, or empty for none.
_userdebug_commands=(
    'copy-id|--to --lifetime --hand-off --new-owner --backend|'
    'dump-json|--to --lifetime --hand-off --new-owner --backend|'
    'print-response|--tag --path --status --body --headers --full --json --to --lifetime --hand-off --new-owner --backend|response'
    'copy-token|--to --lifetime --hand-off --new-owner --backend|'
    'menu|--json --popup --trace --dmenu --launcher|'
    'rofi|--trace|'
    'run|--to --lifetime --hand-off --new-owner --backend --trace|'
    'session import|--name --keep-current --from-clipboard --backend|file'
    'session set|--id --name --token --token-stdin --base-url --environment|'
    'session list|--json|'
    'session show||session'
    'session use||session'
    'session remove||session'
    'response record|--tag|file'
    'response list|--tag --path --status --limit --all-sessions --json|'
    'response import|--tag|file'
    'export curl|--tag --path --status --body-file --one-line --to --lifetime --hand-off --new-owner --backend|response'
    'export har|--tag --path --status --limit --all-sessions --to --lifetime --hand-off --new-owner --backend|response'
    'export postman-env|--to --lifetime --hand-off --new-owner --backend|'
    'export postman-collection|--tag --path --status --limit --to --lifetime --hand-off --new-owner --backend|response'
    'capture|--tag|'
    'copy|--selection --secret --json --lifetime --hand-off --new-owner --backend|'
    'paste|--selection --target --timeout --raw --backend|'
    'daemon|--check --trace|'
    'doctor|--backend --json --salvage|'
    'help||command'
    'version||'
)

# Options every command accepts.
_userdebug_global_options='--session --reveal --quiet --help'

# The values an option takes, in REPLY (empty when free-form, @sessions for session names);
# status 1 for a flag.
_userdebug_value_of() {
    case $1 in
        --to) REPLY='auto stdout clipboard primary both' ;;
        --selection) REPLY='clipboard primary' ;;
        --backend) REPLY='auto wayland x11' ;;
        --status) REPLY='2xx 3xx 4xx 5xx' ;;
        --target) REPLY='UTF8_STRING TARGETS STRING TEXT application/json' ;;
        --session) REPLY=@sessions ;;
        --launcher) REPLY='dmenu rofi fuzzel wofi bemenu' ;;
        --lifetime | --tag | --path | --name | --id | --token | --base-url | --environment | --limit | --timeout | --body-file | --salvage) REPLY='' ;;
        *) return 1 ;;
    esac
}

# Completes the value of option $1 from the prefix $2; status 1 when $1 is a flag.
_userdebug_complete_value() {
    local REPLY
    _userdebug_value_of "$1" || return 1
    if [[ $REPLY == @sessions ]]; then
        _userdebug_sessions "$2" "$3"
    else
        COMPREPLY=($(compgen -W "$REPLY" -- "$2"))
    fi
}

# Session names from `userdebug session list --json`, one JSON object per line. The first
# "name" member of a line is the session's (the user's own "name" comes later, inside "user").
# No jq: it may not be installed.
_userdebug_sessions() {
    local cur=$1 program=$2 name
    COMPREPLY=()
    while IFS= read -r name; do
        [[ -n $name && $name == "$cur"* ]] && COMPREPLY+=("$(printf '%q' "$name")")
    done < <("$program" session list --json 2>/dev/null |
        awk '{ i = index($0, "\"name\":\""); if (i) { s = substr($0, i + 8); j = index(s, "\""); if (j > 1) print substr(s, 1, j - 1) } }')
}

# The first words of the commands, each once: copy-id … session response …
_userdebug_command_words() {
    local entry word seen=' '
    for entry in "${_userdebug_commands[@]}"; do
        word=${entry%%|*}
        word=${word%% *}
        [[ $seen == *" $word "* ]] || seen+="$word "
    done
    REPLY=$seen
}

_userdebug() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} cword=$COMP_CWORD
    local program=userdebug entry word path subcommands='' options='' argument='' found='' REPLY i
    [[ ${COMP_WORDS[0]} == */* && -x ${COMP_WORDS[0]} ]] && program=${COMP_WORDS[0]}
    COMPREPLY=()

    # The command words come first: `userdebug session import …`.
    if ((cword == 1)); then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W '--help --version' -- "$cur"))
        else
            _userdebug_command_words
            COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
        fi
        return 0
    fi
    for entry in "${_userdebug_commands[@]}"; do
        word=${entry%%|*}
        [[ $word == "${COMP_WORDS[1]} "* ]] && subcommands+=" ${word#* }"
    done
    local first=2
    path=${COMP_WORDS[1]}
    if [[ -n $subcommands ]]; then
        if ((cword == 2)); then
            COMPREPLY=($(compgen -W "$subcommands" -- "$cur"))
            return 0
        fi
        path+=" ${COMP_WORDS[2]}"
        first=3
    fi
    for entry in "${_userdebug_commands[@]}"; do
        if [[ ${entry%%|*} == "$path" ]]; then
            found=1
            entry=${entry#*|}
            options=${entry%%|*}
            argument=${entry#*|}
        fi
    done
    [[ -n $found ]] || return 0

    # `--to=cl`: bash splits at '=' (it is in COMP_WORDBREAKS) into `--to`, `=`, `cl`; where it
    # is not, the word stays whole and the replies keep the `--to=` prefix.
    if [[ $cur == = ]] && _userdebug_complete_value "$prev" '' "$program"; then
        return 0
    fi
    if [[ $prev == = ]] && ((cword > first + 1)) && _userdebug_complete_value "${COMP_WORDS[cword - 2]}" "$cur" "$program"; then
        return 0
    fi
    if [[ $cur == --*=* ]]; then
        local option=${cur%%=*}
        if _userdebug_complete_value "$option" "${cur#*=}" "$program"; then
            for i in "${!COMPREPLY[@]}"; do COMPREPLY[i]="$option=${COMPREPLY[i]}"; done
        fi
        return 0
    fi
    if ((cword > first)) && [[ $prev == -* ]] && _userdebug_complete_value "$prev" "$cur" "$program"; then
        return 0
    fi

    # Count the positional arguments already given (a command takes at most one).
    local positionals=0 after_dashes=''
    for ((i = first; i < cword; i++)); do
        word=${COMP_WORDS[i]}
        if [[ -n $after_dashes ]]; then
            ((positionals += 1))
        elif [[ $word == -- ]]; then
            after_dashes=1
        elif [[ $word == = ]]; then
            ((i += 1)) # the value of `--option=value`
        elif [[ $word == -?* ]]; then
            # An option that takes a value consumes the next word, unless written `--option=value`.
            _userdebug_value_of "$word" && [[ ${COMP_WORDS[i + 1]} != = ]] && ((i += 1))
        else
            ((positionals += 1))
        fi
    done

    if [[ $cur == -?* && -z $after_dashes ]]; then
        COMPREPLY=($(compgen -W "$options $_userdebug_global_options" -- "$cur"))
        return 0
    fi
    if [[ -n $argument ]] && ((positionals == 0)); then
        case $argument in
            file)
                compopt -o filenames 2>/dev/null
                mapfile -t COMPREPLY < <(compgen -f -- "$cur") # names with spaces stay whole
                [[ -z $cur || $cur == - ]] && COMPREPLY+=(-)
                ;;
            session) _userdebug_sessions "$cur" "$program" ;;
            response) COMPREPLY=($(compgen -W 'last' -- "$cur")) ;;
            command)
                _userdebug_command_words
                COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
                ;;
        esac
        return 0
    fi
    [[ -z $after_dashes ]] && COMPREPLY=($(compgen -W "$options $_userdebug_global_options" -- "$cur"))
    return 0
}

complete -F _userdebug userdebug
