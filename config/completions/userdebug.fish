# fish completion for userdebug(1).
#
# Installed by Scripts/install.sh as $PREFIX/share/fish/vendor_completions.d/userdebug.fish;
# fish looks in ~/.local/share/fish/vendor_completions.d and /usr/share/fish/vendor_completions.d.
#
# Adding a command is one `__userdebug_command` line at the end; an option no command had before
# also needs a line in __userdebug_option. What only the store or the config knows (action ids,
# tags, statuses, session names) comes from `userdebug __complete KIND` at completion time.

# The words of the command line before the cursor without the leading global options, which may
# come before the command (`userdebug --session staging copy-id`); the program is first.
function __userdebug_tokens
    set -l tokens (commandline -opc)
    set -l result $tokens[1]
    set -e tokens[1]
    while test (count $tokens) -ge 1
        switch $tokens[1]
            case --session
                set -e tokens[1..2]
            case '--session=*' --reveal --quiet -q
                set -e tokens[1]
            case '*'
                break
        end
    end
    printf '%s\n' $result $tokens
end

# The command the line names so far: "copy-id", "session import", "session" (a group without its
# subcommand yet), or nothing.
function __userdebug_current_command
    set -l tokens (__userdebug_tokens)
    set -e tokens[1]
    test (count $tokens) -ge 1; or return
    string match -q -- '-*' $tokens[1]; and return
    if contains -- $tokens[1] $__userdebug_groups
        if test (count $tokens) -ge 2
            echo "$tokens[1] $tokens[2]"
        else
            echo $tokens[1]
        end
    else
        echo $tokens[1]
    end
end

# Whether the command line names one of the given commands.
function __userdebug_using
    set -l command (__userdebug_current_command)
    test -n "$command"; and contains -- "$command" $argv
end

# Whether no command is named yet.
function __userdebug_needs_command
    set -l tokens (__userdebug_tokens)
    test (count $tokens) -eq 1
end

# Whether the command line names the group $argv[1] and not yet one of its subcommands.
function __userdebug_needs_subcommand
    set -l command (__userdebug_current_command)
    test "$command" = "$argv[1]"
end

# Whether no positional argument follows the command yet (every command takes at most one).
# Counts words that are neither options nor the value of the option before them.
function __userdebug_needs_argument
    set -l tokens (__userdebug_tokens)
    set -l words (string split ' ' -- (__userdebug_current_command))
    set -e tokens[1..(math (count $words) + 1)]
    set -l skip 0
    for token in $tokens
        if test $skip -eq 1
            set skip 0
        else if string match -q -- '--*=*' $token
            continue
        else if string match -q -- '-?*' $token
            contains -- (string replace -r '^--' '' -- $token) $__userdebug_value_options; and set skip 1
        else
            return 1
        end
    end
    return 0
end

# What `userdebug __complete KIND` lists: actions, tags, statuses or sessions; asked of the
# program the command line names.
function __userdebug_words -a kind
    set -l program (commandline -opc)[1]
    string match -q -- '*/*' $program; or set program userdebug
    command -q $program; or return
    command $program __complete $kind 2>/dev/null
end

# The options that take a value (so their value is not taken for a positional argument).
set -g __userdebug_value_options session to backend lifetime tag path status name id token base-url environment limit selection target timeout
set -g __userdebug_groups

