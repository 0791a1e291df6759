#!/usr/bin/env python3
"""Generate src/models/builtin.toml, ctxctl's built-in model registry.

Usage:
    python3 scripts/gen-models.py [LITELLM_JSON] [-o OUTPUT]

LITELLM_JSON defaults to ../shared/data/litellm_model_prices_and_context_window.json
relative to the repository root (the snapshot described in shared/data/PROVENANCE.md);
OUTPUT defaults to src/models/builtin.toml. Standard library only; the output is
deterministic (sorted, no timestamps), so rerunning on the same input changes nothing.

What goes in:
  * every litellm row with mode "chat" or "responses" and a max_input_tokens value,
    keyed by the bare model id: the provider path is dropped (`deepinfra/Qwen/X` -> `X`),
    Bedrock ids lose their geo prefix, vendor and `-v1:0` version (`us.anthropic.claude-
    opus-4-1-20250805-v1:0` -> `claude-opus-4-1-20250805`), Vertex `@` becomes `-`, Claude
    versions are spelled with dashes (`claude-3.7-sonnet` -> `claude-3-7-sonnet`) and the
    old `claude-4-opus` order becomes `claude-opus-4`;
  * when several rows share a bare id, the first-party provider's row wins (openai for gpt
    and o-series, anthropic for claude, gemini for gemini, ...); for models no maker serves
    (open weights on many hosts) the window most hosts agree on wins;
  * a row from another host whose numbers differ from the winner's is kept as an extra
    entry `host/model` (e.g. `cerebras/gpt-oss-120b`), which lookups try first;
  * a dated snapshot (`-YYYY-MM-DD`, `-YYYYMMDD`) or `-latest` id with exactly the numbers of
    its undated id becomes an alias of it;
  * SUPPLEMENT: retired models quoted in shared/MODELS.md section 1 from older litellm
    releases (1.80.0, 1.83.0), which the newest file no longer lists;
  * CORRECTIONS: values MODELS.md section 1.1 says to prefer over the row.

Each entry: context_window (litellm max_input_tokens), max_output_tokens (omitted when the
row has none or repeats the window, i.e. the cap is unknown), tokenizer (only for models
with a public tiktoken encoding, by tiktoken's name rules; absent means "estimate with
cl100k_base"), aliases.
"""

import argparse
import json
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_INPUT = os.path.join(
    REPO, "..", "shared", "data", "litellm_model_prices_and_context_window.json"
)
DEFAULT_OUTPUT = os.path.join(REPO, "src", "models", "builtin.toml")

# --- Retired rows (MODELS.md section 1, "gone from newest file" and older-release rows) ---
# (id, context_window, max_output_tokens or None, aliases, source)
SUPPLEMENT = [
    ("chatgpt-4o-latest", 128000, 4096, [], "1.83.0: chatgpt-4o-latest"),
    ("gpt-4.5-preview", 128000, 16384, ["gpt-4.5-preview-2025-02-27"], "1.80.0: gpt-4.5-preview"),
    ("claude-3-haiku-20240307", 200000, 4096, ["claude-3-haiku"], "1.80.0: claude-3-haiku-20240307"),
    (
        "claude-3-opus-20240229", 200000, 4096, ["claude-3-opus", "claude-3-opus-latest"],
        "1.80.0: claude-3-opus-20240229",
    ),
    (
        "claude-3-5-haiku-20241022", 200000, 8192, ["claude-3-5-haiku", "claude-3-5-haiku-latest"],
        "1.80.0: claude-3-5-haiku-20241022",
    ),
    (
        "claude-3-5-sonnet-20241022", 200000, 8192,
        ["claude-3-5-sonnet", "claude-3-5-sonnet-latest", "claude-3-5-sonnet-20240620"],
        "1.80.0: claude-3-5-sonnet-20241022",
    ),
    (
        "claude-3-7-sonnet-20250219", 200000, 64000, ["claude-3-7-sonnet", "claude-3-7-sonnet-latest"],
        "1.83.0: claude-3-7-sonnet-20250219",
    ),
    (
        "claude-opus-4-20250514", 200000, 32000, ["claude-opus-4", "claude-4-opus-20250514"],
        "1.83.0: claude-opus-4-20250514",
    ),
    # The 1.83.0 row says 1,000,000, but Anthropic served 1M only behind the beta header
    # context-1m-2025-08-07; 200k was the default window (MODELS.md section 1.1).
    (
        "claude-sonnet-4-20250514", 200000, 64000, ["claude-sonnet-4", "claude-4-sonnet-20250514"],
        "1.83.0: claude-sonnet-4-20250514 (window: default, not beta)",
    ),
    (
        "claude-opus-4-1-20250805", 200000, 32000, ["claude-opus-4-1"],
        "1.83.0: claude-opus-4-1-20250805",
    ),
    (
        "gemini-1.5-pro", 2097152, 8192,
        ["gemini-1.5-pro-001", "gemini-1.5-pro-002", "gemini-1.5-pro-latest"],
        "1.80.0: gemini/gemini-1.5-pro",
    ),
    (
        "gemini-1.5-flash", 1048576, 8192,
        ["gemini-1.5-flash-001", "gemini-1.5-flash-002", "gemini-1.5-flash-latest"],
        "1.80.0: gemini/gemini-1.5-flash",
    ),
    ("gemini-1.5-flash-8b", 1048576, 8192, [], "1.80.0: gemini/gemini-1.5-flash-8b"),
    ("gemini-2.0-flash", 1048576, 8192, ["gemini-2.0-flash-001"], "1.83.0: gemini/gemini-2.0-flash"),
    ("gemini-2.0-flash-lite", 1048576, 8192, ["gemini-2.0-flash-lite-001"], "1.83.0: same as gemini-2.0-flash"),
    ("gemini-3-pro-preview", 1048576, 65535, [], "1.83.0: gemini/gemini-3-pro-preview"),
    ("grok-3", 131072, None, ["grok-3-latest", "grok-3-beta"], "1.83.0: xai/grok-3"),
    ("grok-4", 256000, None, ["grok-4-0709", "grok-4-latest"], "1.83.0: xai/grok-4"),
    ("grok-4-1-fast-reasoning", 2000000, None, [], "1.83.0: xai/grok-4-1-fast-reasoning"),
    ("grok-4-1-fast-non-reasoning", 2000000, None, [], "1.83.0: xai/grok-4-1-fast-non-reasoning"),
]

