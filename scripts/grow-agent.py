#!/usr/bin/env python3
"""Grows a real agent transcript to a given size for benchmarks, by replaying its records
with fresh ids and texts that do not repeat.

usage: grow-agent.py SOURCE.jsonl MEGABYTES OUT.jsonl [--seed N]

SOURCE is a Claude Code transcript, a Codex rollout (take one from
shared/fixtures/realclients/, whose structure comes from the real agents), a Gemini CLI
session or a Copilot CLI event log. Its records are written again and again until OUT holds
MEGABYTES (10^6 bytes):
- every id (UUIDs, `toolu_`/`msg_`/`call_`/`req_`… ids) gets a fresh value in each round,
  the session's own id excepted;
- each round's first Claude Code record hangs from the previous round's last conversation
  record, so that the whole file is one live thread (a Copilot CLI event's `parentId`
  likewise); a Codex rollout's `session_meta`, a Copilot CLI log's `session.start` and a
  Gemini CLI session's header and `$set` checkpoints are written in the first round only;
- every text (message text, thinking, tool output, attachment text) is replaced by as many
  random words, so that a memo of repeated texts does not flatter the figures."""
import argparse, json, random, re, sys, uuid

ID = re.compile(r"^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
                r"|[0-9a-f]{32}|(?:toolu|msg|call|req|fc|rs|resp)_[A-Za-z0-9]{6,})$")
SESSION_KEYS = {"sessionId", "session_id", "id_session"}
TEXT_KEYS = {"text", "content", "thinking", "output", "stdout", "stderr", "rendered",
             "message", "lastPrompt", "summary", "prompt"}
SYLLABLES = ("ka lo mi ne ru ta shi po ve da gri fen mor lat sen vit qua ber dol nix tor "
             "ple cam ost ury ean ion ment ful ize ed ing er al").split()


def vocabulary(rng, n=20000):
    words = set()
    while len(words) < n:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 4))))
    return sorted(words)


class Texts:
    """Random words, never the same run twice."""

    def __init__(self, rng):
        self.rng = rng
        self.words = vocabulary(rng)

    def like(self, s):
        n = max(1, len(s) // 6)
        out = " ".join(self.rng.choices(self.words, k=n))
        return out[: max(len(s), 1)]


def session_ids(records):
    out = set()
    def walk(v, key=None):
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, k)
        elif isinstance(v, list):
            for x in v:
                walk(x, key)
        elif isinstance(v, str) and key in SESSION_KEYS:
            out.add(v)
    for r in records:
        walk(r)
    return out


def fresh(old):
    if re.fullmatch(r"[0-9a-f]{32}", old):
        return uuid.uuid4().hex
    if "_" in old and not old[0].isdigit():
        prefix = old.split("_", 1)[0]
        return prefix + "_" + uuid.uuid4().hex[:24]
    return str(uuid.uuid4())


def replay(v, ids, keep, texts, key=None):
    """`v` with its ids mapped through `ids` (fresh ones made as met) and its texts new."""
    if isinstance(v, dict):
        return {k: replay(x, ids, keep, texts, k) for k, x in v.items()}
    if isinstance(v, list):
        return [replay(x, ids, keep, texts, key) for x in v]
    if isinstance(v, str):
        if ID.match(v) and v not in keep:
            if v not in ids:
                ids[v] = fresh(v)
            return ids[v]
        if key in TEXT_KEYS and len(v) > 0:
            return texts.like(v)
    return v


def kind_of(records):
    """Which agent wrote `records`: codex, gemini, copilot, else claude."""
    first = records[0] if records else {}
    if first.get("type") == "session_meta":
        return "codex"
    if first.get("type") == "session.start":
        return "copilot"
    if "projectHash" in first:
        return "gemini"
    return "claude"


# Records written once, in the first round only (the session's header).
HEADER = {
    "codex": lambda r: r.get("type") == "session_meta",
    "copilot": lambda r: r.get("type") == "session.start",
    # A Gemini CLI session's header, and the checkpoints that replace its whole state.
    "gemini": lambda r: "projectHash" in r or bool({"messages", "sessionId"} & set(r.get("$set", {}))),
}


def grow(records, target, out, texts, renamed=None, edit=None):
    """Writes `records` replayed to the text file `out` until it holds `target` bytes (see
    the module's doc); `renamed` maps old ids (the session's own too) to the values every
    round gives them, `edit` changes each replayed record in place. Returns (bytes
    written, rounds)."""
    kind = kind_of(records)
    renamed = renamed or {}
    keep = session_ids(records) - set(renamed)
    header = HEADER.get(kind, lambda r: False)
    written, rounds, leaf = 0, 0, None
    while written < target:
        ids = dict(renamed)
        last = None
        for r in records:
            if rounds > 0 and header(r):
                continue
            r = replay(r, ids, keep, texts)
            if rounds > 0 and kind == "claude" and r.get("uuid") and r.get("parentUuid") is None:
                r["parentUuid"] = leaf
            if rounds > 0 and kind == "copilot" and "parentId" in r and r["parentId"] is None:
                r["parentId"] = leaf
            if edit:
                edit(r)
            last = r.get("id", last)
            line = json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n"
            out.write(line)
            written += len(line.encode("utf-8"))
            if written >= target:
                break
        if kind == "claude":
            conv = [ids.get(r.get("uuid")) for r in records
                    if r.get("type") in ("user", "assistant", "attachment") and r.get("uuid")]
            leaf = conv[-1] if conv else leaf
        elif kind == "copilot":
            leaf = last or leaf
        rounds += 1
    return written, rounds


def seeded(rng):
    """Fresh ids (uuid.uuid4) drawn from `rng`, so that a seed gives the same output."""
    uuid.uuid4 = lambda: uuid.UUID(int=rng.getrandbits(128), version=4)


def main():
    doc = __doc__.split("\n\n")
    p = argparse.ArgumentParser(prog="grow-agent.py", description=doc[0],
                                epilog="\n\n".join(doc[1:]),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source")
    p.add_argument("megabytes", type=float)
    p.add_argument("out")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    rng = random.Random(a.seed)
    seeded(rng)
    records = [json.loads(l) for l in open(a.source, encoding="utf-8") if l.strip()]
    with open(a.out, "w", encoding="utf-8") as out:
        written, rounds = grow(records, int(a.megabytes * 1_000_000), out, Texts(rng))
    print(f"{a.out}: {written} bytes, {rounds} rounds of {len(records)} records", file=sys.stderr)


if __name__ == "__main__":
    main()