# Declares option $argv[2] where the condition $argv[1] holds (a command is named, or none yet).
function __userdebug_option -a when option
    switch $option
        case session
            complete -c userdebug -n $when -l session -x -a '(__userdebug_words sessions)' -d 'Use this session instead of the current one'
        case reveal
            complete -c userdebug -n $when -l reveal -d 'Show secrets instead of redacting them'
        case quiet
            complete -c userdebug -n $when -s q -l quiet -d 'Print no notices on stderr'
        case help
            complete -c userdebug -n $when -s h -l help -d 'Show help for the command'
        case to
            complete -c userdebug -n $when -l to -x -a 'auto stdout clipboard primary clipboard+stdout' -d 'Where the result goes'
        case trace
            complete -c userdebug -n $when -l trace -d 'Print the menu lifecycle events on stderr'
        case dmenu
            complete -c userdebug -n $when -l dmenu -d 'Show the menu in a launcher and run the choice'
        case launcher
            complete -c userdebug -n $when -l launcher -x -a 'dmenu rofi fuzzel wofi bemenu' -d 'The launcher command of --dmenu'
        case popup
            complete -c userdebug -n $when -l popup -d 'Show the menu as a popup window at the pointer'
        case lifetime
            complete -c userdebug -n $when -l lifetime -x -d 'Stop serving the selection after SECONDS'
        case hand-off
            complete -c userdebug -n $when -l hand-off -d 'Hand the content to a clipboard manager at once'
        case new-owner
            complete -c userdebug -n $when -l new-owner -d 'Start a new owner process even if one of ours serves the selection'
        case backend
            complete -c userdebug -n $when -l backend -x -a 'auto wayland x11' -d 'The clipboard backend'
        case tag
            complete -c userdebug -n $when -l tag -x -a '(__userdebug_words tags)' -d 'A tag (filter, or add when recording)'
        case path
            complete -c userdebug -n $when -l path -x -d 'Only responses whose URL contains this'
        case status
            complete -c userdebug -n $when -l status -x -a '(__userdebug_words statuses)' -d 'Only responses with this status or class'
        case body
            complete -c userdebug -n $when -l body -d 'The response body (default)'
        case headers
            complete -c userdebug -n $when -l headers -d 'The status line and response headers'
        case full
            complete -c userdebug -n $when -l full -d 'Request and response, headers and bodies'
        case json
            complete -c userdebug -n $when -l json -d 'JSON even on a terminal'
        case name
            complete -c userdebug -n $when -l name -x -d 'Session name (import) or user display name (set)'
        case keep-current
            complete -c userdebug -n $when -l keep-current -d 'Do not make the recorded session current'
        case from-clipboard
            complete -c userdebug -n $when -l from-clipboard -d 'Read the document from the CLIPBOARD'
        case id
            complete -c userdebug -n $when -l id -x -d 'The user identifier'
        case token
            complete -c userdebug -n $when -l token -x -d 'The auth token (visible in the process list)'
        case token-stdin
            complete -c userdebug -n $when -l token-stdin -d 'Read the auth token from standard input'
        case allow-empty-token
            complete -c userdebug -n $when -l allow-empty-token -d 'An empty --token-stdin leaves no token'
        case base-url
            complete -c userdebug -n $when -l base-url -x -d 'The backend base URL'
        case environment
            complete -c userdebug -n $when -l environment -x -d 'The environment label'
        case limit
            complete -c userdebug -n $when -l limit -x -d 'At most N responses (0 for all)'
        case all-sessions
            complete -c userdebug -n $when -l all-sessions -d 'Responses of every session'
        case selection
            complete -c userdebug -n $when -l selection -x -a 'clipboard primary' -d 'The X selection'
        case secret
            complete -c userdebug -n $when -l secret -d 'Mark as a secret, cleared after a timeout'
        case target
            complete -c userdebug -n $when -l target -x -a 'UTF8_STRING TARGETS STRING TEXT application/json' -d 'The target to ask for'
        case timeout
            complete -c userdebug -n $when -l timeout -x -d 'Give up after SECONDS'
        case raw
            complete -c userdebug -n $when -l raw -d 'Write the bytes exactly even on a terminal'
        case check
            complete -c userdebug -n $when -l check -d 'Print the bindings it would grab and exit'
        case keep-waiting
            complete -c userdebug -n $when -l keep-waiting -d 'Keep running when no hotkey can be grabbed'
        case body-file
            complete -c userdebug -n $when -l body-file -r -F -d 'Where to write a binary request body'
        case salvage
            complete -c userdebug -n $when -l salvage -r -F -d 'Copy what is readable of a damaged store into a new store file'
        case one-line
            complete -c userdebug -n $when -l one-line -d 'The whole command on one line'
        case keep-client-headers
            complete -c userdebug -n $when -l keep-client-headers -d 'Keep the User-Agent and Accept the client added by itself'
        case '*'
            echo "userdebug.fish: no completion for option --$option" >&2
    end
end

