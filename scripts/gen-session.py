#!/usr/bin/env python3
"""Generates a large, realistic-looking OpenAI Chat Completions session for benchmarks.

usage: gen-session.py TOKENS OUT.(json|jsonl) [--seed N]

The session alternates user prompts, assistant replies and tool calls whose results hold
code and logs, so tokenization sees varied text (prose, code, numbers, paths). The size is
approximate (about 4 characters per token)."""
import argparse, json, random, sys

WORDS = ("the a to of and in that is for it with as on be this by are or from at an not "
         "function value error file return test build request response session token model "
         "context window message tool result call assistant user system config path line "
         "index count limit budget trim compact archive summary cache thread memory parse "
         "struct impl enum match option string vector iterator closure lifetime borrow").split()
CODE = [
    "fn {n}(x: &[u8]) -> Result<usize, Error> {{ let mut n = 0; for b in x {{ n += *b as usize; }} Ok(n) }}",
    "def {n}(items):\n    return sorted(items, key=lambda i: (i.priority, i.name))[:{k}]",
    "SELECT id, name, created_at FROM {n} WHERE status = 'open' ORDER BY created_at DESC LIMIT {k};",
    "error[E0502]: cannot borrow `{n}` as mutable because it is also borrowed as immutable --> src/lib.rs:{k}:9",
    "2026-11-22T10:{k:02d}:00Z INFO {n}: request finished in {k}ms status=200 path=/api/v1/{n}",
    "/home/dev/project/src/{n}/mod.rs:{k}: warning: unused variable `{n}`",
]


def sentence(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def code_block(rng, lines):
    out = []
    for _ in range(lines):
        name = rng.choice(WORDS) + "_" + rng.choice(WORDS)
        out.append(rng.choice(CODE).format(n=name, k=rng.randint(1, 59)))
    return "\n".join(out)


def main():
    doc = __doc__.split("\n\n", 2)
    p = argparse.ArgumentParser(prog="gen-session.py", description=doc[0], epilog=doc[2],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("tokens", type=int, metavar="TOKENS", help="approximate size of the session in tokens")
    p.add_argument("out", metavar="OUT", help="output file: .jsonl writes one message a line, anything else an OpenAI request body")
    p.add_argument("--seed", type=int, default=7, help="random seed (default 7): the same seed gives the same session")
    a = p.parse_args()
    if a.tokens <= 0:
        p.error("TOKENS must be a positive number")
    target, out, seed = a.tokens, a.out, a.seed
    rng = random.Random(seed)
    msgs = [{"role": "system", "content": "You are a coding agent. " + sentence(rng, 60)}]
    chars = 0
    call = 0
    while chars < target * 4:
        start = len(msgs)
        msgs.append({"role": "user", "content": " ".join(sentence(rng, rng.randint(8, 30)) for _ in range(rng.randint(1, 4)))})
        for _ in range(rng.randint(0, 3)):
            call += 1
            cid = f"call_{call:06d}"
            args = json.dumps({"path": f"src/{rng.choice(WORDS)}/{rng.choice(WORDS)}.rs", "limit": rng.randint(10, 500)})
            msgs.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": rng.choice(["read_file", "run_command", "search"]), "arguments": args}}]})
            msgs.append({"role": "tool", "tool_call_id": cid, "content": code_block(rng, rng.randint(5, 60))})
        msgs.append({"role": "assistant", "content": "\n\n".join(sentence(rng, rng.randint(10, 40)) for _ in range(rng.randint(1, 5)))})
        chars += sum(len(m.get("content") or "") for m in msgs[start:])
    with open(out, "w") as f:
        if out.endswith(".jsonl"):
            for m in msgs:
                f.write(json.dumps(m, separators=(",", ":")) + "\n")
        else:
            json.dump({"model": "gpt-4o", "messages": msgs}, f)


if __name__ == "__main__":
    main()
