# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_ctxctl_global_optspecs
    string join \n model= tokenizer= format= config= no-config json tsv q/quiet v/verbose color= no-progress no-cache session= include-live compress= count-with= h/help V/version
end

function __fish_ctxctl_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_ctxctl_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_ctxctl_using_subcommand
    set -l cmd (__fish_ctxctl_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c ctxctl -n "__fish_ctxctl_needs_command" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_needs_command" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_needs_command" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_needs_command" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_needs_command" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_needs_command" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_needs_command" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_needs_command" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_needs_command" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -f -a "count" -d 'Count tokens per file, per role and per message'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -f -a "check" -d 'Check sessions against their model\'s window (exit 1 when one needs attention)'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -f -a "trim" -d 'Trim a session to fit a token budget (strategies: fifo, sliding-window, smart, …)'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -f -a "compact" -d 'Summarize the middle of a session, keeping its head and recent tail'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -f -a "stats" -d 'Show where the tokens go: roles, tools, largest messages, window usage'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -f -a "sessions" -d 'List every agent session on the machine: tokens, share of the window, status'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -f -a "ls" -d 'List every agent session on the machine: tokens, share of the window, status'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -f -a "diff" -d 'Compare two sessions: what a rewrite removed, edited and added'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -f -a "grep" -d 'Search every session\'s messages, the parts compacted away and the archives'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -f -a "mcp" -d 'Serve `recall` and `context_status` to an agent (Model Context Protocol on stdio)'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -f -a "doctor" -d 'Check the setup: config, directories, model, agent stores, LLM endpoint'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -f -a "archive" -d 'List, show and restore the originals removed by compaction'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -f -a "models" -d 'List the built-in model registry'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -f -a "config" -d 'Print the effective settings and where each came from'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -f -a "cache" -d 'Manage the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c ctxctl -n "__fish_ctxctl_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -s r -l recursive -d 'Also read every session below DIR (*.json, *.jsonl, each session of goose\'s sessions.db and OpenCode\'s opencode.db)' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l agent -d 'Only sessions of these agents (comma-separated)' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l project -d 'Only sessions whose project directory contains TEXT (any case) or matches a glob' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l since -d 'Only sessions active within DUR (e.g. 2d, 12h)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l older-than -d 'Only sessions not active for DUR (e.g. 30d)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -s g -l glob -d 'Only files matching GLOB (a name like \'*.jsonl\', or a path like \'2025/**\'); repeatable' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l exclude -d 'Leave out files matching GLOB; repeatable' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l pick -d 'With no FILE: choose among this project\'s sessions on the terminal (newest first) instead of taking the newest'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l by-role -d 'Show tokens and messages per role'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l per-message -d 'Show tokens of every message'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand count" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -s r -l recursive -d 'Also read every session below DIR (*.json, *.jsonl, each session of goose\'s sessions.db and OpenCode\'s opencode.db)' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l agent -d 'Only sessions of these agents (comma-separated)' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l project -d 'Only sessions whose project directory contains TEXT (any case) or matches a glob' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l since -d 'Only sessions active within DUR (e.g. 2d, 12h)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l older-than -d 'Only sessions not active for DUR (e.g. 30d)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -s g -l glob -d 'Only files matching GLOB (a name like \'*.jsonl\', or a path like \'2025/**\'); repeatable' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l exclude -d 'Leave out files matching GLOB; repeatable' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l threshold -d 'Fraction of the effective limit at which a session needs compaction [env: CTXCTL_THRESHOLD] [default: 0.8]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l max-tokens -d 'Use this context window instead of the model\'s' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l reserve-output -d 'Tokens reserved for the reply (default: the model\'s max output, at most 20% of the window) [env: CTXCTL_RESERVE_OUTPUT]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l reserved -d 'Tokens reserved besides the output (system prompt, tool schemas) [env: CTXCTL_RESERVED]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l min-tokens -d 'Only sessions whose next request is at least N tokens' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l status -d 'Only sessions with these statuses (comma-separated)' -r -f -a "ok\t''
compact\t''
over\t''
broken\t''
error\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l pick -d 'With no FILE: choose among this project\'s sessions on the terminal (newest first) instead of taking the newest'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l allow-unknown-model -d 'Check against the default limits when --model (or CTXCTL_MODEL) names a model the registry does not know, instead of refusing it'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l skip-non-sessions -d 'Skip, with a note, a FILE that is no session (JSON no format reads: package.json, tsconfig.json) instead of failing on it: for a pre-commit hook given every staged *.json'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand check" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l strategy -d 'How to trim' -r -f -a "fifo\t''
sliding-window\t''
smart\t''
selective\t''
composite\t''
tool-results\t''
mask-tool-results\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l max-tokens -d 'Token budget (default: the model\'s effective limit)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l reserve-output -d 'Tokens reserved for the reply (default: the model\'s max output, at most 20% of the window) [env: CTXCTL_RESERVE_OUTPUT]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l reserved -d 'Tokens reserved besides the output (system prompt, tool schemas) [env: CTXCTL_RESERVED]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l window -d 'sliding-window: how many non-system messages to keep' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l keep-first -d 'smart: messages kept at the start' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l keep-last -d 'smart: messages kept at the end' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l keep-roles -d 'selective: roles never dropped (comma-separated)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l pin -d 'Never drop this message: an index, an id, or /regex/ on its text (repeatable)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l chain -d 'composite: strategies to apply in order (comma-separated)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l max-result-tokens -d 'tool-results: results above this many tokens are cut' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l keep-recent -d 'mask-tool-results: how many recent tool results stay intact' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -s o -l output -d 'Write the result to FILE (`-` for standard output); the input is left as it is, so nothing is archived' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l name -d 'Store the result as this session name (default: the input\'s file stem)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l keep-marked -d 'Never drop messages marked `"_preserve": true`'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l in-place -d 'Replace the input file (the removed messages are archived first: only a rewrite that replaces its input files an archive)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l dry-run -d 'Only show what would change; write nothing (exit 1 if something would change)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l pick -d 'With no FILE: choose among this project\'s sessions on the terminal (newest first) instead of taking the newest'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l resume -d 'After the rewrite, resume the session in its agent (`claude --resume ID`, `codex resume ID`, …), in the session\'s project directory; implies --in-place'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l print-resume -d 'Print the command that resumes the session in its agent (shell-quoted) after the rewrite, instead of running it'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand trim" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -s r -l recursive -d 'Also compact every session below DIR (*.json, *.jsonl, each session of goose\'s sessions.db and OpenCode\'s opencode.db; with --if-needed --in-place: cron)' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l agent -d 'Only sessions of these agents (comma-separated)' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l project -d 'Only sessions whose project directory contains TEXT (any case) or matches a glob' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l since -d 'Only sessions active within DUR (e.g. 2d, 12h)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l older-than -d 'Only sessions not active for DUR (e.g. 30d)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -s g -l glob -d 'Only files matching GLOB (a name like \'*.jsonl\', or a path like \'2025/**\'); repeatable' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l exclude -d 'Leave out files matching GLOB; repeatable' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l name -d 'A stored session to compact in place; with one FILE, the name to store the result under' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l tail-tokens -d 'Tokens kept verbatim at the end' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l tail-ratio -d 'Share of the effective limit kept verbatim at the end (default 0.2)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l threshold -d 'Threshold for --if-needed, a share of the effective limit (default 0.8) [env: CTXCTL_THRESHOLD]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l max-tokens -d 'Use this context window instead of the model\'s' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l reserve-output -d 'Tokens reserved for the reply (default: the model\'s max output, at most 20% of the window) [env: CTXCTL_RESERVE_OUTPUT]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l reserved -d 'Tokens reserved besides the output (system prompt, tool schemas) [env: CTXCTL_RESERVED]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l summarizer -d 'Who writes the summary: offline (default, no network) or llm' -r -f -a "offline\t''
llm\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l summary-tokens -d 'Cap on the offline summary, in tokens (default 2000; at least 1)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l instructions -d 'What the summary should pay attention to (llm)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l retries -d 'Retries of a failed summarizer call (default 2)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l min-recall -d 'Refuse a summary that mentions less than this share of the replaced messages\' facts (paths, commands, error lines, user requests): exit 3, nothing changed' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l fallback -d 'When the llm summarizer fails after its retries, use this one instead of exiting 3' -r -f -a "offline\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -s o -l output -d 'Write the result to FILE (`-` for standard output); the input is left as it is, so nothing is archived' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l all -d 'Every agent\'s sessions in their default homes, as `ctxctl sessions` lists them: with --if-needed --in-place -q, the nightly job'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l if-needed -d 'Only compact when usage is at or over the threshold'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l redact -d 'Remove secrets (API keys, tokens, private keys, passwords) from what the summarizer sees and from the summary'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l in-place -d 'Replace the input file (the removed messages are archived first: only a rewrite that replaces its input files an archive)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l dry-run -d 'Only show what would change; write nothing (exit 1 if something would change)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l pick -d 'With no FILE: choose among this project\'s sessions on the terminal (newest first) instead of taking the newest'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l resume -d 'After the rewrite, resume the session in its agent (`claude --resume ID`, `codex resume ID`, …), in the session\'s project directory; implies --in-place'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l print-resume -d 'Print the command that resumes the session in its agent (shell-quoted) after the rewrite, instead of running it'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand compact" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -s r -l recursive -d 'Also read every session below DIR (*.json, *.jsonl, each session of goose\'s sessions.db and OpenCode\'s opencode.db)' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l agent -d 'Only sessions of these agents (comma-separated)' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l project -d 'Only sessions whose project directory contains TEXT (any case) or matches a glob' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l since -d 'Only sessions active within DUR (e.g. 2d, 12h)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l older-than -d 'Only sessions not active for DUR (e.g. 30d)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -s g -l glob -d 'Only files matching GLOB (a name like \'*.jsonl\', or a path like \'2025/**\'); repeatable' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l exclude -d 'Leave out files matching GLOB; repeatable' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l max-tokens -d 'Use this context window instead of the model\'s' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l reserve-output -d 'Tokens reserved for the reply (default: the model\'s max output, at most 20% of the window) [env: CTXCTL_RESERVE_OUTPUT]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l reserved -d 'Tokens reserved besides the output (system prompt, tool schemas) [env: CTXCTL_RESERVED]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l pick -d 'With no FILE: choose among this project\'s sessions on the terminal (newest first) instead of taking the newest'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand stats" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l agent -d 'Only sessions of these agents (comma-separated)' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l project -d 'Only sessions whose project directory contains TEXT (any case) or matches a glob' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l since -d 'Only sessions active within DUR (e.g. 2d, 12h)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l older-than -d 'Only sessions not active for DUR (e.g. 30d)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -s g -l glob -d 'Only files matching GLOB (a name like \'*.jsonl\', or a path like \'2025/**\'); repeatable' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l exclude -d 'Leave out files matching GLOB; repeatable' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l min-tokens -d 'Only sessions whose next request is at least N tokens' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l status -d 'Only sessions with these statuses (comma-separated)' -r -f -a "ok\t''
compact\t''
over\t''
broken\t''
error\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l sort -d 'Sort by this column' -r -f -a "agent\t''
project\t''
activity\t''
messages\t''
tokens\t''
usage\t''
status\t''
archives\t''
path\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l reverse -d 'Reverse the order'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand sessions" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l agent -d 'Only sessions of these agents (comma-separated)' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l project -d 'Only sessions whose project directory contains TEXT (any case) or matches a glob' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l since -d 'Only sessions active within DUR (e.g. 2d, 12h)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l older-than -d 'Only sessions not active for DUR (e.g. 30d)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -s g -l glob -d 'Only files matching GLOB (a name like \'*.jsonl\', or a path like \'2025/**\'); repeatable' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l exclude -d 'Leave out files matching GLOB; repeatable' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l min-tokens -d 'Only sessions whose next request is at least N tokens' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l status -d 'Only sessions with these statuses (comma-separated)' -r -f -a "ok\t''
compact\t''
over\t''
broken\t''
error\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l sort -d 'Sort by this column' -r -f -a "agent\t''
project\t''
activity\t''
messages\t''
tokens\t''
usage\t''
status\t''
archives\t''
path\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l reverse -d 'Reverse the order'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand ls" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand diff" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand diff" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand diff" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand diff" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand diff" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand diff" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand diff" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand diff" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand diff" -l all -d 'Also list the messages both hold'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand diff" -l pick -d 'With no FILE: choose among this project\'s sessions on the terminal (newest first) instead of taking the newest'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand diff" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand diff" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand diff" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand diff" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand diff" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand diff" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand diff" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand diff" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand diff" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand diff" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l role -d 'Only messages of these roles (comma-separated)' -r -f -a "user\t''
assistant\t''
tool\t''
system\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l tool -d 'Only calls of these tools and their output (comma-separated, any case)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -s C -l context -d 'Lines of a message shown around each matching line' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l agent -d 'Only sessions of these agents (comma-separated)' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l project -d 'Only sessions whose project directory contains TEXT (any case) or matches a glob' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l since -d 'Only sessions active within DUR (e.g. 2d, 12h)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l older-than -d 'Only sessions not active for DUR (e.g. 30d)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -s g -l glob -d 'Only files matching GLOB (a name like \'*.jsonl\', or a path like \'2025/**\'); repeatable' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l exclude -d 'Leave out files matching GLOB; repeatable' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -s i -l ignore-case -d 'Case-insensitive'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -s w -l word-regexp -d 'Whole words only'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -s F -l fixed-strings -d 'The pattern is a literal string, not a regex'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -s l -l files-with-matches -d 'Print only the sessions (and archives) that match'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -s c -l count -d 'Print how many messages match in each session'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand grep" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand mcp" -l project -d 'The project whose sessions are searched (default: $CLAUDE_PROJECT_DIR, else the working directory)' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand mcp" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand mcp" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand mcp" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand mcp" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand mcp" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand mcp" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand mcp" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand mcp" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand mcp" -l allow-compact -d 'Also offer `compact_session`: compact a session no agent is using (never the caller\'s own, which is live), archiving it first as `ctxctl compact --in-place` does'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand mcp" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand mcp" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand mcp" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand mcp" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand mcp" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand mcp" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand mcp" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand mcp" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand mcp" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand mcp" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand doctor" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand doctor" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand doctor" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand doctor" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand doctor" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand doctor" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand doctor" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand doctor" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand doctor" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand doctor" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand doctor" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand doctor" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand doctor" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand doctor" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand doctor" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand doctor" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand doctor" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -f -a "ls" -d 'List archives: of one session, or of all'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -f -a "show" -d 'Print one archive: its facts, the summary that replaced it, and (with --json) the records'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -f -a "restore" -d 'Put an archive\'s originals back in place of the summary that replaced them'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -f -a "rm" -d 'Delete archives (what they hold can no longer be restored)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -f -a "prune" -d 'Delete old archives: beyond the newest N of each session, or older than a duration'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and not __fish_seen_subcommand_from ls show restore rm prune help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from ls" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from ls" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from ls" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from ls" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from ls" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from ls" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from ls" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from ls" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from ls" -l all -d 'Every archive, whatever the current directory'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from ls" -l pick -d 'With no FILE: choose among this project\'s sessions on the terminal (newest first) instead of taking the newest'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from ls" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from ls" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from ls" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from ls" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from ls" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from ls" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from ls" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from ls" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from ls" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from ls" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from show" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from show" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from show" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from show" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from show" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from show" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from show" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from show" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from show" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from show" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from show" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from show" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from show" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from show" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from show" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -s o -l output -d 'Write the restored session here (`-` for standard output) instead of replacing FILE' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -l dry-run -d 'Only show what would be restored (exit 1 if something would change)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -l force -d 'Restore even if the archive was already restored into this file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -l pick -d 'With no FILE: choose among this project\'s sessions on the terminal (newest first) instead of taking the newest'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from restore" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from rm" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from rm" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from rm" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from rm" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from rm" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from rm" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from rm" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from rm" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from rm" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from rm" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from rm" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from rm" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from rm" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from rm" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from rm" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from rm" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from rm" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from rm" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -l keep -d 'Keep the newest N archives of each session' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -l older-than -d 'Only delete archives older than DUR (e.g. 30d)' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -l dry-run -d 'Only list what would be deleted (exit 1 if something would be)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from prune" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from help" -f -a "ls" -d 'List archives: of one session, or of all'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print one archive: its facts, the summary that replaced it, and (with --json) the records'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from help" -f -a "restore" -d 'Put an archive\'s originals back in place of the summary that replaced them'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from help" -f -a "rm" -d 'Delete archives (what they hold can no longer be restored)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from help" -f -a "prune" -d 'Delete old archives: beyond the newest N of each session, or older than a duration'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand archive; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand models" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand models" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand models" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand models" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand models" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand models" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand models" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand models" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand models" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand models" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand models" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand models" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand models" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand models" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand models" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand models" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand models" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand models" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and not __fish_seen_subcommand_from path help" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and not __fish_seen_subcommand_from path help" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and not __fish_seen_subcommand_from path help" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and not __fish_seen_subcommand_from path help" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and not __fish_seen_subcommand_from path help" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and not __fish_seen_subcommand_from path help" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and not __fish_seen_subcommand_from path help" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and not __fish_seen_subcommand_from path help" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and not __fish_seen_subcommand_from path help" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and not __fish_seen_subcommand_from path help" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and not __fish_seen_subcommand_from path help" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and not __fish_seen_subcommand_from path help" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and not __fish_seen_subcommand_from path help" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and not __fish_seen_subcommand_from path help" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and not __fish_seen_subcommand_from path help" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and not __fish_seen_subcommand_from path help" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and not __fish_seen_subcommand_from path help" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and not __fish_seen_subcommand_from path help" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and not __fish_seen_subcommand_from path help" -f -a "path" -d 'Print the config file\'s location'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and not __fish_seen_subcommand_from path help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and __fish_seen_subcommand_from path" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and __fish_seen_subcommand_from path" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and __fish_seen_subcommand_from path" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and __fish_seen_subcommand_from path" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and __fish_seen_subcommand_from path" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and __fish_seen_subcommand_from path" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and __fish_seen_subcommand_from path" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and __fish_seen_subcommand_from path" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and __fish_seen_subcommand_from path" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and __fish_seen_subcommand_from path" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and __fish_seen_subcommand_from path" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and __fish_seen_subcommand_from path" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and __fish_seen_subcommand_from path" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and __fish_seen_subcommand_from path" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and __fish_seen_subcommand_from path" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and __fish_seen_subcommand_from path" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and __fish_seen_subcommand_from path" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and __fish_seen_subcommand_from path" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "path" -d 'Print the config file\'s location'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -f -a "path" -d 'Print the cache directory (counts and session digests)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -f -a "clear" -d 'Delete the cache: remembered counts and session digests (recomputed on the next run)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and not __fish_seen_subcommand_from path clear help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from path" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from path" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from path" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from path" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from path" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from path" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from path" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from path" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from path" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from path" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from path" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from path" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from path" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from path" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from path" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from path" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from path" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from path" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from clear" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from clear" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from clear" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from clear" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from clear" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from clear" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from clear" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from clear" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from clear" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from clear" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from clear" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from clear" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from clear" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from clear" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from clear" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from clear" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from clear" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from clear" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from help" -f -a "path" -d 'Print the cache directory (counts and session digests)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from help" -f -a "clear" -d 'Delete the cache: remembered counts and session digests (recomputed on the next run)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand cache; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand completions" -l model -d 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand completions" -l tokenizer -d 'Tokenizer: auto (the model\'s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand completions" -l format -d 'Session format, instead of detecting it from the content' -r -f -a "openai\t''
anthropic\t''
jsonl\t''
claude-code\t''
codex\t''
goose\t''
gemini-cli\t''
goose-db\t''
opencode\t''
copilot-cli\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand completions" -l config -d 'Config file [env: CTXCTL_CONFIG]' -r -F
complete -c ctxctl -n "__fish_ctxctl_using_subcommand completions" -l color -d 'When to use colour' -r -f -a "auto\t''
always\t''
never\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand completions" -l session -d 'The session to use inside an agent\'s database (goose\'s sessions.db): its id or name' -r
complete -c ctxctl -n "__fish_ctxctl_using_subcommand completions" -l compress -d 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]' -r -f -a "zstd\t''
none\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand completions" -l count-with -d 'Count the next request locally or with the provider\'s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]' -r -f -a "local\t''
api\t''"
complete -c ctxctl -n "__fish_ctxctl_using_subcommand completions" -l no-config -d 'Ignore the config file'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand completions" -l json -d 'Machine-readable JSON on stdout'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand completions" -l tsv -d 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand completions" -s q -l quiet -d 'Print nothing but errors'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand completions" -s v -l verbose -d 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand completions" -l no-progress -d 'Never draw progress bars'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand completions" -l no-cache -d 'Do not read or write the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand completions" -l include-live -d 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand completions" -s h -l help -d 'Print help'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand completions" -s V -l version -d 'Print version'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and not __fish_seen_subcommand_from count check trim compact stats sessions diff grep mcp doctor archive models config cache completions help" -f -a "count" -d 'Count tokens per file, per role and per message'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and not __fish_seen_subcommand_from count check trim compact stats sessions diff grep mcp doctor archive models config cache completions help" -f -a "check" -d 'Check sessions against their model\'s window (exit 1 when one needs attention)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and not __fish_seen_subcommand_from count check trim compact stats sessions diff grep mcp doctor archive models config cache completions help" -f -a "trim" -d 'Trim a session to fit a token budget (strategies: fifo, sliding-window, smart, …)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and not __fish_seen_subcommand_from count check trim compact stats sessions diff grep mcp doctor archive models config cache completions help" -f -a "compact" -d 'Summarize the middle of a session, keeping its head and recent tail'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and not __fish_seen_subcommand_from count check trim compact stats sessions diff grep mcp doctor archive models config cache completions help" -f -a "stats" -d 'Show where the tokens go: roles, tools, largest messages, window usage'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and not __fish_seen_subcommand_from count check trim compact stats sessions diff grep mcp doctor archive models config cache completions help" -f -a "sessions" -d 'List every agent session on the machine: tokens, share of the window, status'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and not __fish_seen_subcommand_from count check trim compact stats sessions diff grep mcp doctor archive models config cache completions help" -f -a "diff" -d 'Compare two sessions: what a rewrite removed, edited and added'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and not __fish_seen_subcommand_from count check trim compact stats sessions diff grep mcp doctor archive models config cache completions help" -f -a "grep" -d 'Search every session\'s messages, the parts compacted away and the archives'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and not __fish_seen_subcommand_from count check trim compact stats sessions diff grep mcp doctor archive models config cache completions help" -f -a "mcp" -d 'Serve `recall` and `context_status` to an agent (Model Context Protocol on stdio)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and not __fish_seen_subcommand_from count check trim compact stats sessions diff grep mcp doctor archive models config cache completions help" -f -a "doctor" -d 'Check the setup: config, directories, model, agent stores, LLM endpoint'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and not __fish_seen_subcommand_from count check trim compact stats sessions diff grep mcp doctor archive models config cache completions help" -f -a "archive" -d 'List, show and restore the originals removed by compaction'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and not __fish_seen_subcommand_from count check trim compact stats sessions diff grep mcp doctor archive models config cache completions help" -f -a "models" -d 'List the built-in model registry'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and not __fish_seen_subcommand_from count check trim compact stats sessions diff grep mcp doctor archive models config cache completions help" -f -a "config" -d 'Print the effective settings and where each came from'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and not __fish_seen_subcommand_from count check trim compact stats sessions diff grep mcp doctor archive models config cache completions help" -f -a "cache" -d 'Manage the token-count cache'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and not __fish_seen_subcommand_from count check trim compact stats sessions diff grep mcp doctor archive models config cache completions help" -f -a "completions" -d 'Print a shell completion script'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and not __fish_seen_subcommand_from count check trim compact stats sessions diff grep mcp doctor archive models config cache completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and __fish_seen_subcommand_from archive" -f -a "ls" -d 'List archives: of one session, or of all'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and __fish_seen_subcommand_from archive" -f -a "show" -d 'Print one archive: its facts, the summary that replaced it, and (with --json) the records'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and __fish_seen_subcommand_from archive" -f -a "restore" -d 'Put an archive\'s originals back in place of the summary that replaced them'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and __fish_seen_subcommand_from archive" -f -a "rm" -d 'Delete archives (what they hold can no longer be restored)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and __fish_seen_subcommand_from archive" -f -a "prune" -d 'Delete old archives: beyond the newest N of each session, or older than a duration'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "path" -d 'Print the config file\'s location'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and __fish_seen_subcommand_from cache" -f -a "path" -d 'Print the cache directory (counts and session digests)'
complete -c ctxctl -n "__fish_ctxctl_using_subcommand help; and __fish_seen_subcommand_from cache" -f -a "clear" -d 'Delete the cache: remembered counts and session digests (recomputed on the next run)'