# MODELS.md section 1.1: "claude-sonnet-4-6 output ... Prefer 64k until this is confirmed."
CORRECTIONS = {"claude-sonnet-4-6": {"max_output_tokens": 64000}}

# --- Who makes what: bare-id prefix -> litellm providers, best first -----------------------
FIRST_PARTY = [
    (r"^(gpt-|o\d|chatgpt-|codex-|computer-use|text-davinci|davinci|babbage)", ["openai", "azure"]),
    (r"^claude-", ["anthropic", "bedrock_converse", "bedrock", "vertex_ai-anthropic_models"]),
    (r"^(gemini-|gemma-|learnlm-)", ["gemini", "vertex_ai-language-models", "vertex_ai"]),
    (
        r"^(mistral-|codestral|devstral|magistral|ministral|pixtral|open-mistral|open-mixtral|voxtral)",
        ["mistral", "codestral"],
    ),
    (r"^deepseek-", ["deepseek"]),
    (r"^grok-", ["xai"]),
    (r"^(qwen|qwq)", ["dashscope"]),
    (r"^llama-", ["meta_llama"]),
    (r"^glm-", ["zai"]),
    (r"^(kimi-|moonshot-)", ["moonshot"]),
    (r"^minimax-", ["minimax"]),
    (r"^(command-|c4ai-)", ["cohere_chat"]),
    (r"^(jamba-|j2-)", ["ai21"]),
    (r"^nova-", ["amazon_nova", "bedrock_converse"]),
    (r"^sonar", ["perplexity"]),
    (r"^mercury", ["inception"]),
    (r"^muse-", ["meta"]),
    (r"^mimo-", ["xiaomi_mimo"]),
]
# Hosts in order of preference when no first-party row exists (model makers first, then
# the big clouds); others follow alphabetically.
HOST_ORDER = ["openai", "anthropic", "gemini", "vertex_ai", "mistral", "deepseek", "xai",
              "dashscope", "meta_llama", "zai", "moonshot", "minimax", "cohere", "ai21",
              "azure_ai", "azure", "bedrock", "groq", "together_ai", "fireworks_ai", "deepinfra"]

BEDROCK_ID = re.compile(
    r"^(?:[a-z]+(?:-[a-z]+)?\.)?"
    r"(anthropic|amazon|meta|mistral|cohere|ai21|deepseek|openai|qwen|writer|twelvelabs"
    r"|moonshotai|moonshot|minimax|google|nvidia|zai|xai|stability)\.(.+)$"
)
DATED = re.compile(r"^(.+)-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$")


