#!/usr/bin/env python3
"""The fake Anthropic API of scripts/e2e/claude-code/, able to hold a request.

Same options as fake_anthropic.py plus --hold-file: while that file exists, a main
`POST /v1/messages` request (one that offers the Bash tool, i.e. a turn of the conversation,
not a side query) is held before it is answered: the server creates `<hold-file>.held`
(holding the request's number) and waits until the hold file is removed. So the agent is
kept mid-request, its session live, for as long as the driver wants.
"""

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "claude-code"))
import fake_anthropic  # noqa: E402

HOLD = None
_orig_messages = fake_anthropic.Handler.messages


def held_messages(self, body, entry, ctl):
    tools = [t.get("name") for t in (body or {}).get("tools") or []]
    if HOLD and "Bash" in tools and os.path.exists(HOLD):
        with open(HOLD + ".held.tmp", "w") as f:
            f.write(str(entry.get("n")))
        os.replace(HOLD + ".held.tmp", HOLD + ".held")
        entry["held"] = True
        while os.path.exists(HOLD):
            time.sleep(0.05)
            self.state.last = time.time()
    return _orig_messages(self, body, entry, ctl)


def main():
    global HOLD
    argv = sys.argv[1:]
    if "--hold-file" in argv:
        i = argv.index("--hold-file")
        HOLD = argv[i + 1]
        del argv[i : i + 2]
    sys.argv = [sys.argv[0]] + argv
    fake_anthropic.Handler.messages = held_messages
    fake_anthropic.main()


if __name__ == "__main__":
    main()
