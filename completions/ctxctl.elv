
use builtin;
use str;

set edit:completion:arg-completer[ctxctl] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'ctxctl'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'ctxctl'= {
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand count 'Count tokens per file, per role and per message'
            cand check 'Check sessions against their model''s window (exit 1 when one needs attention)'
            cand trim 'Trim a session to fit a token budget (strategies: fifo, sliding-window, smart, …)'
            cand compact 'Summarize the middle of a session, keeping its head and recent tail'
            cand stats 'Show where the tokens go: roles, tools, largest messages, window usage'
            cand diff 'Compare two sessions: what a rewrite removed, edited and added'
            cand doctor 'Check the setup: config, directories, model, agent stores, LLM endpoint'
            cand archive 'List, show and restore the originals removed by compaction'
            cand models 'List the built-in model registry'
            cand config 'Print the effective settings and where each came from'
            cand cache 'Manage the token-count cache'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctxctl;count'= {
            cand -r 'Also read every *.json / *.jsonl session below DIR'
            cand --recursive 'Also read every *.json / *.jsonl session below DIR'
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --by-role 'Show tokens and messages per role'
            cand --per-message 'Show tokens of every message'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxctl;check'= {
            cand -r 'Also read every *.json / *.jsonl session below DIR'
            cand --recursive 'Also read every *.json / *.jsonl session below DIR'
            cand --threshold 'Fraction of the effective limit at which a session needs compaction [env: CTXCTL_THRESHOLD] [default: 0.8]'
            cand --max-tokens 'Use this context window instead of the model''s'
            cand --reserve-output 'Tokens reserved for the reply (default: the model''s max output, at most 20% of the window) [env: CTXCTL_RESERVE_OUTPUT]'
            cand --reserved 'Tokens reserved besides the output (system prompt, tool schemas) [env: CTXCTL_RESERVED]'
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --allow-unknown-model 'Check against the default limits when --model (or CTXCTL_MODEL) names a model the registry does not know, instead of refusing it'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxctl;trim'= {
            cand --strategy 'How to trim'
            cand --max-tokens 'Token budget (default: the model''s effective limit)'
            cand --reserve-output 'Tokens reserved for the reply (default: the model''s max output, at most 20% of the window) [env: CTXCTL_RESERVE_OUTPUT]'
            cand --reserved 'Tokens reserved besides the output (system prompt, tool schemas) [env: CTXCTL_RESERVED]'
            cand --window 'sliding-window: how many non-system messages to keep'
            cand --keep-first 'smart: messages kept at the start'
            cand --keep-last 'smart: messages kept at the end'
            cand --keep-roles 'selective: roles never dropped (comma-separated)'
            cand --pin 'Never drop this message: an index, an id, or /regex/ on its text (repeatable)'
            cand --chain 'composite: strategies to apply in order (comma-separated)'
            cand --max-result-tokens 'tool-results: results above this many tokens are cut'
            cand --keep-recent 'mask-tool-results: how many recent tool results stay intact'
            cand -o 'Write the result to FILE (`-` for standard output)'
            cand --output 'Write the result to FILE (`-` for standard output)'
            cand --name 'Store the result as this session name (default: the input''s file stem)'
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --keep-marked 'Never drop messages marked `"_preserve": true`'
            cand --in-place 'Replace the input file (the removed messages are archived first)'
            cand --dry-run 'Only show what would change; write nothing (exit 1 if something would change)'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxctl;compact'= {
            cand -r 'Also compact every *.json / *.jsonl session below DIR (with --if-needed --in-place: cron)'
            cand --recursive 'Also compact every *.json / *.jsonl session below DIR (with --if-needed --in-place: cron)'
            cand --name 'A stored session to compact in place; with one FILE, the name to store the result under'
            cand --tail-tokens 'Tokens kept verbatim at the end'
            cand --tail-ratio 'Share of the effective limit kept verbatim at the end (default 0.2)'
            cand --threshold 'Threshold for --if-needed, a share of the effective limit (default 0.8) [env: CTXCTL_THRESHOLD]'
            cand --max-tokens 'Use this context window instead of the model''s'
            cand --reserve-output 'Tokens reserved for the reply (default: the model''s max output, at most 20% of the window) [env: CTXCTL_RESERVE_OUTPUT]'
            cand --reserved 'Tokens reserved besides the output (system prompt, tool schemas) [env: CTXCTL_RESERVED]'
            cand --summarizer 'Who writes the summary: offline (default, no network) or llm'
            cand --summary-tokens 'Cap on the offline summary, in tokens (default 2000)'
            cand --instructions 'What the summary should pay attention to (llm)'
            cand --retries 'Retries of a failed summarizer call (default 2)'
            cand --min-recall 'Refuse a summary that mentions less than this share of the replaced messages'' facts (paths, commands, error lines, user requests): exit 3, nothing changed'
            cand --fallback 'When the llm summarizer fails after its retries, use this one instead of exiting 3'
            cand -o 'Write the result to FILE (`-` for standard output)'
            cand --output 'Write the result to FILE (`-` for standard output)'
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --if-needed 'Only compact when usage is at or over the threshold'
            cand --redact 'Remove secrets (API keys, tokens, private keys, passwords) from what the summarizer sees and from the summary'
            cand --in-place 'Replace the input file (the removed messages are archived first)'
            cand --dry-run 'Only show what would change; write nothing (exit 1 if something would change)'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxctl;stats'= {
            cand -r 'Also read every *.json / *.jsonl session below DIR'
            cand --recursive 'Also read every *.json / *.jsonl session below DIR'
            cand --max-tokens 'Use this context window instead of the model''s'
            cand --reserve-output 'Tokens reserved for the reply (default: the model''s max output, at most 20% of the window) [env: CTXCTL_RESERVE_OUTPUT]'
            cand --reserved 'Tokens reserved besides the output (system prompt, tool schemas) [env: CTXCTL_RESERVED]'
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxctl;diff'= {
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --all 'Also list the messages both hold'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxctl;doctor'= {
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxctl;archive'= {
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand ls 'List archives: of one session, or of all'
            cand show 'Print one archive: its facts, the summary that replaced it, and (with --json) the records'
            cand restore 'Put an archive''s originals back in place of the summary that replaced them'
            cand rm 'Delete archives (what they hold can no longer be restored)'
            cand prune 'Delete old archives: beyond the newest N of each session, or older than a duration'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctxctl;archive;ls'= {
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxctl;archive;show'= {
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxctl;archive;restore'= {
            cand -o 'Write the restored session here (`-` for standard output) instead of replacing FILE'
            cand --output 'Write the restored session here (`-` for standard output) instead of replacing FILE'
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --dry-run 'Only show what would be restored (exit 1 if something would change)'
            cand --force 'Restore even if the archive was already restored into this file'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxctl;archive;rm'= {
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxctl;archive;prune'= {
            cand --keep 'Keep the newest N archives of each session'
            cand --older-than 'Only delete archives older than DUR (e.g. 30d)'
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --dry-run 'Only list what would be deleted (exit 1 if something would be)'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxctl;archive;help'= {
            cand ls 'List archives: of one session, or of all'
            cand show 'Print one archive: its facts, the summary that replaced it, and (with --json) the records'
            cand restore 'Put an archive''s originals back in place of the summary that replaced them'
            cand rm 'Delete archives (what they hold can no longer be restored)'
            cand prune 'Delete old archives: beyond the newest N of each session, or older than a duration'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctxctl;archive;help;ls'= {
        }
        &'ctxctl;archive;help;show'= {
        }
        &'ctxctl;archive;help;restore'= {
        }
        &'ctxctl;archive;help;rm'= {
        }
        &'ctxctl;archive;help;prune'= {
        }
        &'ctxctl;archive;help;help'= {
        }
        &'ctxctl;models'= {
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxctl;config'= {
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand path 'Print the config file''s location'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctxctl;config;path'= {
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxctl;config;help'= {
            cand path 'Print the config file''s location'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctxctl;config;help;path'= {
        }
        &'ctxctl;config;help;help'= {
        }
        &'ctxctl;cache'= {
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand path 'Print the cache directory (counts and session digests)'
            cand clear 'Delete the cache: remembered counts and session digests (recomputed on the next run)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctxctl;cache;path'= {
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxctl;cache;clear'= {
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxctl;cache;help'= {
            cand path 'Print the cache directory (counts and session digests)'
            cand clear 'Delete the cache: remembered counts and session digests (recomputed on the next run)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctxctl;cache;help;path'= {
        }
        &'ctxctl;cache;help;clear'= {
        }
        &'ctxctl;cache;help;help'= {
        }
        &'ctxctl;completions'= {
            cand --model 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]'
            cand --tokenizer 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]'
            cand --format 'Session format, instead of detecting it from the content'
            cand --config 'Config file [env: CTXCTL_CONFIG]'
            cand --color 'When to use colour'
            cand --session 'The session to use inside an agent''s database (goose''s sessions.db): its id or name'
            cand --no-config 'Ignore the config file'
            cand --json 'Machine-readable JSON on stdout'
            cand -q 'Print nothing but errors'
            cand --quiet 'Print nothing but errors'
            cand -v 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --verbose 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]'
            cand --no-progress 'Never draw progress bars'
            cand --no-cache 'Do not read or write the token-count cache'
            cand --include-live 'Rewrite a session even when its agent looks to be writing it (a database session active, or a file of a batch run modified, less than 2 min ago)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxctl;help'= {
            cand count 'Count tokens per file, per role and per message'
            cand check 'Check sessions against their model''s window (exit 1 when one needs attention)'
            cand trim 'Trim a session to fit a token budget (strategies: fifo, sliding-window, smart, …)'
            cand compact 'Summarize the middle of a session, keeping its head and recent tail'
            cand stats 'Show where the tokens go: roles, tools, largest messages, window usage'
            cand diff 'Compare two sessions: what a rewrite removed, edited and added'
            cand doctor 'Check the setup: config, directories, model, agent stores, LLM endpoint'
            cand archive 'List, show and restore the originals removed by compaction'
            cand models 'List the built-in model registry'
            cand config 'Print the effective settings and where each came from'
            cand cache 'Manage the token-count cache'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctxctl;help;count'= {
        }
        &'ctxctl;help;check'= {
        }
        &'ctxctl;help;trim'= {
        }
        &'ctxctl;help;compact'= {
        }
        &'ctxctl;help;stats'= {
        }
        &'ctxctl;help;diff'= {
        }
        &'ctxctl;help;doctor'= {
        }
        &'ctxctl;help;archive'= {
            cand ls 'List archives: of one session, or of all'
            cand show 'Print one archive: its facts, the summary that replaced it, and (with --json) the records'
            cand restore 'Put an archive''s originals back in place of the summary that replaced them'
            cand rm 'Delete archives (what they hold can no longer be restored)'
            cand prune 'Delete old archives: beyond the newest N of each session, or older than a duration'
        }
        &'ctxctl;help;archive;ls'= {
        }
        &'ctxctl;help;archive;show'= {
        }
        &'ctxctl;help;archive;restore'= {
        }
        &'ctxctl;help;archive;rm'= {
        }
        &'ctxctl;help;archive;prune'= {
        }
        &'ctxctl;help;models'= {
        }
        &'ctxctl;help;config'= {
            cand path 'Print the config file''s location'
        }
        &'ctxctl;help;config;path'= {
        }
        &'ctxctl;help;cache'= {
            cand path 'Print the cache directory (counts and session digests)'
            cand clear 'Delete the cache: remembered counts and session digests (recomputed on the next run)'
        }
        &'ctxctl;help;cache;path'= {
        }
        &'ctxctl;help;cache;clear'= {
        }
        &'ctxctl;help;completions'= {
        }
        &'ctxctl;help;help'= {
        }
    ]
    $completions[$command]
}
