#!/usr/bin/zsh -f
# Drives zsh's real completion system and prints what it offers, one match per line.
#   zsh -f Tests/Support/zsh_complete.zsh FPATH_DIR 'userdebug run '
# An interactive zsh runs in a pseudo-terminal (zsh/zpty) with compinit and FPATH_DIR on $fpath;
# the line is typed, then Tab runs complete-word. A wrapper around compadd prints each match the
# completion functions add, between two marker lines that compprefuncs/comppostfuncs print, and
# the shell exits after the completion. Exit 2 when the markers have not all come within 20 s.
#
# The terminal echoes what is typed while the shell runs a command (on a loaded machine the echo of
# the line defining __end came first and passed for the end of a completion that had not begun),
# so no marker is ever typed as it is printed: the shell spells it from lower case
# (${(U):-ready-1} prints READY-1), and only what the shell prints matches. Each setup line is
# typed once the shell has printed the marker of the one before, the completion line once all
# of them ran.
zmodload zsh/zpty || exit 3
# zle needs a terminal type it can drive (a test runner may say TERM=dumb).
export TERM=xterm
local fpath_dir=$1 line=$2
local output deadline=$(( SECONDS + 20 ))

# Reads what the shell prints until $output holds $1; exit 2 at the deadline.
await() {
  local chunk
  while [[ $output != *$1* ]]; do
    if (( SECONDS >= deadline )); then
      zpty -d child
      print -r -- "no $1 within 20 s: $output" >&2
      exit 2
    fi
    if zpty -r -t child chunk; then output+=$chunk; else sleep 0.05; fi
  done
}

# Types one setup line and waits until the shell has run it.
integer step=0
setup() {
  (( ++step ))
  zpty -w child "$1; print -r -- \${(U):-ready-$step}"
  await "READY-$step"
}

zpty child zsh -f -i || exit 3
setup "PS1='' PROMPT='' RPROMPT=''; unsetopt zle_bracketed_paste 2>/dev/null"
setup "fpath=(${(q)fpath_dir} \$fpath); autoload -Uz compinit; compinit -u -D"
setup 'zstyle ":completion:*" list-prompt ""; zstyle ":completion:*" select-prompt ""; LISTMAX=100000'
# The matches a real compadd would add; pass-through when the caller collects matches itself.
setup 'compadd() { if (( ${@[(I)-[OAD]*]} )); then builtin compadd "$@"; return; fi; local -a __m; builtin compadd -O __m "$@"; local m; for m in $__m; do print -r -- "${(U):-match}:$m"; done; builtin compadd "$@"; }'
setup '__begin() { print -r -- ${(U):-completion-begin} }; __end() { print -r -- ${(U):-completion-end}; exit }'
# Enter is unbound last: from then on, nothing typed runs as a command.
setup 'compprefuncs=(__begin); comppostfuncs=(__end); bindkey "^I" complete-word; bindkey "^M" undefined-key; bindkey "^J" undefined-key'
output=
zpty -w -n child "$line"$'\t'
await COMPLETION-END
zpty -d child
local -a lines=("${(@f)${output//$'\r'/}}")
local l
integer inside=0
for l in $lines; do
  [[ $l == *COMPLETION-BEGIN* ]] && inside=1
  (( inside )) && [[ $l == MATCH:* ]] && print -r -- "${l#MATCH:}"
  [[ $l == *COMPLETION-END* ]] && break
done
exit 0
