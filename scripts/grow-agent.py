#!/usr/bin/env python3
"""Grows a real agent transcript to a given size for benchmarks, by replaying its records
with fresh ids and texts that do not repeat.

usage: grow-agent.py SOURCE.jsonl MEGABYTES OUT.jsonl [--seed N]

SOURCE is a Claude Code transcript or a Codex rollout (take one from
shared/fixtures/realclients/, whose structure comes from the real agents). Its records are
written again and again until OUT holds MEGABYTES (10^6 bytes):
- every id (UUIDs, `toolu_`/`msg_`/`call_`/`req_`… ids) gets a fresh value in each round,
  the session's own id excepted;
- each round's first Claude Code record hangs from the previous round's last conversation
  record, so that the whole file is one live thread; a Codex rollout's `session_meta` is
  written once;
- every text (message text, thinking, tool output, attachment text) is replaced by as many
  random words, so that a memo of repeated texts does not flatter the figures."""
import argparse, json, random, re, sys, uuid

ID = re.compile(r"^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
                r"|(?:toolu|msg|call|req|fc|rs|resp)_[A-Za-z0-9]{6,})$")
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
    uuid.uuid4 = lambda: uuid.UUID(int=rng.getrandbits(128), version=4)
    records = [json.loads(l) for l in open(a.source, encoding="utf-8") if l.strip()]
    keep = session_ids(records)
    codex = records[0].get("type") == "session_meta"
    texts = Texts(rng)
    target = int(a.megabytes * 1_000_000)
    written, rounds, leaf = 0, 0, None
    with open(a.out, "w", encoding="utf-8") as out:
        while written < target:
            ids = {}
            for r in records:
                if codex and rounds > 0 and r.get("type") == "session_meta":
                    continue
                r = replay(r, ids, keep, texts)
                if not codex:
                    if rounds > 0 and r.get("uuid") and r.get("parentUuid") is None:
                        r["parentUuid"] = leaf
                line = json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n"
                out.write(line)
                written += len(line.encode("utf-8"))
                if written >= target:
                    break
            if not codex:
                conv = [ids.get(r.get("uuid")) for r in records
                        if r.get("type") in ("user", "assistant", "attachment") and r.get("uuid")]
                leaf = conv[-1] if conv else leaf
            rounds += 1
    print(f"{a.out}: {written} bytes, {rounds} rounds of {len(records)} records", file=sys.stderr)


if __name__ == "__main__":
    main()