# Declares a command: its words, description, positional argument (file, session, response,
# action, command or none) and the options it accepts besides the global ones.
function __userdebug_command -a words description argument
    set -l options $argv[4..-1] session reveal quiet help
    set -l parts (string split ' ' -- $words)
    if test (count $parts) -eq 2
        contains -- $parts[1] $__userdebug_groups; or begin
            set -ga __userdebug_groups $parts[1]
            complete -c userdebug -n __userdebug_needs_command -a $parts[1] -d "$parts[1] subcommands"
        end
        complete -c userdebug -n "__userdebug_needs_subcommand $parts[1]" -a $parts[2] -d $description
    else
        complete -c userdebug -n __userdebug_needs_command -a $words -d $description
    end
    set -l when "__userdebug_using '$words'; and __userdebug_needs_argument"
    switch $argument
        case file
            complete -c userdebug -n $when -F -a - -d 'JSON file, or - for standard input'
        case session
            complete -c userdebug -n $when -a '(__userdebug_words sessions)' -d Session
        case action
            complete -c userdebug -n $when -a '(__userdebug_words actions)' -d Action
        case response
            complete -c userdebug -n $when -a last -d 'The newest matching response'
        case command
            complete -c userdebug -n $when -a '(complete -C"userdebug " | string replace -r "\t.*" "")'
    end
    for option in $options
        __userdebug_option "__userdebug_using '$words'" $option
    end
end

complete -c userdebug -f
complete -c userdebug -n __userdebug_needs_command -s h -l help -d 'Show help'
complete -c userdebug -n __userdebug_needs_command -l version -d 'Print the version'
# The global options that may come before the command.
for option in session reveal quiet
    __userdebug_option __userdebug_needs_command $option
end

__userdebug_command copy-id 'Copy the current user identifier' none to lifetime hand-off new-owner backend
__userdebug_command dump-json 'Dump the current user as JSON' none to lifetime hand-off new-owner backend
__userdebug_command print-response 'Print a recorded backend response' response tag path status body headers full json to lifetime hand-off new-owner backend
__userdebug_command copy-token 'Copy the session auth token (a secret)' none to lifetime hand-off new-owner backend
__userdebug_command menu 'Show the debug menu (action ids and titles)' none json popup trace dmenu launcher
__userdebug_command rofi 'rofi script mode: the menu in rofi' none trace
__userdebug_command run 'Run a debug action by id' action to lifetime hand-off new-owner backend trace
__userdebug_command 'session import' 'Record a session from a JSON document' file name keep-current from-clipboard backend
__userdebug_command 'session set' 'Create or update a session from flags' none id name token token-stdin allow-empty-token base-url environment keep-current
__userdebug_command 'session list' 'List the sessions' none json
__userdebug_command 'session show' 'Show one session as JSON' session
__userdebug_command 'session use' 'Make a session the current one' session
__userdebug_command 'session remove' 'Remove a session and its responses' session
__userdebug_command 'response record' 'Record backend responses from a JSON document' file tag
__userdebug_command 'response list' 'List recorded responses, newest first' none tag path status limit all-sessions json
__userdebug_command 'response import' 'Import a HAR 1.2 file, all entries or none' file tag
__userdebug_command 'export curl' 'A recorded request as a shell-safe curl command' response tag path status body-file one-line keep-client-headers to lifetime hand-off new-owner backend
__userdebug_command 'export har' 'Recorded responses as a HAR 1.2 file' response tag path status limit all-sessions to lifetime hand-off new-owner backend
__userdebug_command 'export postman-env' 'The session as a Postman environment' none to lifetime hand-off new-owner backend
__userdebug_command 'export postman-collection' 'Recorded requests as a Postman collection v2.1' response tag path status limit keep-client-headers to lifetime hand-off new-owner backend
__userdebug_command capture 'Run curl and record what it sends and receives' none tag
__userdebug_command copy 'Put standard input on the clipboard' none selection secret json lifetime hand-off new-owner backend
__userdebug_command paste 'Print the clipboard content' none selection target timeout raw backend
__userdebug_command daemon 'Grab the config hotkeys and run their actions' none check trace keep-waiting
__userdebug_command doctor 'Check what a hotkey needs, naming the fix for each problem, and show the clipboard route' none backend json salvage
__userdebug_command help 'Show help for a command' command
__userdebug_command version 'Print the version' none
