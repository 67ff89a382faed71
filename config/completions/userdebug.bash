# bash completion for userdebug(1)                                        -*- shell-script -*-
#
# Installed by Scripts/install.sh as $PREFIX/share/bash-completion/completions/userdebug, where
# bash-completion loads it on first use; without bash-completion, source it from ~/.bashrc.
# Needs bash >= 4; uses nothing from bash-completion itself.
#
# Adding a command is one line in _userdebug_commands. An option that takes a value also needs a
# line in _userdebug_value_of (else it is taken for a flag and its value is not skipped).
# What only the store or the config knows (action ids, tags, statuses, session names) comes from
# `userdebug __complete KIND` at completion time.

# One line per command: "words|options besides the global ones|positional argument", where the
# positional argument is file, session, response, action, command, or empty for none.
_userdebug_commands=(
    'copy-id|--to --lifetime --hand-off --new-owner --backend|'
    'dump-json|--to --lifetime --hand-off --new-owner --backend|'
    'print-response|--tag --path --status --body --headers --full --json --to --lifetime --hand-off --new-owner --backend|response'
    'copy-token|--to --lifetime --hand-off --new-owner --backend|'
    'menu|--json --popup --trace --dmenu --launcher|'
    'rofi|--trace|'
    'run|--to --lifetime --hand-off --new-owner --backend --trace|action'
    'session import|--name --keep-current --from-clipboard --backend|file'
    'session set|--id --name --token --token-stdin --allow-empty-token --base-url --environment --keep-current|'
    'session list|--json|'
    'session show||session'
    'session use||session'
    'session remove||session'
    'response record|--tag|file'
    'response list|--tag --path --status --limit --all-sessions --json|'
    'response import|--tag|file'
    'export curl|--tag --path --status --body-file --one-line --keep-client-headers --to --lifetime --hand-off --new-owner --backend|response'
    'export har|--tag --path --status --limit --all-sessions --to --lifetime --hand-off --new-owner --backend|response'
    'export postman-env|--to --lifetime --hand-off --new-owner --backend|'
    'export postman-collection|--tag --path --status --limit --keep-client-headers --to --lifetime --hand-off --new-owner --backend|response'
    'capture|--tag|'
    'copy|--selection --secret --json --lifetime --hand-off --new-owner --backend|'
    'paste|--selection --target --timeout --raw --backend|'
    'daemon|--check --trace --keep-waiting|'
    'doctor|--backend --json --salvage|'
    'setup|--yes --desktop --keys --dry-run --undo|'
    'help||command'
    'version||'
)

# Options every command accepts (all but --help also before the command).
_userdebug_global_options='--session --reveal --quiet --help'

# The values an option takes, in REPLY (empty when free-form, @KIND for what `userdebug
# __complete KIND` lists: @sessions, @tags, @statuses); status 1 for a flag.
_userdebug_value_of() {
    case $1 in
        --to) REPLY='auto stdout clipboard primary clipboard+stdout' ;;
        --selection) REPLY='clipboard primary' ;;
        --backend) REPLY='auto wayland x11' ;;
        --status) REPLY=@statuses ;;
        --target) REPLY='UTF8_STRING TARGETS STRING TEXT application/json' ;;
        --session) REPLY=@sessions ;;
        --tag) REPLY=@tags ;;
        --launcher) REPLY='dmenu rofi fuzzel wofi bemenu' ;;
        --desktop) REPLY='auto x11 sway i3 gnome kde' ;;
        --lifetime | --path | --name | --id | --token | --base-url | --environment | --limit | --timeout | --body-file | --salvage | --keys) REPLY='' ;;
        *) return 1 ;;
    esac
}

# Completes the value of option $1 from the prefix $2; status 1 when $1 is a flag.
_userdebug_complete_value() {
    local REPLY
    _userdebug_value_of "$1" || return 1
    if [[ $REPLY == @* ]]; then
        _userdebug_words "${REPLY#@}" "$2" "$3"
    else
        COMPREPLY=($(compgen -W "$REPLY" -- "$2"))
    fi
}

# The words `userdebug __complete KIND` lists (KIND: actions, tags, statuses, sessions) that
# start with $2, each quoted for the command line; $3 is the program to ask.
_userdebug_words() {
    local kind=$1 cur=$2 program=$3 word
    COMPREPLY=()
    while IFS= read -r word; do
        [[ -n $word && $word == "$cur"* ]] && COMPREPLY+=("$(printf '%q' "$word")")
    done < <("$program" __complete "$kind" 2>/dev/null)
    return 0 # the loop's status is its last test's, which says nothing
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

    # An option's value, wherever it is (`--to cl`, `--session st` before the command too).
    # `--to=cl`: bash splits at '=' (it is in COMP_WORDBREAKS) into `--to`, `=`, `cl`; where it
    # is not, the word stays whole and the replies keep the `--to=` prefix.
    if ((cword > 1)); then
        if [[ $cur == = ]] && _userdebug_complete_value "$prev" '' "$program"; then
            return 0
        fi
        if [[ $prev == = ]] && ((cword > 2)) && _userdebug_complete_value "${COMP_WORDS[cword - 2]}" "$cur" "$program"; then
            return 0
        fi
        if [[ $prev == -* ]] && _userdebug_complete_value "$prev" "$cur" "$program"; then
            return 0
        fi
    fi
    if [[ $cur == --*=* ]]; then
        local option=${cur%%=*}
        if _userdebug_complete_value "$option" "${cur#*=}" "$program"; then
            for i in "${!COMPREPLY[@]}"; do COMPREPLY[i]="$option=${COMPREPLY[i]}"; done
        fi
        return 0
    fi

    # Global options may come before the command: `userdebug --session staging copy-id`.
    local start=1
    while ((start < cword)); do
        case ${COMP_WORDS[start]} in
            --session) [[ ${COMP_WORDS[start + 1]} == = ]] && ((start += 3)) || ((start += 2)) ;;
            --session=* | --reveal | --quiet | -q) ((start += 1)) ;;
            *) break ;;
        esac
    done
    ((start <= cword)) || return 0

    # The command words come next: `userdebug session import …`.
    if ((cword == start)); then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W '--help --version --session --reveal --quiet' -- "$cur"))
        else
            _userdebug_command_words
            COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
        fi
        return 0
    fi
    for entry in "${_userdebug_commands[@]}"; do
        word=${entry%%|*}
        [[ $word == "${COMP_WORDS[start]} "* ]] && subcommands+=" ${word#* }"
    done
    local first=$((start + 1))
    path=${COMP_WORDS[start]}
    if [[ -n $subcommands ]]; then
        if ((cword == start + 1)); then
            COMPREPLY=($(compgen -W "$subcommands" -- "$cur"))
            return 0
        fi
        path+=" ${COMP_WORDS[start + 1]}"
        first=$((start + 2))
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
            session) _userdebug_words sessions "$cur" "$program" ;;
            action) _userdebug_words actions "$cur" "$program" ;;
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