def bare_id(key):
    """The model id without provider path, in the form lookups normalise to."""
    m = key.rsplit("/", 1)[-1]
    m = re.sub(r"@default$", "", m).replace("@", "-")
    b = BEDROCK_ID.match(m)
    if b:
        vendor, m = b.group(1), b.group(2)
        m = re.sub(r"-v\d+(:\d+)?$", "", m)
        m = re.sub(r"-\d+:\d+$", "", m)
        m = re.sub(r":\d+$", "", m)
        if vendor == "deepseek" and re.match(r"v\d", m):
            m = "deepseek-" + m
    else:
        m = re.sub(r"-v?\d+:\d+$", "", m)
    if m.lower().startswith("claude-"):
        m = re.sub(r"(?<=\d)\.(?=\d)", "-", m)
        m = re.sub(r"^(?i:claude)-([4-9]|\d\d)(-\d{1,2})?-([a-z]+)(?=-|$)", r"claude-\3-\1\2", m)
    return m


def host_of(key, provider):
    if "/" in key:
        return key.split("/", 1)[0].lower()
    if provider.startswith("bedrock"):
        return "bedrock"
    if provider.startswith("vertex_ai"):
        return "vertex_ai"
    return {"cohere_chat": "cohere"}.get(provider, provider)


def tokenizer_for(model):
    """tiktoken's model -> encoding rules (MODELS.md 2.1/2.2) plus gpt-6 and gpt-oss."""
    m = model.lower()
    if m.startswith("ft:"):
        m = m[3:].split(":", 1)[0]
    m = m.split(":", 1)[0]
    o200k_exact = {"o1", "o3", "o4", "o4-mini", "gpt-5", "gpt-4.1", "gpt-4o", "chatgpt-4o-latest",
                   "gpt-oss"}
    cl100k_exact = {"gpt-4", "gpt-3.5-turbo", "gpt-3.5", "gpt-35-turbo"}
    if m in o200k_exact:
        return "o200k_base"
    if m in cl100k_exact:
        return "cl100k_base"
    o200k_prefixes = ("o1-", "o3-", "o4-", "gpt-5", "gpt-6", "codex-mini", "gpt-4.5-",
                      "gpt-4.1-", "chatgpt-4o-", "gpt-4o-", "gpt-oss-")
    if m.startswith(o200k_prefixes):
        return "o200k_base"
    if m.startswith(("gpt-4-", "gpt-3.5-turbo-", "gpt-35-turbo-")):
        return "cl100k_base"
    return None


def owners(bare):
    for pattern, provs in FIRST_PARTY:
        if re.match(pattern, bare.lower()):
            return provs
    return []


def is_primary(row):
    """Whether the row comes from the model's own maker (the first provider listed)."""
    provs = owners(row["bare"])
    return bool(provs) and row["provider"] == provs[0]


def rank(row):
    provs = owners(row["bare"])
    if row["provider"] in provs:
        party = (0, provs.index(row["provider"]))
    else:
        party = (1, 0)
    host = row["host"]
    order = HOST_ORDER.index(host) if host in HOST_ORDER else len(HOST_ORDER)
    return (party, order, host, row["key"].count("/"), row["key"])


def choose(group):
    """The row a bare id takes its numbers from: the maker's own row when there is one.
    Otherwise (open-weight models served by many hosts) the window most hosts agree on,
    ties going to the larger window (hosts cut windows down, they rarely extend them),
    and the best-ranked host's row with that window."""
    owned = [r for r in group if r["provider"] in owners(r["bare"])]
    if owned:
        return min(owned, key=rank)
    hosts = {}
    for r in group:
        hosts.setdefault(r["window"], set()).add(r["host"])
    window = max(hosts, key=lambda w: (len(hosts[w]), w))
    return min((r for r in group if r["window"] == window), key=rank)


