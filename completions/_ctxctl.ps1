
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'ctxctl' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'ctxctl'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $values = @{
        '--agent' = @('openai', 'anthropic', 'jsonl', 'claude-code', 'codex', 'goose', 'gemini-cli', 'opencode', 'copilot-cli')
        '--color' = @('auto', 'always', 'never')
        '--compress' = @('zstd', 'none')
        '--count-with' = @('local', 'api')
        '--fallback' = @('offline')
        '--format' = @('openai', 'anthropic', 'jsonl', 'claude-code', 'codex', 'goose', 'gemini-cli', 'goose-db', 'opencode', 'copilot-cli')
        '--role' = @('user', 'assistant', 'tool', 'system')
        '--sort' = @('agent', 'project', 'activity', 'messages', 'tokens', 'usage', 'status', 'archives', 'path')
        '--status' = @('ok', 'compact', 'over', 'broken', 'error')
        '--strategy' = @('fifo', 'sliding-window', 'smart', 'selective', 'composite', 'tool-results', 'mask-tool-results')
        '--summarizer' = @('offline', 'llm')
    }
    $last = $commandElements.Count - 1
    if ($wordToComplete -ne '' -and $commandElements[$last].Extent.Text -eq $wordToComplete) {
        $last--
    }
    $previous = if ($last -ge 1) { $commandElements[$last].Extent.Text } else { '' }
    foreach ($key in @("$command;$previous", $previous)) {
        if ($values.ContainsKey($key)) {
            $values[$key] | Where-Object { $_ -like "$wordToComplete*" } | ForEach-Object {
                [CompletionResult]::new($_, $_, [CompletionResultType]::ParameterValue, $_)
            }
            return
        }
    }

    $completions = @(switch ($command) {
        'ctxctl' {
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('count', 'count', [CompletionResultType]::ParameterValue, 'Count tokens per file, per role and per message')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check sessions against their model''s window (exit 1 when one needs attention)')
            [CompletionResult]::new('trim', 'trim', [CompletionResultType]::ParameterValue, 'Trim a session to fit a token budget (strategies: fifo, sliding-window, smart, …)')
            [CompletionResult]::new('compact', 'compact', [CompletionResultType]::ParameterValue, 'Summarize the middle of a session, keeping its head and recent tail')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Show where the tokens go: roles, tools, largest messages, window usage')
            [CompletionResult]::new('sessions', 'sessions', [CompletionResultType]::ParameterValue, 'List every agent session on the machine: tokens, share of the window, status')
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List every agent session on the machine: tokens, share of the window, status')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare two sessions: what a rewrite removed, edited and added')
            [CompletionResult]::new('grep', 'grep', [CompletionResultType]::ParameterValue, 'Search every session''s messages, the parts compacted away and the archives')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve `recall` and `context_status` to an agent (Model Context Protocol on stdio)')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check the setup: config, directories, model, agent stores, LLM endpoint')
            [CompletionResult]::new('archive', 'archive', [CompletionResultType]::ParameterValue, 'List, show and restore the originals removed by compaction')
            [CompletionResult]::new('models', 'models', [CompletionResultType]::ParameterValue, 'List the built-in model registry')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Print the effective settings and where each came from')
            [CompletionResult]::new('cache', 'cache', [CompletionResultType]::ParameterValue, 'Manage the token-count cache')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctxctl;count' {
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Also read every session below DIR (*.json, *.jsonl, each session of goose''s sessions.db and OpenCode''s opencode.db)')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Also read every session below DIR (*.json, *.jsonl, each session of goose''s sessions.db and OpenCode''s opencode.db)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Only sessions of these agents (comma-separated)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only sessions whose project directory contains TEXT (any case) or matches a glob')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions active within DUR (e.g. 2d, 12h)')
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Only sessions not active for DUR (e.g. 30d)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Only files matching GLOB (a name like ''*.jsonl'', or a path like ''2025/**''); repeatable')
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'Only files matching GLOB (a name like ''*.jsonl'', or a path like ''2025/**''); repeatable')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Leave out files matching GLOB; repeatable')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--pick', '--pick', [CompletionResultType]::ParameterName, 'With no FILE: choose among this project''s sessions on the terminal (newest first) instead of taking the newest')
            [CompletionResult]::new('--by-role', '--by-role', [CompletionResultType]::ParameterName, 'Show tokens and messages per role')
            [CompletionResult]::new('--per-message', '--per-message', [CompletionResultType]::ParameterName, 'Show tokens of every message')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;check' {
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Also read every session below DIR (*.json, *.jsonl, each session of goose''s sessions.db and OpenCode''s opencode.db)')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Also read every session below DIR (*.json, *.jsonl, each session of goose''s sessions.db and OpenCode''s opencode.db)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Only sessions of these agents (comma-separated)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only sessions whose project directory contains TEXT (any case) or matches a glob')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions active within DUR (e.g. 2d, 12h)')
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Only sessions not active for DUR (e.g. 30d)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Only files matching GLOB (a name like ''*.jsonl'', or a path like ''2025/**''); repeatable')
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'Only files matching GLOB (a name like ''*.jsonl'', or a path like ''2025/**''); repeatable')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Leave out files matching GLOB; repeatable')
            [CompletionResult]::new('--threshold', '--threshold', [CompletionResultType]::ParameterName, 'Fraction of the effective limit at which a session needs compaction [env: CTXCTL_THRESHOLD] [default: 0.8]')
            [CompletionResult]::new('--max-tokens', '--max-tokens', [CompletionResultType]::ParameterName, 'Use this context window instead of the model''s')
            [CompletionResult]::new('--reserve-output', '--reserve-output', [CompletionResultType]::ParameterName, 'Tokens reserved for the reply (default: the model''s max output, at most 20% of the window) [env: CTXCTL_RESERVE_OUTPUT]')
            [CompletionResult]::new('--reserved', '--reserved', [CompletionResultType]::ParameterName, 'Tokens reserved besides the output (system prompt, tool schemas) [env: CTXCTL_RESERVED]')
            [CompletionResult]::new('--min-tokens', '--min-tokens', [CompletionResultType]::ParameterName, 'Only sessions whose next request is at least N tokens')
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'Only sessions with these statuses (comma-separated)')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--pick', '--pick', [CompletionResultType]::ParameterName, 'With no FILE: choose among this project''s sessions on the terminal (newest first) instead of taking the newest')
            [CompletionResult]::new('--allow-unknown-model', '--allow-unknown-model', [CompletionResultType]::ParameterName, 'Check against the default limits when --model (or CTXCTL_MODEL) names a model the registry does not know, instead of refusing it')
            [CompletionResult]::new('--skip-non-sessions', '--skip-non-sessions', [CompletionResultType]::ParameterName, 'Skip, with a note, a FILE that is no session (JSON no format reads: package.json, tsconfig.json) instead of failing on it: for a pre-commit hook given every staged *.json')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;trim' {
            [CompletionResult]::new('--strategy', '--strategy', [CompletionResultType]::ParameterName, 'How to trim')
            [CompletionResult]::new('--max-tokens', '--max-tokens', [CompletionResultType]::ParameterName, 'Token budget (default: the model''s effective limit)')
            [CompletionResult]::new('--reserve-output', '--reserve-output', [CompletionResultType]::ParameterName, 'Tokens reserved for the reply (default: the model''s max output, at most 20% of the window) [env: CTXCTL_RESERVE_OUTPUT]')
            [CompletionResult]::new('--reserved', '--reserved', [CompletionResultType]::ParameterName, 'Tokens reserved besides the output (system prompt, tool schemas) [env: CTXCTL_RESERVED]')
            [CompletionResult]::new('--window', '--window', [CompletionResultType]::ParameterName, 'sliding-window: how many non-system messages to keep')
            [CompletionResult]::new('--keep-first', '--keep-first', [CompletionResultType]::ParameterName, 'smart: messages kept at the start')
            [CompletionResult]::new('--keep-last', '--keep-last', [CompletionResultType]::ParameterName, 'smart: messages kept at the end')
            [CompletionResult]::new('--keep-roles', '--keep-roles', [CompletionResultType]::ParameterName, 'selective: roles never dropped (comma-separated)')
            [CompletionResult]::new('--pin', '--pin', [CompletionResultType]::ParameterName, 'Never drop this message: an index, an id, or /regex/ on its text (repeatable)')
            [CompletionResult]::new('--chain', '--chain', [CompletionResultType]::ParameterName, 'composite: strategies to apply in order (comma-separated)')
            [CompletionResult]::new('--max-result-tokens', '--max-result-tokens', [CompletionResultType]::ParameterName, 'tool-results: results above this many tokens are cut')
            [CompletionResult]::new('--keep-recent', '--keep-recent', [CompletionResultType]::ParameterName, 'mask-tool-results: how many recent tool results stay intact')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the result to FILE (`-` for standard output); the input is left as it is, so nothing is archived')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the result to FILE (`-` for standard output); the input is left as it is, so nothing is archived')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Store the result as this session name (default: the input''s file stem)')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--keep-marked', '--keep-marked', [CompletionResultType]::ParameterName, 'Never drop messages marked `"_preserve": true`')
            [CompletionResult]::new('--in-place', '--in-place', [CompletionResultType]::ParameterName, 'Replace the input file (the removed messages are archived first: only a rewrite that replaces its input files an archive)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Only show what would change; write nothing (exit 1 if something would change)')
            [CompletionResult]::new('--pick', '--pick', [CompletionResultType]::ParameterName, 'With no FILE: choose among this project''s sessions on the terminal (newest first) instead of taking the newest')
            [CompletionResult]::new('--resume', '--resume', [CompletionResultType]::ParameterName, 'After the rewrite, resume the session in its agent (`claude --resume ID`, `codex resume ID`, …), in the session''s project directory; implies --in-place')
            [CompletionResult]::new('--print-resume', '--print-resume', [CompletionResultType]::ParameterName, 'Print the command that resumes the session in its agent (shell-quoted) after the rewrite, instead of running it')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;compact' {
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Also compact every session below DIR (*.json, *.jsonl, each session of goose''s sessions.db and OpenCode''s opencode.db; with --if-needed --in-place: cron)')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Also compact every session below DIR (*.json, *.jsonl, each session of goose''s sessions.db and OpenCode''s opencode.db; with --if-needed --in-place: cron)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Only sessions of these agents (comma-separated)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only sessions whose project directory contains TEXT (any case) or matches a glob')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions active within DUR (e.g. 2d, 12h)')
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Only sessions not active for DUR (e.g. 30d)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Only files matching GLOB (a name like ''*.jsonl'', or a path like ''2025/**''); repeatable')
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'Only files matching GLOB (a name like ''*.jsonl'', or a path like ''2025/**''); repeatable')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Leave out files matching GLOB; repeatable')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'A stored session to compact in place; with one FILE, the name to store the result under')
            [CompletionResult]::new('--tail-tokens', '--tail-tokens', [CompletionResultType]::ParameterName, 'Tokens kept verbatim at the end')
            [CompletionResult]::new('--tail-ratio', '--tail-ratio', [CompletionResultType]::ParameterName, 'Share of the effective limit kept verbatim at the end (default 0.2)')
            [CompletionResult]::new('--threshold', '--threshold', [CompletionResultType]::ParameterName, 'Threshold for --if-needed, a share of the effective limit (default 0.8) [env: CTXCTL_THRESHOLD]')
            [CompletionResult]::new('--max-tokens', '--max-tokens', [CompletionResultType]::ParameterName, 'Use this context window instead of the model''s')
            [CompletionResult]::new('--reserve-output', '--reserve-output', [CompletionResultType]::ParameterName, 'Tokens reserved for the reply (default: the model''s max output, at most 20% of the window) [env: CTXCTL_RESERVE_OUTPUT]')
            [CompletionResult]::new('--reserved', '--reserved', [CompletionResultType]::ParameterName, 'Tokens reserved besides the output (system prompt, tool schemas) [env: CTXCTL_RESERVED]')
            [CompletionResult]::new('--summarizer', '--summarizer', [CompletionResultType]::ParameterName, 'Who writes the summary: offline (default, no network) or llm')
            [CompletionResult]::new('--summary-tokens', '--summary-tokens', [CompletionResultType]::ParameterName, 'Cap on the offline summary, in tokens (default 2000; at least 1)')
            [CompletionResult]::new('--instructions', '--instructions', [CompletionResultType]::ParameterName, 'What the summary should pay attention to (llm)')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Retries of a failed summarizer call (default 2)')
            [CompletionResult]::new('--min-recall', '--min-recall', [CompletionResultType]::ParameterName, 'Refuse a summary that mentions less than this share of the replaced messages'' facts (paths, commands, error lines, user requests): exit 3, nothing changed')
            [CompletionResult]::new('--fallback', '--fallback', [CompletionResultType]::ParameterName, 'When the llm summarizer fails after its retries, use this one instead of exiting 3')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the result to FILE (`-` for standard output); the input is left as it is, so nothing is archived')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the result to FILE (`-` for standard output); the input is left as it is, so nothing is archived')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every agent''s sessions in their default homes, as `ctxctl sessions` lists them: with --if-needed --in-place -q, the nightly job')
            [CompletionResult]::new('--if-needed', '--if-needed', [CompletionResultType]::ParameterName, 'Only compact when usage is at or over the threshold')
            [CompletionResult]::new('--redact', '--redact', [CompletionResultType]::ParameterName, 'Remove secrets (API keys, tokens, private keys, passwords) from what the summarizer sees and from the summary')
            [CompletionResult]::new('--in-place', '--in-place', [CompletionResultType]::ParameterName, 'Replace the input file (the removed messages are archived first: only a rewrite that replaces its input files an archive)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Only show what would change; write nothing (exit 1 if something would change)')
            [CompletionResult]::new('--pick', '--pick', [CompletionResultType]::ParameterName, 'With no FILE: choose among this project''s sessions on the terminal (newest first) instead of taking the newest')
            [CompletionResult]::new('--resume', '--resume', [CompletionResultType]::ParameterName, 'After the rewrite, resume the session in its agent (`claude --resume ID`, `codex resume ID`, …), in the session''s project directory; implies --in-place')
            [CompletionResult]::new('--print-resume', '--print-resume', [CompletionResultType]::ParameterName, 'Print the command that resumes the session in its agent (shell-quoted) after the rewrite, instead of running it')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;stats' {
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Also read every session below DIR (*.json, *.jsonl, each session of goose''s sessions.db and OpenCode''s opencode.db)')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Also read every session below DIR (*.json, *.jsonl, each session of goose''s sessions.db and OpenCode''s opencode.db)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Only sessions of these agents (comma-separated)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only sessions whose project directory contains TEXT (any case) or matches a glob')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions active within DUR (e.g. 2d, 12h)')
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Only sessions not active for DUR (e.g. 30d)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Only files matching GLOB (a name like ''*.jsonl'', or a path like ''2025/**''); repeatable')
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'Only files matching GLOB (a name like ''*.jsonl'', or a path like ''2025/**''); repeatable')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Leave out files matching GLOB; repeatable')
            [CompletionResult]::new('--max-tokens', '--max-tokens', [CompletionResultType]::ParameterName, 'Use this context window instead of the model''s')
            [CompletionResult]::new('--reserve-output', '--reserve-output', [CompletionResultType]::ParameterName, 'Tokens reserved for the reply (default: the model''s max output, at most 20% of the window) [env: CTXCTL_RESERVE_OUTPUT]')
            [CompletionResult]::new('--reserved', '--reserved', [CompletionResultType]::ParameterName, 'Tokens reserved besides the output (system prompt, tool schemas) [env: CTXCTL_RESERVED]')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--pick', '--pick', [CompletionResultType]::ParameterName, 'With no FILE: choose among this project''s sessions on the terminal (newest first) instead of taking the newest')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;sessions' {
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Only sessions of these agents (comma-separated)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only sessions whose project directory contains TEXT (any case) or matches a glob')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions active within DUR (e.g. 2d, 12h)')
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Only sessions not active for DUR (e.g. 30d)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Only files matching GLOB (a name like ''*.jsonl'', or a path like ''2025/**''); repeatable')
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'Only files matching GLOB (a name like ''*.jsonl'', or a path like ''2025/**''); repeatable')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Leave out files matching GLOB; repeatable')
            [CompletionResult]::new('--min-tokens', '--min-tokens', [CompletionResultType]::ParameterName, 'Only sessions whose next request is at least N tokens')
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'Only sessions with these statuses (comma-separated)')
            [CompletionResult]::new('--sort', '--sort', [CompletionResultType]::ParameterName, 'Sort by this column')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--reverse', '--reverse', [CompletionResultType]::ParameterName, 'Reverse the order')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;ls' {
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Only sessions of these agents (comma-separated)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only sessions whose project directory contains TEXT (any case) or matches a glob')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions active within DUR (e.g. 2d, 12h)')
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Only sessions not active for DUR (e.g. 30d)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Only files matching GLOB (a name like ''*.jsonl'', or a path like ''2025/**''); repeatable')
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'Only files matching GLOB (a name like ''*.jsonl'', or a path like ''2025/**''); repeatable')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Leave out files matching GLOB; repeatable')
            [CompletionResult]::new('--min-tokens', '--min-tokens', [CompletionResultType]::ParameterName, 'Only sessions whose next request is at least N tokens')
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'Only sessions with these statuses (comma-separated)')
            [CompletionResult]::new('--sort', '--sort', [CompletionResultType]::ParameterName, 'Sort by this column')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--reverse', '--reverse', [CompletionResultType]::ParameterName, 'Reverse the order')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;diff' {
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Also list the messages both hold')
            [CompletionResult]::new('--pick', '--pick', [CompletionResultType]::ParameterName, 'With no FILE: choose among this project''s sessions on the terminal (newest first) instead of taking the newest')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;grep' {
            [CompletionResult]::new('--role', '--role', [CompletionResultType]::ParameterName, 'Only messages of these roles (comma-separated)')
            [CompletionResult]::new('--tool', '--tool', [CompletionResultType]::ParameterName, 'Only calls of these tools and their output (comma-separated, any case)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Lines of a message shown around each matching line')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'Lines of a message shown around each matching line')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Only sessions of these agents (comma-separated)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only sessions whose project directory contains TEXT (any case) or matches a glob')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions active within DUR (e.g. 2d, 12h)')
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Only sessions not active for DUR (e.g. 30d)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Only files matching GLOB (a name like ''*.jsonl'', or a path like ''2025/**''); repeatable')
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'Only files matching GLOB (a name like ''*.jsonl'', or a path like ''2025/**''); repeatable')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Leave out files matching GLOB; repeatable')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Case-insensitive')
            [CompletionResult]::new('--ignore-case', '--ignore-case', [CompletionResultType]::ParameterName, 'Case-insensitive')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Whole words only')
            [CompletionResult]::new('--word-regexp', '--word-regexp', [CompletionResultType]::ParameterName, 'Whole words only')
            [CompletionResult]::new('-F', '-F ', [CompletionResultType]::ParameterName, 'The pattern is a literal string, not a regex')
            [CompletionResult]::new('--fixed-strings', '--fixed-strings', [CompletionResultType]::ParameterName, 'The pattern is a literal string, not a regex')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Print only the sessions (and archives) that match')
            [CompletionResult]::new('--files-with-matches', '--files-with-matches', [CompletionResultType]::ParameterName, 'Print only the sessions (and archives) that match')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Print how many messages match in each session')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Print how many messages match in each session')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;mcp' {
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project whose sessions are searched (default: $CLAUDE_PROJECT_DIR, else the working directory)')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--allow-compact', '--allow-compact', [CompletionResultType]::ParameterName, 'Also offer `compact_session`: compact a session no agent is using (never the caller''s own, which is live), archiving it first as `ctxctl compact --in-place` does')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;doctor' {
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;archive' {
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List archives: of one session, or of all')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print one archive: its facts, the summary that replaced it, and (with --json) the records')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Put an archive''s originals back in place of the summary that replaced them')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'Delete archives (what they hold can no longer be restored)')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Delete old archives: beyond the newest N of each session, or older than a duration')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctxctl;archive;ls' {
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every archive, whatever the current directory')
            [CompletionResult]::new('--pick', '--pick', [CompletionResultType]::ParameterName, 'With no FILE: choose among this project''s sessions on the terminal (newest first) instead of taking the newest')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;archive;show' {
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;archive;restore' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the restored session here (`-` for standard output) instead of replacing FILE')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the restored session here (`-` for standard output) instead of replacing FILE')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Only show what would be restored (exit 1 if something would change)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Restore even if the archive was already restored into this file')
            [CompletionResult]::new('--pick', '--pick', [CompletionResultType]::ParameterName, 'With no FILE: choose among this project''s sessions on the terminal (newest first) instead of taking the newest')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;archive;rm' {
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;archive;prune' {
            [CompletionResult]::new('--keep', '--keep', [CompletionResultType]::ParameterName, 'Keep the newest N archives of each session')
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Only delete archives older than DUR (e.g. 30d)')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Only list what would be deleted (exit 1 if something would be)')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;archive;help' {
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List archives: of one session, or of all')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print one archive: its facts, the summary that replaced it, and (with --json) the records')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Put an archive''s originals back in place of the summary that replaced them')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'Delete archives (what they hold can no longer be restored)')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Delete old archives: beyond the newest N of each session, or older than a duration')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctxctl;archive;help;ls' {
            break
        }
        'ctxctl;archive;help;show' {
            break
        }
        'ctxctl;archive;help;restore' {
            break
        }
        'ctxctl;archive;help;rm' {
            break
        }
        'ctxctl;archive;help;prune' {
            break
        }
        'ctxctl;archive;help;help' {
            break
        }
        'ctxctl;models' {
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;config' {
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the config file''s location')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctxctl;config;path' {
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;config;help' {
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the config file''s location')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctxctl;config;help;path' {
            break
        }
        'ctxctl;config;help;help' {
            break
        }
        'ctxctl;cache' {
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the cache directory (counts and session digests)')
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Delete the cache: remembered counts and session digests (recomputed on the next run)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctxctl;cache;path' {
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;cache;clear' {
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;cache;help' {
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the cache directory (counts and session digests)')
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Delete the cache: remembered counts and session digests (recomputed on the next run)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctxctl;cache;help;path' {
            break
        }
        'ctxctl;cache;help;clear' {
            break
        }
        'ctxctl;cache;help;help' {
            break
        }
        'ctxctl;completions' {
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model id (decides the window and tokenizer) [env: CTXCTL_MODEL]')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'Tokenizer: auto (the model''s), o200k_base, cl100k_base, p50k_base, r50k_base, approx, words [env: CTXCTL_TOKENIZER]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Session format, instead of detecting it from the content')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: CTXCTL_CONFIG]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session to use inside an agent''s database (goose''s sessions.db): its id or name')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compress the archives trim and compact write of what they remove: zstd or none (overrides [archive] compress) [env: CTXCTL_ARCHIVE_COMPRESS] [default: none]')
            [CompletionResult]::new('--count-with', '--count-with', [CompletionResultType]::ParameterName, 'Count the next request locally or with the provider''s token-counting API (needs its key) [env: CTXCTL_COUNT_WITH] [default: local]')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the config file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Machine-readable JSON on stdout')
            [CompletionResult]::new('--tsv', '--tsv', [CompletionResultType]::ParameterName, 'Tables as tab-separated values with a header line and raw numbers (for sort -n, cut)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-vv for trace) [env: CTXCTL_LOG]')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never draw progress bars')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the token-count cache')
            [CompletionResult]::new('--include-live', '--include-live', [CompletionResultType]::ParameterName, 'Rewrite a session even when its agent is using it: held open for writing, named by a running agent or its live marker, a database session active less than 2 min ago, or (batch runs) a file modified less than 2 min ago')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxctl;help' {
            [CompletionResult]::new('count', 'count', [CompletionResultType]::ParameterValue, 'Count tokens per file, per role and per message')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check sessions against their model''s window (exit 1 when one needs attention)')
            [CompletionResult]::new('trim', 'trim', [CompletionResultType]::ParameterValue, 'Trim a session to fit a token budget (strategies: fifo, sliding-window, smart, …)')
            [CompletionResult]::new('compact', 'compact', [CompletionResultType]::ParameterValue, 'Summarize the middle of a session, keeping its head and recent tail')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Show where the tokens go: roles, tools, largest messages, window usage')
            [CompletionResult]::new('sessions', 'sessions', [CompletionResultType]::ParameterValue, 'List every agent session on the machine: tokens, share of the window, status')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare two sessions: what a rewrite removed, edited and added')
            [CompletionResult]::new('grep', 'grep', [CompletionResultType]::ParameterValue, 'Search every session''s messages, the parts compacted away and the archives')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve `recall` and `context_status` to an agent (Model Context Protocol on stdio)')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check the setup: config, directories, model, agent stores, LLM endpoint')
            [CompletionResult]::new('archive', 'archive', [CompletionResultType]::ParameterValue, 'List, show and restore the originals removed by compaction')
            [CompletionResult]::new('models', 'models', [CompletionResultType]::ParameterValue, 'List the built-in model registry')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Print the effective settings and where each came from')
            [CompletionResult]::new('cache', 'cache', [CompletionResultType]::ParameterValue, 'Manage the token-count cache')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctxctl;help;count' {
            break
        }
        'ctxctl;help;check' {
            break
        }
        'ctxctl;help;trim' {
            break
        }
        'ctxctl;help;compact' {
            break
        }
        'ctxctl;help;stats' {
            break
        }
        'ctxctl;help;sessions' {
            break
        }
        'ctxctl;help;diff' {
            break
        }
        'ctxctl;help;grep' {
            break
        }
        'ctxctl;help;mcp' {
            break
        }
        'ctxctl;help;doctor' {
            break
        }
        'ctxctl;help;archive' {
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List archives: of one session, or of all')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print one archive: its facts, the summary that replaced it, and (with --json) the records')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Put an archive''s originals back in place of the summary that replaced them')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'Delete archives (what they hold can no longer be restored)')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Delete old archives: beyond the newest N of each session, or older than a duration')
            break
        }
        'ctxctl;help;archive;ls' {
            break
        }
        'ctxctl;help;archive;show' {
            break
        }
        'ctxctl;help;archive;restore' {
            break
        }
        'ctxctl;help;archive;rm' {
            break
        }
        'ctxctl;help;archive;prune' {
            break
        }
        'ctxctl;help;models' {
            break
        }
        'ctxctl;help;config' {
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the config file''s location')
            break
        }
        'ctxctl;help;config;path' {
            break
        }
        'ctxctl;help;cache' {
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the cache directory (counts and session digests)')
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Delete the cache: remembered counts and session digests (recomputed on the next run)')
            break
        }
        'ctxctl;help;cache;path' {
            break
        }
        'ctxctl;help;cache;clear' {
            break
        }
        'ctxctl;help;completions' {
            break
        }
        'ctxctl;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
