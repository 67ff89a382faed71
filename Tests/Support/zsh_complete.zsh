#!/usr/bin/zsh -f
# Drives zsh's real completion system and prints what it offers, one match per line.
#   zsh -f Tests/Support/zsh_complete.zsh FPATH_DIR 'userdebug run '
# An interactive zsh runs in a pseudo-terminal (zsh/zpty) with compinit and FPATH_DIR on $fpath;
# the line is typed, then Tab runs complete-word. A wrapper around compadd prints each match the
# completion functions add, between two marker lines that compprefuncs/comppostfuncs print, and
# the shell exits after the completion. Exit 2 when the markers do not come within 20 s.
zmodload zsh/zpty || exit 3
# zle needs a terminal type it can drive (a test runner may say TERM=dumb).
export TERM=xterm
local fpath_dir=$1 line=$2
zpty child zsh -f -i || exit 3
zpty -w child "PS1='' PROMPT='' RPROMPT=''; unsetopt zle_bracketed_paste 2>/dev/null"
zpty -w child "fpath=(${(q)fpath_dir} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w child 'zstyle ":completion:*" list-prompt ""; zstyle ":completion:*" select-prompt ""; LISTMAX=100000'
# The matches a real compadd would add; pass-through when the caller collects matches itself.
zpty -w child 'compadd() { if (( ${@[(I)-[OAD]*]} )); then builtin compadd "$@"; return; fi; local -a __m; builtin compadd -O __m "$@"; local m; for m in $__m; do print -r -- "MATCH:$m"; done; builtin compadd "$@"; }'
zpty -w child '__begin() { print -r -- "COMPLETION-BEGIN" }; __end() { print -r -- "COMPLETION-END"; exit }'
# Enter is unbound last: from then on, nothing typed runs as a command.
zpty -w child 'compprefuncs=(__begin); comppostfuncs=(__end); bindkey "^I" complete-word; bindkey "^M" undefined-key; bindkey "^J" undefined-key'
zpty -w -n child "$line"$'\t'
local output chunk inside=0 deadline=$(( SECONDS + 20 ))
while (( SECONDS < deadline )); do
  if zpty -r -t child chunk; then
    output+=$chunk
    [[ $output == *COMPLETION-END* ]] && break
  else
    sleep 0.05
  fi
done
zpty -d child
[[ $output == *COMPLETION-END* ]] || { print -r -- "no completion within 20 s: $output" >&2; exit 2 }
local -a lines=("${(@f)${output//$'\r'/}}")
local l
for l in $lines; do
  [[ $l == *COMPLETION-BEGIN* ]] && inside=1
  (( inside )) && [[ $l == MATCH:* ]] && print -r -- "${l#MATCH:}"
  [[ $l == *COMPLETION-END* ]] && break
done
exit 0