def load_rows(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    rows = []
    for key, v in data.items():
        if not isinstance(v, dict) or v.get("mode") not in ("chat", "responses"):
            continue
        window = v.get("max_input_tokens")
        if not isinstance(window, int) or window <= 0 or key.startswith("ft:"):
            continue
        out = v.get("max_output_tokens")
        if not isinstance(out, int) or out <= 0 or out == window:
            out = None
        provider = v.get("litellm_provider", "")
        bare = bare_id(key)
        rows.append({"key": key, "bare": bare, "provider": provider,
                     "host": host_of(key, provider), "window": window, "out": out})
    return rows


def build(rows):
    """Returns {id: entry}; entry = {context_window, max_output_tokens, tokenizer, aliases}."""
    groups = {}
    for row in rows:
        groups.setdefault(row["bare"].lower(), []).append(row)

    entries = {}  # lowercase name -> entry (dict with "id")
    for lower, group in groups.items():
        best = choose(group)
        entries[lower] = {"id": best["bare"], "window": best["window"], "out": best["out"],
                          "aliases": set(), "party": is_primary(best),
                          "rows": group, "best": best}

    # The supplement is first-party: it replaces a bare id only hosts list, and claims its
    # aliases (a host-only entry under an alias name is folded into it).
    for sid, window, out, aliases, _source in SUPPLEMENT:
        lower = sid.lower()
        if lower in entries and entries[lower]["party"]:
            sys.exit(f"supplement row {sid} is in the data now; drop it from SUPPLEMENT")
        rows_here = entries.pop(lower, {"rows": []})["rows"]
        entry = {"id": sid, "window": window, "out": out, "aliases": set(), "party": True,
                 "rows": list(rows_here), "best": None}
        for alias in aliases:
            al = alias.lower()
            other = entries.get(al)
            if other is not None:
                if other["party"]:
                    sys.exit(f"supplement alias {alias} is a first-party id in the data")
                entry["rows"].extend(other["rows"])
                del entries[al]
            entry["aliases"].add(alias)
        entries[lower] = entry

    for name, fix in CORRECTIONS.items():
        entries[name]["out"] = fix["max_output_tokens"]

    # Fold dated snapshots and -latest ids with identical numbers into their base id.
    for lower in sorted(entries):
        m = DATED.match(lower)
        if not m or lower not in entries:
            continue
        base = entries.get(m.group(1))
        e = entries[lower]
        if base is None or (base["window"], base["out"]) != (e["window"], e["out"]):
            continue
        if tokenizer_for(base["id"]) != tokenizer_for(e["id"]):
            continue
        base["aliases"].add(e["id"])
        base["aliases"].update(e["aliases"])
        base["rows"].extend(e["rows"])
        del entries[lower]

    result = {}
    for e in entries.values():
        result[e["id"]] = {"window": e["window"], "out": e["out"], "tokenizer": tokenizer_for(e["id"]),
                           "aliases": sorted(e["aliases"], key=str.lower)}

    # Host rows whose numbers differ from the entry they resolve to: `host/model` entries.
    taken = {k.lower() for k in result}
    for e in entries.values():
        taken.update(a.lower() for a in e["aliases"])
    hosts = {}
    for e in entries.values():
        for row in e["rows"]:
            name = f"{row['host']}/{row['bare']}"
            if name.lower() in taken:
                continue
            prev = hosts.get(name.lower())
            if prev is None or rank(row) < rank(prev[0]):
                hosts[name.lower()] = (row, e)
    for row, e in hosts.values():
        # Each host's best row stands for the host; it gets an entry only if it differs
        # (the entry's own row never does, even when CORRECTIONS changed the entry).
        if row is e["best"] or (row["window"], row["out"]) == (e["window"], e["out"]):
            continue
        name = f"{row['host']}/{row['bare']}"
        result[name] = {"window": row["window"], "out": row["out"],
                        "tokenizer": tokenizer_for(row["bare"]), "aliases": []}
    return result


def toml_str(s):
    return json.dumps(s, ensure_ascii=False)


def render(result, source):
    lines = [
        "# ctxctl's built-in model registry. GENERATED by scripts/gen-models.py: do not edit.",
        "# Regenerate: python3 scripts/gen-models.py [path/to/litellm_model_prices_and_context_window.json]",
        f"# Source: {source} (litellm 1.109.1, MIT; see shared/data/PROVENANCE.md)",
        "# plus retired rows from litellm 1.80.0 / 1.83.0 quoted in shared/MODELS.md section 1.",
        "#",
        "# context_window     litellm max_input_tokens (the prompt must fit in it)",
        "# max_output_tokens  absent when unknown (the row had none or repeated the window)",
        "# tokenizer          tiktoken encoding by tiktoken's name rules; absent = no public",
        "#                    tokenizer, counts are estimates with cl100k_base",
        "# aliases            other names (dated snapshots, -latest) with the same numbers",
        "# `host/model` keys  a host whose numbers differ from the first-party ones",
        "",
        "[models]",
    ]
    for name in sorted(result, key=lambda k: (k.lower(), k)):
        e = result[name]
        fields = [f"context_window = {e['window']}"]
        if e["out"] is not None:
            fields.append(f"max_output_tokens = {e['out']}")
        if e["tokenizer"]:
            fields.append(f"tokenizer = {toml_str(e['tokenizer'])}")
        if e["aliases"]:
            fields.append("aliases = [" + ", ".join(toml_str(a) for a in e["aliases"]) + "]")
        lines.append(f"{toml_str(name)} = {{ {', '.join(fields)} }}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("input", nargs="?", default=DEFAULT_INPUT, help="litellm JSON file")
    ap.add_argument("-o", "--output", default=DEFAULT_OUTPUT, help="TOML file to write")
    args = ap.parse_args()
    if not os.path.exists(args.input):
        sys.exit(f"{args.input}: not found; pass the litellm JSON path as the first argument")
    result = build(load_rows(args.input))
    text = render(result, os.path.basename(args.input))
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {len(result)} models to {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
